// ReferenceTokenMasker: the plain token-mask computation, kept as the oracle that TokenMasker's
// automaton is tested against (byte for byte) and as the "before" figure in
// bench/grammar_mask_bench.cc. Slow on permissive states (inside a JSON string nearly every
// trie node survives and each one steps the full set of stacks), which is why it is not the
// one the engine runs.
//
// It walks the vocabulary trie against a matcher's state: a node whose byte no stack takes is
// skipped with its whole subtree. The walk keeps one set of stacks per trie depth, each stack a
// chain in a frame pool that the computation fills and the next one empties, so a step costs
// the frames it pushes, not a copy. A state whose deduplicated stacks outgrow
// GrammarMatcher::kMaxStacks refuses the byte.
//
// Holds only scratch space between calls; one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "grammar/grammar_matcher.h"
#include "grammar/token_masker.h"

namespace strata::grammar {

class ReferenceTokenMasker {
 public:
  explicit ReferenceTokenMasker(std::shared_ptr<const TokenVocabulary> vocab);

  // One bit per token id (bit t of word t/64): the tokens that may follow the matcher's state.
  void compute(const GrammarMatcher& matcher, std::vector<uint64_t>* bits);

 private:
  struct Frame {
    uint32_t pos;     // a slot of the compiled grammar
    uint32_t parent;  // the frame below, or kBottom
  };
  static constexpr uint32_t kBottom = UINT32_MAX;  // the empty stack (the grammar accepts)
  using FrameSet = std::vector<uint32_t>;          // the top frames of a state's stacks

  uint32_t push(uint32_t pos, uint32_t parent);
  uint32_t pop_finished(const CompiledGrammar& g, uint32_t frame) const;
  bool same_stack(uint32_t a, uint32_t b) const;
  void expand(const CompiledGrammar& g, uint32_t frame, FrameSet* out);
  bool step(const CompiledGrammar& g, const FrameSet& from, uint8_t byte, FrameSet* out);

  std::shared_ptr<const TokenVocabulary> vocab_;
  std::vector<Frame> frames_;           // the pool, emptied at the start of each computation
  std::vector<FrameSet> depth_states_;  // the state after each trie depth
  // Duplicate check: pos_stamp_[top slot] == stamp_ when a stack with that top is already in
  // the set being built (the last entry stands for the empty stack), so only those compare.
  std::vector<uint32_t> pos_stamp_;
  uint32_t stamp_ = 0;
};

}  // namespace strata::grammar
