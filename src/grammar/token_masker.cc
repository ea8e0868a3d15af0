#include "grammar/token_masker.h"

#include <algorithm>
#include <numeric>

namespace strata::grammar {

TokenVocabulary::TokenVocabulary(const std::vector<std::string>& token_bytes, std::vector<int32_t> end_tokens)
    : n_vocab_(static_cast<int>(token_bytes.size())), bytes_(token_bytes), end_tokens_(std::move(end_tokens)) {
  std::vector<int32_t> ids(token_bytes.size());
  std::iota(ids.begin(), ids.end(), 0);
  ids.erase(std::remove_if(ids.begin(), ids.end(), [&](int32_t t) { return token_bytes[t].empty(); }), ids.end());
  std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return token_bytes[a] < token_bytes[b]; });
  // Sorted strings list the trie in pre-order: each one shares a prefix with the one before,
  // closes the nodes past that prefix and opens nodes for the rest of its bytes.
  nodes_.push_back({0, 0, 0, 0, 0});
  std::vector<uint32_t> path = {0};  // node index per depth
  std::string previous;
  auto close_to = [&](size_t depth) {
    while (path.size() > depth + 1) {
      nodes_[path.back()].subtree_end = static_cast<uint32_t>(nodes_.size());
      path.pop_back();
    }
  };
  for (int32_t id : ids) {
    const std::string& s = token_bytes[id];
    size_t common = 0;
    while (common < s.size() && common < previous.size() && s[common] == previous[common]) ++common;
    close_to(common);
    for (size_t d = common; d < s.size(); ++d) {
      path.push_back(static_cast<uint32_t>(nodes_.size()));
      nodes_.push_back({static_cast<uint8_t>(s[d]), static_cast<uint16_t>(d + 1), 0,
                        static_cast<uint32_t>(ordered_.size()), 0});
      max_depth_ = std::max(max_depth_, static_cast<int>(d + 1));
    }
    Node& last = nodes_[path.back()];
    if (last.token_count == 0) last.token_begin = static_cast<uint32_t>(ordered_.size());
    ordered_.push_back(id);
    ++last.token_count;
    previous = s;
  }
  close_to(0);
  nodes_[0].subtree_end = static_cast<uint32_t>(nodes_.size());
}

TokenMasker::TokenMasker(std::shared_ptr<const TokenVocabulary> vocab)
    : vocab_(std::move(vocab)), depth_states_(vocab_->max_depth() + 1) {}

namespace {

using Slot = CompiledGrammar::Slot;

}  // namespace

uint32_t TokenMasker::push(uint32_t pos, uint32_t parent) {
  frames_.push_back({pos, parent});
  return static_cast<uint32_t>(frames_.size() - 1);
}

uint32_t TokenMasker::pop_finished(const CompiledGrammar& g, uint32_t frame) const {
  while (frame != kBottom && g.slots[frames_[frame].pos].kind == Slot::Kind::kEnd) frame = frames_[frame].parent;
  return frame;
}

bool TokenMasker::same_stack(uint32_t a, uint32_t b) const {
  while (a != b) {
    if (a == kBottom || b == kBottom || frames_[a].pos != frames_[b].pos) return false;
    a = frames_[a].parent;
    b = frames_[b].parent;
  }
  return true;
}

// As GrammarMatcher's expansion, on frame chains, skipping duplicate stacks.
void TokenMasker::expand(const CompiledGrammar& g, uint32_t frame, FrameSet* out) {
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

bool TokenMasker::step(const CompiledGrammar& g, const FrameSet& from, uint8_t byte, FrameSet* out) {
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

void TokenMasker::compute(const GrammarMatcher& matcher, std::vector<uint64_t>* bits) {
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

std::span<const uint64_t> TokenMasker::mask(const GrammarMatcher& matcher) {
  std::string key = matcher.state_key();
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCachedMasks) cache_.clear();
    std::vector<uint64_t> bits;
    compute(matcher, &bits);
    it = cache_.emplace(std::move(key), std::move(bits)).first;
  }
  return it->second;
}

}  // namespace strata::grammar
