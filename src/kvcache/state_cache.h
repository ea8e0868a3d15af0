// StateCache: snapshots of hybrid models' recurrent states (KvView::recurrent_state) at block
// boundaries, so a later request that shares the prefix can resume from one instead of
// recomputing it: the state after positions [0, b * block_tokens) is filed under the chain hash
// of block b - 1 (kvcache/block_hash.h), beside the K/V blocks that hash names.
//
// Owns n_entries buffers of state_floats floats, allocated once. A running sequence pins at
// most two snapshots: the newest it reached, and its prompt point (prompt_point() below, which a
// follow-up request most often shares even when the reply is re-rendered, as does the same
// prompt sent again);
// putting a newer one frees its previous newest. release() unpins them, and unpinned snapshots
// are evicted least recently used first, through the evict hook (the KvCache parks them there
// when it has a park store). When every entry is pinned, put() stores nothing (the prefix is
// then recomputed, never wrong). Each entry also keeps the token ids of the block its key ends
// with, which a parked copy is checked against.
//
// Thread-safety: none; the engine thread owns it (inside KvCache).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/aligned_buffer.h"
#include "kvcache/block_hash.h"

namespace strata {

// A prompt's prompt point: its last block boundary that a request with this very prompt could
// still reuse (one token at least is computed for its logits), which any longer prompt that
// begins with it can reuse as well. 0 for a prompt shorter than a block and one token.
inline int prompt_point(int n_prompt, int block_tokens) {
  return n_prompt > 0 ? (n_prompt - 1) / block_tokens * block_tokens : 0;
}

class StateCache {
 public:
  // A snapshot: its key, the state, and the token ids of the block the key ends with.
  using Visit = std::function<void(const BlockHash& key, const float* state, std::span<const int32_t> tokens)>;

  StateCache(int n_entries, size_t state_floats, int block_tokens);

  int n_entries() const { return static_cast<int>(entries_.size()); }
  // Called with an unpinned snapshot just before put() reuses its entry.
  void set_evict_hook(Visit hook) { evict_hook_ = std::move(hook); }
  // Stores seq's state under key as its newest snapshot (prompt_point: also its prompt point);
  // tokens: the block_tokens ids of the block key ends with. Returns false when no entry could
  // be taken.
  bool put(int seq, const BlockHash& key, const float* state, bool prompt_point, std::span<const int32_t> tokens);
  bool contains(const BlockHash& key) const { return find(key) >= 0; }
  // Copies the snapshot filed under key into out (state_floats floats) and marks it recently used.
  bool get(const BlockHash& key, float* out);
  // seq's snapshots become evictable.
  void release(int seq);
  int n_used() const;
  // Calls visit for every snapshot held, pinned or not.
  void for_each(const Visit& visit) const;

 private:
  struct Entry {
    BlockHash key;
    bool used = false;
    int owner = -1;       // the running sequence pinning it, or -1
    bool prompt = false;  // the owner's prompt point
    uint64_t last_use = 0;
  };
  int find(const BlockHash& key) const;
  int take_entry();  // a free entry, else the least recently used unpinned one; -1 if none

  size_t state_floats_;
  size_t block_tokens_;
  std::vector<Entry> entries_;
  std::vector<AlignedBuffer> buffers_;
  std::vector<int32_t> tokens_;  // n_entries x block_tokens: each entry's block's token ids
  Visit evict_hook_;
  uint64_t clock_ = 0;
};

}  // namespace strata
