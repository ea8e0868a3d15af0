// GrammarMatcher: runs a Grammar over bytes, one byte at a time, as a pushdown automaton.
//
// The state is a set of stacks (the grammar may be ambiguous): each stack holds positions in
// the flattened grammar, its top a byte-set element waiting for the next byte, and the rest
// the places to return to when the rules above finish (a rule reference that ends its
// alternative returns straight to its caller's caller, so repetition written as right
// recursion keeps stacks short). An empty stack means the grammar has matched a complete
// output. accept() moves every stack whose top takes the byte and drops the rest; a byte that
// no stack takes is refused and leaves the state as it was.
//
// CompiledGrammar is immutable and shared; a GrammarMatcher is one output's state, owned and
// used by one thread (the engine thread).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "grammar/grammar.h"

namespace strata::grammar {

class CompiledGrammar {
 public:
  // Flattens a grammar (validated first; errors are validate_grammar's).
  static Result<std::shared_ptr<const CompiledGrammar>> Compile(const Grammar& grammar);

  struct Slot {
    enum class Kind : uint8_t { kBytes, kRule, kEnd } kind;
    uint32_t value;  // kBytes: index into sets; kRule: rule id
  };
  std::vector<Slot> slots;                       // every alternative, each closed by kEnd
  std::vector<ByteSet> sets;
  std::vector<std::vector<uint32_t>> rule_starts;  // per rule: where its alternatives begin
};

using Stack = std::vector<uint32_t>;

class GrammarMatcher {
 public:
  // The largest number of stacks a state may hold; an ambiguous grammar past it fails the byte.
  static constexpr size_t kMaxStacks = 1024;

  explicit GrammarMatcher(std::shared_ptr<const CompiledGrammar> grammar);

  // Advances by each byte; false (state unchanged) when the bytes are not a valid continuation.
  bool accept(std::string_view bytes);
  // A complete output has been matched (end of output is allowed here).
  bool accepting() const;
  // Some byte can still follow.
  bool can_continue() const;
  // The union of the bytes that may come next.
  ByteSet next_bytes() const;

  const std::vector<Stack>& stacks() const { return stacks_; }
  const CompiledGrammar& grammar() const { return *grammar_; }
  const std::shared_ptr<const CompiledGrammar>& shared_grammar() const { return grammar_; }
  // A compact text identifying the state (equal states, equal keys): mask caches use it.
  std::string state_key() const;

  // Steps a raw state by one byte into *out (sorted, deduplicated); false if no stack takes it.
  static bool step(const CompiledGrammar& g, const std::vector<Stack>& from, uint8_t byte,
                   std::vector<Stack>* out);

 private:
  std::shared_ptr<const CompiledGrammar> grammar_;
  std::vector<Stack> stacks_;
};

}  // namespace strata::grammar
