// Which vocabulary tokens may come next under a grammar: the mask applied before sampling.
//
// TokenVocabulary holds every token's bytes in a trie laid out in pre-order (each node knows
// where its subtree ends), built once per model. TokenMasker walks that trie against a
// matcher's state: a node whose byte no stack takes is skipped with its whole subtree, so the
// work follows the tokens that are still possible. Tokens with no bytes (control tokens) are
// never allowed; the end-of-generation tokens are allowed exactly when the grammar accepts.
// Masks are cached by matcher state (GrammarMatcher::state_key), since outputs revisit the same
// states (inside a string, between fields). The walk keeps one set of stacks per trie depth and
// reuses their storage, so computing a mask allocates only while the buffers grow.
//
// TokenVocabulary is immutable and shared; a TokenMasker belongs to one request on one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_matcher.h"

namespace strata::grammar {

class TokenVocabulary {
 public:
  // token_bytes[id]: the bytes token id stands for in output text ("" for control tokens).
  // end_tokens: the ids that end generation (EOS, end of turn).
  TokenVocabulary(const std::vector<std::string>& token_bytes, std::vector<int32_t> end_tokens);

  int n_vocab() const { return n_vocab_; }
  const std::vector<int32_t>& end_tokens() const { return end_tokens_; }
  const std::string& bytes(int32_t token) const { return bytes_[token]; }

  struct Node {
    uint8_t byte;
    uint16_t depth;          // 1 for a first byte
    uint32_t subtree_end;    // the index just past this node's subtree
    uint32_t token_begin;    // tokens ending here: ordered_tokens[token_begin, +token_count)
    uint32_t token_count;
  };
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<int32_t>& ordered_tokens() const { return ordered_; }
  int max_depth() const { return max_depth_; }

 private:
  int n_vocab_;
  std::vector<std::string> bytes_;
  std::vector<int32_t> end_tokens_;
  std::vector<Node> nodes_;      // nodes_[0] is the root (the empty prefix)
  std::vector<int32_t> ordered_;
  int max_depth_ = 0;
};

class TokenMasker {
 public:
  static constexpr size_t kMaxCachedMasks = 256;

  explicit TokenMasker(std::shared_ptr<const TokenVocabulary> vocab);

  // One bit per token id (bit t of word t/64): the tokens that may follow the matcher's state.
  // Valid until the next call.
  std::span<const uint64_t> mask(const GrammarMatcher& matcher);
  // The same, computed afresh (no cache); for tests and benchmarks.
  void compute(const GrammarMatcher& matcher, std::vector<uint64_t>* bits);

  // A set of stacks whose storage outlives its contents: the first n entries are the set.
  struct StackSet {
    std::vector<Stack> stacks;
    size_t n = 0;
  };

 private:
  bool step(const CompiledGrammar& g, const StackSet& from, uint8_t byte, StackSet* out);
  void expand(const CompiledGrammar& g, Stack& stack, size_t depth, StackSet* out);

  std::shared_ptr<const TokenVocabulary> vocab_;
  std::unordered_map<std::string, std::vector<uint64_t>> cache_;
  std::vector<StackSet> depth_states_;  // the state after each trie depth
  std::deque<Stack> scratch_;           // one working stack per expansion depth
};

}  // namespace strata::grammar
