#include "grammar/mask_automaton.h"

#include <algorithm>

namespace strata::grammar {

namespace {

using Slot = CompiledGrammar::Slot;

}  // namespace

MaskAutomaton::MaskAutomaton(std::shared_ptr<const CompiledGrammar> grammar) : grammar_(std::move(grammar)) {}

size_t MaskAutomaton::memory_bytes() const {
  // Hash nodes cost roughly a key, a value, a pointer and a bucket each; a state's tops are
  // stored twice (the list and the key) with an allocation's overhead each.
  return frames_.size() * (sizeof(Frame) + sizeof(uint32_t) + 40) + tops_bytes_ +
         transitions_.size() * sizeof(uint32_t);
}

uint32_t MaskAutomaton::frame(uint32_t pos, uint32_t parent) {
  const uint64_t key = (uint64_t{pos} << 32) | parent;
  auto [it, inserted] = frame_ids_.try_emplace(key, static_cast<uint32_t>(frames_.size()));
  if (inserted) {
    frames_.push_back({pos, parent});
    frame_stamp_.push_back(0);
  }
  return it->second;
}

uint32_t MaskAutomaton::pop_finished(uint32_t f) const {
  while (is_frame(f) && grammar_->slots[frames_[f].pos].kind == Slot::Kind::kEnd) f = frames_[f].parent;
  return f;
}

void MaskAutomaton::next_stamp() {
  if (++stamp_ == 0) {  // wrapped: old stamps could collide
    std::fill(frame_stamp_.begin(), frame_stamp_.end(), 0);
    bottom_stamp_ = hole_stamp_ = 0;
    stamp_ = 1;
  }
}

void MaskAutomaton::add_unique(uint32_t f, std::vector<uint32_t>* out) {
  uint32_t& stamp = f == kBottom ? bottom_stamp_ : f == kHole ? hole_stamp_ : frame_stamp_[f];
  if (stamp == stamp_) return;
  stamp = stamp_;
  out->push_back(f);
}

// As GrammarMatcher's expansion: pops finished alternatives, then expands rule references
// until each stack is empty (or in the hole) or has a byte set on top.
void MaskAutomaton::expand(uint32_t f, std::vector<uint32_t>* out) {
  const CompiledGrammar& g = *grammar_;
  f = pop_finished(f);
  if (!is_frame(f) || g.slots[frames_[f].pos].kind == Slot::Kind::kBytes) {
    add_unique(f, out);
    return;
  }
  const uint32_t at = frames_[f].pos;
  const uint32_t parent = frames_[f].parent;
  // Return to the slot after the reference, unless that only ends the caller's alternative.
  const uint32_t back = g.slots[at + 1].kind == Slot::Kind::kEnd ? pop_finished(parent) : frame(at + 1, parent);
  for (uint32_t start : g.rule_starts[g.slots[at].value]) expand(frame(start, back), out);
}

uint32_t MaskAutomaton::intern_set(std::vector<uint32_t>* tops) {
  std::sort(tops->begin(), tops->end());
  std::string key(reinterpret_cast<const char*>(tops->data()), tops->size() * sizeof(uint32_t));
  auto [it, inserted] = state_ids_.try_emplace(std::move(key), static_cast<uint32_t>(state_tops_.size()));
  if (inserted) {
    state_tops_.push_back(*tops);
    tops_bytes_ += 2 * (tops->size() * sizeof(uint32_t) + 64);
    max_state_size_ = std::max(max_state_size_, tops->size());
    uint8_t flags = 0;
    for (uint32_t f : *tops) flags |= f == kBottom ? kAcceptingFlag : f == kHole ? kHoleFlag : 0;
    state_flags_.push_back(flags);
    // Bytes no top takes are dead without a step: a restrictive state's walk then computes
    // transitions only for the few bytes it accepts.
    ByteSet takes;
    for (uint32_t f : *tops) {
      if (!is_frame(f)) continue;
      const ByteSet& set = grammar_->sets[grammar_->slots[frames_[f].pos].value];
      for (int w = 0; w < 4; ++w) takes.bits[w] |= set.bits[w];
    }
    const size_t row = transitions_.size();
    transitions_.resize(row + 256, kUnknown);
    for (int b = 0; b < 256; ++b) {
      if (!takes.has(static_cast<uint8_t>(b))) transitions_[row + b] = kDead;
    }
  }
  return it->second;
}

uint32_t MaskAutomaton::intern(const std::vector<Stack>& stacks) {
  std::vector<uint32_t> tops;
  next_stamp();
  for (const Stack& stack : stacks) {
    uint32_t top = kBottom;
    for (uint32_t pos : stack) top = frame(pos, top);
    add_unique(top, &tops);
  }
  return intern_set(&tops);
}

uint32_t MaskAutomaton::compute_next(uint32_t state, uint8_t byte) {
  const CompiledGrammar& g = *grammar_;
  std::vector<uint32_t>& out = scratch_;
  out.clear();
  next_stamp();
  uint32_t to = kDead;
  bool overflow = false;
  for (size_t k = 0; k < state_tops_[state].size() && !overflow; ++k) {
    const uint32_t top = state_tops_[state][k];
    if (!is_frame(top)) continue;
    const Frame f = frames_[top];
    if (!g.sets[g.slots[f.pos].value].has(byte)) continue;
    expand(frame(f.pos + 1, f.parent), &out);
    overflow = out.size() > GrammarMatcher::kMaxStacks;
  }
  overflowed_ = overflowed_ || overflow;
  if (!overflow && !out.empty()) to = intern_set(&out);
  transitions_[size_t{state} * 256 + byte] = to;
  return to;
}

// The frame nearest the tops that lies on every stack's chain, or kBottom.
uint32_t MaskAutomaton::highest_common_frame(const std::vector<uint32_t>& tops) {
  std::vector<uint32_t> first;  // the first stack's chain, top first
  for (uint32_t f = tops[0]; is_frame(f); f = frames_[f].parent) first.push_back(f);
  next_stamp();
  for (uint32_t f : first) frame_stamp_[f] = stamp_;
  size_t lowest = 0;  // index into first of the meeting point nearest the bottom
  for (size_t k = 1; k < tops.size(); ++k) {
    uint32_t f = tops[k];
    while (is_frame(f) && frame_stamp_[f] != stamp_) f = frames_[f].parent;
    if (!is_frame(f)) return kBottom;
    lowest = std::max(lowest, static_cast<size_t>(std::find(first.begin(), first.end(), f) - first.begin()));
  }
  return first.empty() ? kBottom : first[lowest];
}

// The chain from f down to cut, rebuilt on a hole in place of cut's parent.
uint32_t MaskAutomaton::relocate(uint32_t f, uint32_t cut) {
  const uint32_t pos = frames_[f].pos;
  if (f == cut) return frame(pos, kHole);
  const uint32_t below = relocate(frames_[f].parent, cut);
  return frame(pos, below);
}

bool MaskAutomaton::cut(uint32_t state, uint32_t* local, size_t* context_size) {
  if (overflowed_ || state_flags_[state] != 0) return false;
  const std::vector<uint32_t> tops = state_tops_[state];
  const uint32_t common = highest_common_frame(tops);
  if (!is_frame(common) || !is_frame(frames_[common].parent)) return false;
  std::vector<uint32_t> local_tops;
  local_tops.reserve(tops.size());
  for (uint32_t top : tops) local_tops.push_back(relocate(top, common));
  const uint32_t context = frames_[common].parent;
  *local = intern_set(&local_tops);
  scratch_.clear();
  next_stamp();
  expand(context, &scratch_);
  *context_size = scratch_.size();
  return true;
}

}  // namespace strata::grammar
