#include "kvcache/state_cache.h"

#include <algorithm>
#include <cstring>

namespace strata {

StateCache::StateCache(int n_entries, size_t state_floats, int block_tokens)
    : state_floats_(state_floats), block_tokens_(static_cast<size_t>(block_tokens)) {
  entries_.resize(static_cast<size_t>(n_entries));
  tokens_.resize(static_cast<size_t>(n_entries) * block_tokens_);
  buffers_.reserve(static_cast<size_t>(n_entries));
  for (int i = 0; i < n_entries; ++i) buffers_.emplace_back(state_floats * sizeof(float));
}

int StateCache::find(const BlockHash& key) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].used && entries_[i].key == key) return static_cast<int>(i);
  }
  return -1;
}

int StateCache::take_entry() {
  int best = -1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (!e.used) return static_cast<int>(i);
    if (e.owner < 0 && (best < 0 || e.last_use < entries_[static_cast<size_t>(best)].last_use)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

bool StateCache::put(int seq, const BlockHash& key, const float* state, bool prompt_point,
                     std::span<const int32_t> tokens) {
  // The seq's previous newest snapshot goes unless it is the prompt point; an equal key (the
  // same prefix again) is simply refreshed.
  for (Entry& e : entries_) {
    if (e.used && e.owner == seq && !e.prompt) e = Entry{};
  }
  int i = find(key);
  if (i < 0) {
    i = take_entry();
    if (i < 0) return false;
    const size_t at = static_cast<size_t>(i);
    if (entries_[at].used && evict_hook_) {
      evict_hook_(entries_[at].key, buffers_[at].as<float>(), std::span(tokens_).subspan(at * block_tokens_, block_tokens_));
    }
  }
  Entry& e = entries_[static_cast<size_t>(i)];
  if (!(e.used && e.key == key && e.owner >= 0 && e.owner != seq)) {
    std::memcpy(buffers_[static_cast<size_t>(i)].data(), state, state_floats_ * sizeof(float));
    std::copy(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(block_tokens_),
              tokens_.begin() + static_cast<std::ptrdiff_t>(static_cast<size_t>(i) * block_tokens_));
    e.owner = seq;
    e.prompt = prompt_point;
  }
  e.key = key;
  e.used = true;
  e.last_use = ++clock_;
  return true;
}

bool StateCache::get(const BlockHash& key, float* out) {
  const int i = find(key);
  if (i < 0) return false;
  std::memcpy(out, buffers_[static_cast<size_t>(i)].data(), state_floats_ * sizeof(float));
  entries_[static_cast<size_t>(i)].last_use = ++clock_;
  return true;
}

void StateCache::release(int seq) {
  for (Entry& e : entries_) {
    if (e.owner == seq) {
      e.owner = -1;
      e.prompt = false;
    }
  }
}

void StateCache::for_each(const Visit& visit) const {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].used) {
      visit(entries_[i].key, buffers_[i].as<float>(), std::span(tokens_).subspan(i * block_tokens_, block_tokens_));
    }
  }
}

int StateCache::n_used() const {
  int n = 0;
  for (const Entry& e : entries_) n += e.used ? 1 : 0;
  return n;
}

}  // namespace strata
