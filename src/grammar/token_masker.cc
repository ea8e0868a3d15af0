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
    : vocab_(std::move(vocab)), depth_states_(vocab_->max_depth() + 1), depth_hole_(vocab_->max_depth() + 1) {}

uint32_t TokenMasker::root_state(const GrammarMatcher& matcher) {
  if (!automaton_ || automaton_->grammar() != &matcher.grammar() ||
      automaton_->memory_bytes() > kMaxAutomatonBytes) {
    automaton_ = std::make_unique<MaskAutomaton>(matcher.shared_grammar());
    cache_.clear();
    local_cache_.clear();
  }
  return automaton_->intern(matcher.stacks());
}

namespace {

void allow_tokens(const TokenVocabulary::Node& node, const int32_t* ordered, uint64_t* words) {
  for (uint32_t k = 0; k < node.token_count; ++k) {
    const int32_t t = ordered[node.token_begin + k];
    words[t >> 6] |= uint64_t{1} << (t & 63);
  }
}

}  // namespace

void TokenMasker::walk(uint32_t parent_state, NodeRange range, uint64_t* words) {
  const TokenVocabulary::Node* nodes = vocab_->nodes().data();
  const int32_t* ordered = vocab_->ordered_tokens().data();
  MaskAutomaton& dfa = *automaton_;
  uint32_t* states = depth_states_.data();
  states[nodes[range.begin].depth - 1] = parent_state;
  for (size_t i = range.begin; i < range.end;) {
    const TokenVocabulary::Node& node = nodes[i];
    const uint32_t to = dfa.next(states[node.depth - 1], node.byte);
    if (to == MaskAutomaton::kDead) {
      i = node.subtree_end;
      continue;
    }
    states[node.depth] = to;
    allow_tokens(node, ordered, words);
    ++i;
  }
}

// The walk of the whole trie under a local state. A node the local state refuses below a node
// where a stack had returned to the context is undecided (the context may take the byte):
// its subtree is recorded, merged with the previous one when they are adjacent siblings.
const TokenMasker::LocalMask& TokenMasker::local_mask(uint32_t local) {
  auto it = local_cache_.find(local);
  if (it != local_cache_.end()) return it->second;
  if (local_cache_.size() >= kMaxCachedMasks) local_cache_.clear();
  LocalMask& out = local_cache_[local];
  out.bits.assign((vocab_->n_vocab() + 63) / 64, 0);
  const std::vector<TokenVocabulary::Node>& nodes = vocab_->nodes();
  const int32_t* ordered = vocab_->ordered_tokens().data();
  MaskAutomaton& dfa = *automaton_;
  uint32_t* states = depth_states_.data();
  uint8_t* hole = depth_hole_.data();
  states[0] = local;
  hole[0] = dfa.has_hole(local);
  for (size_t i = 1; i < nodes.size();) {
    const TokenVocabulary::Node& node = nodes[i];
    const uint32_t to = dfa.next(states[node.depth - 1], node.byte);
    if (to == MaskAutomaton::kDead) {
      if (hole[node.depth - 1]) {
        std::vector<NodeRange>& u = out.undecided;
        if (!u.empty() && u.back().end == i && nodes[u.back().begin].depth == node.depth) {
          u.back().end = node.subtree_end;
        } else {
          u.push_back({static_cast<uint32_t>(i), node.subtree_end});
        }
      }
      i = node.subtree_end;
      continue;
    }
    states[node.depth] = to;
    hole[node.depth] = hole[node.depth - 1] || dfa.has_hole(to);
    allow_tokens(node, ordered, out.bits.data());
    ++i;
  }
  return out;
}

// Each undecided range: the full state along the bytes above it, then the plain walk.
void TokenMasker::resolve(uint32_t state, const std::vector<NodeRange>& undecided, uint64_t* words) {
  const std::vector<TokenVocabulary::Node>& nodes = vocab_->nodes();
  const std::vector<int32_t>& ordered = vocab_->ordered_tokens();
  MaskAutomaton& dfa = *automaton_;
  for (const NodeRange& range : undecided) {
    const TokenVocabulary::Node& first = nodes[range.begin];
    // Every subtree holds a token, and its first one (in pre-order) spells the path to it.
    const std::string& path = vocab_->bytes(ordered[first.token_begin]);
    uint32_t s = state;
    for (size_t d = 0; d + 1 < first.depth && s != MaskAutomaton::kDead; ++d) {
      s = dfa.next(s, static_cast<uint8_t>(path[d]));
    }
    if (s != MaskAutomaton::kDead) walk(s, range, words);
  }
}

void TokenMasker::compute_state(uint32_t state, std::vector<uint64_t>* bits) {
  MaskAutomaton& dfa = *automaton_;
  uint32_t local = 0;
  size_t context_size = 0;
  const bool shared = dfa.cut(state, &local, &context_size) && !dfa.has_hole(local);
  if (shared) {
    const LocalMask& lm = local_mask(local);
    // A full state holds at most the local stacks plus the context's: past the bound the
    // full state might overflow where the local one did not, and only the plain walk is exact.
    if (!dfa.overflowed() && dfa.max_state_size() + context_size <= GrammarMatcher::kMaxStacks) {
      *bits = lm.bits;
      resolve(state, lm.undecided, bits->data());
      return;
    }
  }
  bits->assign((vocab_->n_vocab() + 63) / 64, 0);
  walk(state, {1, static_cast<uint32_t>(vocab_->nodes().size())}, bits->data());
}

void TokenMasker::compute(const GrammarMatcher& matcher, std::vector<uint64_t>* bits) {
  const uint32_t root = root_state(matcher);
  compute_state(root, bits);
  if (automaton_->accepting(root)) {
    for (int32_t t : vocab_->end_tokens()) (*bits)[t >> 6] |= uint64_t{1} << (t & 63);
  }
}

std::span<const uint64_t> TokenMasker::mask(const GrammarMatcher& matcher) {
  const uint32_t root = root_state(matcher);
  auto it = cache_.find(root);
  if (it == cache_.end()) {
    if (cache_.size() >= kMaxCachedMasks) cache_.clear();
    std::vector<uint64_t> bits;
    compute_state(root, &bits);
    if (automaton_->accepting(root)) {
      for (int32_t t : vocab_->end_tokens()) bits[t >> 6] |= uint64_t{1} << (t & 63);
    }
    it = cache_.emplace(root, std::move(bits)).first;
  }
  return it->second;
}

}  // namespace strata::grammar
