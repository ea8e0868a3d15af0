// MaskAutomaton: a deterministic automaton over one grammar's matcher states, built lazily as
// token-mask walks ask for transitions, so that a trie walk costs a table lookup per node
// instead of stepping every stack.
//
// A state is an exact set of stacks, so the automaton computes the same masks as stepping the
// stacks directly (ReferenceTokenMasker is the oracle). Stacks are hash-consed chains of
// frames (slot, parent frame): equal stacks have equal ids, a step pushes at most a frame or
// two, and a state is the sorted list of its stacks' top frame ids. Each state owns a row of
// 256 transitions, filled on first use: the state after the byte, or kDead when no stack takes
// the byte or the deduplicated stacks outgrow GrammarMatcher::kMaxStacks (as the reference).
//
// Local states (cut): the part of a state above the highest frame that all its stacks share,
// with the rest (the context) replaced by a hole. The inside of a JSON string, say, is the
// same local state in every field and array item, so its mask can be computed once and shared;
// a stack that pops into the hole has returned to the context, which a local state does not
// know (TokenMasker resolves those tokens against the full state).
//
// Grows without bound while used: its owner checks memory_bytes() and starts a fresh one.
// Owned by one TokenMasker, one thread; holds the grammar alive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_matcher.h"

namespace strata::grammar {

class MaskAutomaton {
 public:
  static constexpr uint32_t kDead = UINT32_MAX;

  explicit MaskAutomaton(std::shared_ptr<const CompiledGrammar> grammar);

  const CompiledGrammar* grammar() const { return grammar_.get(); }
  // The state of a matcher's stacks (which must be this grammar's).
  uint32_t intern(const std::vector<Stack>& stacks);
  // The state after one more byte, or kDead.
  uint32_t next(uint32_t state, uint8_t byte) {
    const uint32_t to = transitions_[size_t{state} * 256 + byte];
    return to != kUnknown ? to : compute_next(state, byte);
  }
  // The state holds the empty stack: the output may end here.
  bool accepting(uint32_t state) const { return (state_flags_[state] & kAcceptingFlag) != 0; }
  // A local state with a stack that has returned to the context.
  bool has_hole(uint32_t state) const { return (state_flags_[state] & kHoleFlag) != 0; }

  // The local state of a full state: false when its stacks share no frame with a context below
  // it (nothing to share) or a step may have overflowed GrammarMatcher::kMaxStacks (then only
  // full walks are exact). *context_size: the stacks a return to the context expands to.
  bool cut(uint32_t state, uint32_t* local, size_t* context_size);
  // The largest number of stacks any state has held.
  size_t max_state_size() const { return max_state_size_; }
  // Some step refused a byte because its stacks outgrew GrammarMatcher::kMaxStacks.
  bool overflowed() const { return overflowed_; }

  size_t n_states() const { return state_flags_.size(); }
  size_t memory_bytes() const;

 private:
  static constexpr uint32_t kUnknown = UINT32_MAX - 1;
  static constexpr uint32_t kBottom = UINT32_MAX;     // below the last frame: the empty stack
  static constexpr uint32_t kHole = UINT32_MAX - 2;   // below a local state's last frame
  static constexpr uint8_t kAcceptingFlag = 1, kHoleFlag = 2;
  struct Frame {
    uint32_t pos;     // a slot of the compiled grammar
    uint32_t parent;  // the frame below, kBottom or kHole
  };
  static bool is_frame(uint32_t f) { return f < kHole; }

  uint32_t frame(uint32_t pos, uint32_t parent);
  uint32_t pop_finished(uint32_t frame) const;
  void expand(uint32_t frame, std::vector<uint32_t>* out);
  void add_unique(uint32_t frame, std::vector<uint32_t>* out);
  void next_stamp();
  uint32_t intern_set(std::vector<uint32_t>* tops);
  uint32_t compute_next(uint32_t state, uint8_t byte);
  uint32_t highest_common_frame(const std::vector<uint32_t>& tops);
  uint32_t relocate(uint32_t f, uint32_t cut);

  std::shared_ptr<const CompiledGrammar> grammar_;
  std::vector<Frame> frames_;
  std::unordered_map<uint64_t, uint32_t> frame_ids_;  // (pos << 32 | parent) -> frame id
  std::vector<uint32_t> frame_stamp_;                 // duplicate check while building a set
  uint32_t bottom_stamp_ = 0, hole_stamp_ = 0;
  uint32_t stamp_ = 0;
  std::vector<std::vector<uint32_t>> state_tops_;    // per state: sorted top frame ids
  std::vector<uint8_t> state_flags_;
  size_t tops_bytes_ = 0;
  size_t max_state_size_ = 0;
  bool overflowed_ = false;
  std::unordered_map<std::string, uint32_t> state_ids_;  // the bytes of state_tops_ -> state
  std::vector<uint32_t> transitions_;                // n_states x 256
  std::vector<uint32_t> scratch_;
};

}  // namespace strata::grammar
