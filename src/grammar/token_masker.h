// Which vocabulary tokens may come next under a grammar: the mask applied before sampling.
//
// TokenVocabulary holds every token's bytes in a trie laid out in pre-order (each node knows
// where its subtree ends), built once per model. TokenMasker walks that trie against a
// matcher's state: a node whose byte no stack takes is skipped with its whole subtree, so the
// work follows the tokens that are still possible. Tokens with no bytes (control tokens) are
// never allowed; the end-of-generation tokens are allowed exactly when the grammar accepts.
// Masks are cached by matcher state (GrammarMatcher::state_key), since outputs revisit the same
// states (inside a string, between fields). The walk keeps one set of stacks per trie depth,
// each stack a chain in a frame pool, so a step costs the frames it pushes, not a copy.
//
// TokenVocabulary is immutable and shared; a TokenMasker belongs to one request on one thread.
#pragma once

#include <cstdint>
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

  // Stacks as chains of frames in a pool that one mask computation fills and the next reuses:
  // moving a stack by a byte pushes a frame or two on a shared chain instead of copying it.
  struct Frame {
    uint32_t pos;     // a slot of the compiled grammar
    uint32_t parent;  // the frame below, or kBottom
  };
  static constexpr uint32_t kBottom = UINT32_MAX;  // the empty stack (the grammar accepts)

 private:
  using FrameSet = std::vector<uint32_t>;  // the top frames of a state's stacks
  uint32_t push(uint32_t pos, uint32_t parent);
  uint32_t pop_finished(const CompiledGrammar& g, uint32_t frame) const;
  bool same_stack(uint32_t a, uint32_t b) const;
  void expand(const CompiledGrammar& g, uint32_t frame, FrameSet* out);
  bool step(const CompiledGrammar& g, const FrameSet& from, uint8_t byte, FrameSet* out);

  std::shared_ptr<const TokenVocabulary> vocab_;
  std::unordered_map<std::string, std::vector<uint64_t>> cache_;
  std::vector<Frame> frames_;            // the pool, emptied at the start of each computation
  std::vector<FrameSet> depth_states_;   // the state after each trie depth
  // Duplicate check: pos_stamp_[top slot] == stamp_ when a stack with that top is already in
  // the set being built (the last entry stands for the empty stack), so only those compare.
  std::vector<uint32_t> pos_stamp_;
  uint32_t stamp_ = 0;
};

}  // namespace strata::grammar
