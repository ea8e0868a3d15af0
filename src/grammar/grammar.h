// Grammar: a context-free grammar over bytes, the form every output constraint compiles to
// (GBNF text, JSON schemas, forced tool calls), and what a GrammarMatcher runs.
//
// A grammar is a list of rules; a rule is a list of alternatives; an alternative is a sequence
// of elements, each either a byte set (one byte from the set) or a reference to a rule. Rule 0
// is the root. Text-level notions (UTF-8 characters, repetition) are compiled away by the
// builders: a character class becomes alternatives of byte sequences, x* a right-recursive rule.
//
// Invariants of a validated grammar (validate_grammar): every reference names a rule, every
// rule has at least one alternative, and no rule can reach itself without consuming a byte
// (left recursion), so a matcher's expansion always terminates.
//
// Immutable once built; shared read-only between threads (the server builds it, the engine
// thread runs it).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace strata::grammar {

// 256 bits: which bytes an element accepts.
struct ByteSet {
  std::array<uint64_t, 4> bits{};
  bool has(uint8_t b) const { return (bits[b >> 6] >> (b & 63)) & 1; }
  void add(uint8_t b) { bits[b >> 6] |= uint64_t{1} << (b & 63); }
  void add_range(uint8_t lo, uint8_t hi) {
    for (int b = lo; b <= hi; ++b) add(static_cast<uint8_t>(b));
  }
  bool empty() const { return (bits[0] | bits[1] | bits[2] | bits[3]) == 0; }
  bool operator==(const ByteSet&) const = default;
};

struct Element {
  enum class Kind : uint8_t { kBytes, kRule } kind = Kind::kBytes;
  ByteSet bytes;     // kBytes
  uint32_t rule = 0; // kRule
};

using Alternative = std::vector<Element>;

struct Rule {
  std::string name;  // for error messages and dumps
  std::vector<Alternative> alternatives;
};

struct Grammar {
  std::vector<Rule> rules;  // rules[0] is the root
};

// Checks the invariants above; errors name the rule ("rule 'value' is left-recursive").
Status validate_grammar(const Grammar& grammar);

}  // namespace strata::grammar
