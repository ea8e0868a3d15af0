#include "grammar/reference_token_masker.h"

namespace strata::grammar {

namespace {

using Slot = CompiledGrammar::Slot;

}  // namespace

ReferenceTokenMasker::ReferenceTokenMasker(std::shared_ptr<const TokenVocabulary> vocab)
    : vocab_(std::move(vocab)), depth_states_(vocab_->max_depth() + 1) {}

uint32_t ReferenceTokenMasker::push(uint32_t pos, uint32_t parent) {
  frames_.push_back({pos, parent});
  return static_cast<uint32_t>(frames_.size() - 1);
}

uint32_t ReferenceTokenMasker::pop_finished(const CompiledGrammar& g, uint32_t frame) const {
  while (frame != kBottom && g.slots[frames_[frame].pos].kind == Slot::Kind::kEnd) frame = frames_[frame].parent;
  return frame;
}

bool ReferenceTokenMasker::same_stack(uint32_t a, uint32_t b) const {
  while (a != b) {
    if (a == kBottom || b == kBottom || frames_[a].pos != frames_[b].pos) return false;
    a = frames_[a].parent;
    b = frames_[b].parent;
  }
  return true;
}

// As GrammarMatcher's expansion, on frame chains, skipping duplicate stacks.
void ReferenceTokenMasker::expand(const CompiledGrammar& g, uint32_t frame, FrameSet* out) {
  frame = pop_finished(g, frame);
  if (frame == kBottom || g.slots[frames_[frame].pos].kind == Slot::Kind::kBytes) {
    uint32_t& stamp = pos_stamp_[frame == kBottom ? g.slots.size() : frames_[frame].pos];
    if (stamp == stamp_) {
      for (uint32_t have : *out) {
        if (same_stack(have, frame)) return;
      }
    }
    stamp = stamp_;
    out->push_back(frame);
    return;
  }
  const uint32_t at = frames_[frame].pos;
  const uint32_t parent = frames_[frame].parent;
  // Return to the slot after the reference, unless that only ends the caller's alternative.
  const uint32_t back = g.slots[at + 1].kind == Slot::Kind::kEnd ? pop_finished(g, parent) : push(at + 1, parent);
  for (uint32_t start : g.rule_starts[g.slots[at].value]) expand(g, push(start, back), out);
}

bool ReferenceTokenMasker::step(const CompiledGrammar& g, const FrameSet& from, uint8_t byte, FrameSet* out) {
  out->clear();
  if (++stamp_ == 0) {  // wrapped: old stamps could collide
    std::fill(pos_stamp_.begin(), pos_stamp_.end(), 0);
    stamp_ = 1;
  }
  for (uint32_t top : from) {
    if (top == kBottom) continue;
    const Frame f = frames_[top];
    if (!g.sets[g.slots[f.pos].value].has(byte)) continue;
    expand(g, push(f.pos + 1, f.parent), out);
    if (out->size() > GrammarMatcher::kMaxStacks) {
      out->clear();
      return false;
    }
  }
  return !out->empty();
}

void ReferenceTokenMasker::compute(const GrammarMatcher& matcher, std::vector<uint64_t>* bits) {
  bits->assign((vocab_->n_vocab() + 63) / 64, 0);
  auto allow = [bits](int32_t t) { (*bits)[t >> 6] |= uint64_t{1} << (t & 63); };
  if (matcher.accepting()) {
    for (int32_t t : vocab_->end_tokens()) allow(t);
  }
  const CompiledGrammar& g = matcher.grammar();
  const std::vector<TokenVocabulary::Node>& nodes = vocab_->nodes();
  const std::vector<int32_t>& ordered = vocab_->ordered_tokens();
  frames_.clear();
  pos_stamp_.assign(g.slots.size() + 1, 0);
  stamp_ = 0;
  FrameSet& root = depth_states_[0];
  root.clear();
  for (const Stack& stack : matcher.stacks()) {
    uint32_t top = kBottom;
    for (uint32_t pos : stack) top = push(pos, top);
    root.push_back(top);
  }
  for (size_t i = 1; i < nodes.size();) {
    const TokenVocabulary::Node& node = nodes[i];
    if (!step(g, depth_states_[node.depth - 1], node.byte, &depth_states_[node.depth])) {
      i = node.subtree_end;
      continue;
    }
    for (uint32_t k = 0; k < node.token_count; ++k) allow(ordered[node.token_begin + k]);
    ++i;
  }
}

}  // namespace strata::grammar
