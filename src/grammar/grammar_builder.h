// GrammarBuilder: assembles a Grammar from text-level pieces (UTF-8 literals, character classes
// over code points, groups, bounded and unbounded repetition), creating helper rules as needed.
// Used by the GBNF parser and the JSON-schema compiler.
//
// Rule 0 is reserved for "root". Rules may be referenced before they are defined; finish()
// reports any that never were. Not thread-safe; one builder makes one grammar.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "grammar/grammar.h"

namespace strata::grammar {

// An inclusive range of Unicode code points.
using CodepointRange = std::pair<uint32_t, uint32_t>;

class GrammarBuilder {
 public:
  GrammarBuilder();

  // The id of the named rule, created (undefined) on first mention.
  uint32_t rule_id(const std::string& name);
  bool is_defined(uint32_t id) const { return defined_[id]; }
  // Defines a named rule; defining one twice is an error naming it.
  Status define(uint32_t id, std::vector<Alternative> alternatives);
  // A fresh rule named after base ("value-3"), already defined.
  uint32_t helper(const std::string& base, std::vector<Alternative> alternatives);

  static Element ref(uint32_t rule);
  // The UTF-8 bytes of text, one element each.
  static void append_literal(std::string_view text, Alternative* out);
  // One code point from the ranges (or from outside them when negated): a byte-set element for
  // ASCII-only sets, else a reference to a helper rule of UTF-8 byte sequences. Surrogates are
  // never matched.
  Element codepoint_class(std::vector<CodepointRange> ranges, bool negated);
  // min..max repetitions of item (max < 0: unbounded), as a reference to a helper rule.
  Element repeat(const Element& item, int min, int max);

  // The grammar, validated. Errors name undefined rules and left recursion.
  Result<Grammar> finish();

 private:
  Grammar grammar_;
  std::vector<bool> defined_;
  std::map<std::string, uint32_t> ids_;
  std::map<std::pair<std::vector<CodepointRange>, bool>, Element> class_cache_;
  int n_helpers_ = 0;
};

// The byte-range sequences that encode exactly the code points lo..hi in UTF-8 (lo <= hi, the
// same encoded length and no surrogates). Exposed for tests.
std::vector<std::vector<std::pair<uint8_t, uint8_t>>> utf8_range_sequences(uint32_t lo, uint32_t hi);

}  // namespace strata::grammar
