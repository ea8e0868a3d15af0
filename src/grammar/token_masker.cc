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

void pop_finished(const CompiledGrammar& g, Stack& s) {
  while (!s.empty() && g.slots[s.back()].kind == Slot::Kind::kEnd) s.pop_back();
}

}  // namespace

// As GrammarMatcher's expansion, writing into reused storage and skipping duplicates.
void TokenMasker::expand(const CompiledGrammar& g, Stack& stack, size_t depth, StackSet* out) {
  pop_finished(g, stack);
  if (stack.empty() || g.slots[stack.back()].kind == Slot::Kind::kBytes) {
    for (size_t i = 0; i < out->n; ++i) {
      if (out->stacks[i] == stack) return;
    }
    if (out->n == out->stacks.size()) out->stacks.emplace_back();
    out->stacks[out->n++].assign(stack.begin(), stack.end());
    return;
  }
  const uint32_t at = stack.back();
  const uint32_t rule = g.slots[at].value;
  stack.back() = at + 1;
  pop_finished(g, stack);
  while (scratch_.size() <= depth) scratch_.emplace_back();
  for (uint32_t start : g.rule_starts[rule]) {
    Stack& next = scratch_[depth];
    next.assign(stack.begin(), stack.end());
    next.push_back(start);
    expand(g, next, depth + 1, out);
  }
}

bool TokenMasker::step(const CompiledGrammar& g, const StackSet& from, uint8_t byte, StackSet* out) {
  out->n = 0;
  if (scratch_.empty()) scratch_.emplace_back();
  for (size_t i = 0; i < from.n; ++i) {
    const Stack& s = from.stacks[i];
    if (s.empty() || !g.sets[g.slots[s.back()].value].has(byte)) continue;
    Stack& next = scratch_[0];
    next.assign(s.begin(), s.end());
    ++next.back();
    expand(g, next, 1, out);
    if (out->n > GrammarMatcher::kMaxStacks) {
      out->n = 0;
      return false;
    }
  }
  return out->n > 0;
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
  StackSet& root = depth_states_[0];
  root.n = 0;
  for (const Stack& s : matcher.stacks()) {
    if (root.n == root.stacks.size()) root.stacks.emplace_back();
    root.stacks[root.n++] = s;
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
