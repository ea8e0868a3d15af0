// BlockPool: the K/V memory of one engine, cut into equal blocks, with reference counts,
// the prefix-cache index and the LRU order of cached blocks.
//
// Every block is in exactly one state:
//   free       refcount 0, not published          (on the free list)
//   used       refcount > 0                       (in some sequence's block table)
//   cached     refcount 0, published              (on the LRU list, reusable by key)
// A block is published once it is full and its key (BlockHash) and token ids are known;
// a published block is never written again, which is what makes sharing it safe.
// allocate() prefers free blocks and otherwise evicts the least recently used cached
// block, calling the evict hook first (the KvCache parks it there).
//
// The memory is reserved once (an anonymous mapping: pages are committed only when a block
// is first written, so a large --kv-cache-mib costs nothing until used) and never moves,
// so block pointers stay valid for the pool's life. All bookkeeping is fixed-size: nothing
// allocates after construction.
// Not thread-safe: the engine thread owns it (stage threads only touch block bytes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "kvcache/block_hash.h"
#include "kvcache/block_index.h"

namespace strata {

class BlockPool {
 public:
  using EvictHook = std::function<void(int block)>;

  BlockPool(int n_blocks, size_t block_bytes, int block_tokens);
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // False when the memory could not be reserved (the pool is then unusable).
  bool ok() const { return memory_ != nullptr; }
  size_t memory_bytes() const { return memory_bytes_; }

  int n_blocks() const { return n_blocks_; }
  size_t block_bytes() const { return block_bytes_; }
  int block_tokens() const { return block_tokens_; }
  std::byte* data(int block) { return memory_ + static_cast<size_t>(block) * block_bytes_; }
  const std::byte* data(int block) const { return memory_ + static_cast<size_t>(block) * block_bytes_; }

  // Called with a cached block just before allocate() reuses it.
  void set_evict_hook(EvictHook hook) { evict_hook_ = std::move(hook); }

  // A block with refcount 1: a free one, else the least recently used cached block.
  // -1 when every block is referenced.
  int allocate();
  // Adds a reference; a cached block leaves the LRU list and becomes used.
  void ref(int block);
  // Drops a reference; at zero a published block becomes the most recently used cached
  // block and an unpublished one returns to the free list.
  void unref(int block);
  // unref(), but a published block left without references becomes the least recently used
  // cached block, the first to be evicted (a block its sequence has passed: worth less than
  // the ones other conversations end with).
  void unref_cold(int block);
  // Records that block (used, full) holds `tokens` after the chain ending in hash's parent.
  // Returns false when another block already holds this key (the caller keeps its copy
  // private) or the block is already published.
  bool publish(int block, const BlockHash& hash, std::span<const int32_t> tokens);
  // The published block with this key and exactly these token ids, or -1.
  int find(const BlockHash& hash, std::span<const int32_t> tokens) const;
  bool contains(const BlockHash& hash) const { return index_.find(hash) >= 0; }
  // Forgets a cached block's contents and frees it (no evict hook).
  void drop_cached(int block);

  bool is_published(int block) const { return meta_[block].published; }
  int refcount(int block) const { return meta_[block].refs; }
  const BlockHash& hash(int block) const { return meta_[block].hash; }
  std::span<const int32_t> tokens(int block) const;
  // Cached blocks, least recently used first.
  std::vector<int> cached_blocks() const;

  int n_free() const { return static_cast<int>(free_.size()); }
  int n_cached() const { return n_cached_; }
  int n_used() const { return n_blocks_ - n_free() - n_cached_; }
  uint64_t evictions() const { return evictions_; }

 private:
  struct Meta {
    int refs = 0;
    bool published = false;
    BlockHash hash;
    int lru_prev = -1;
    int lru_next = -1;
  };
  // unref() and unref_cold(): a published block left without references goes to the LRU
  // list's front (cold) or back.
  void drop_ref(int block, bool cold);
  void lru_remove(int block);
  void lru_push_back(int block);
  void lru_push_front(int block);
  void unpublish(int block);

  const int n_blocks_;
  const size_t block_bytes_;
  const int block_tokens_;
  size_t memory_bytes_ = 0;
  std::byte* memory_ = nullptr;
  std::vector<Meta> meta_;
  std::vector<int32_t> tokens_;  // n_blocks x block_tokens
  std::vector<int> free_;        // stack; back() is handed out next
  BlockIndex index_;
  int lru_head_ = -1;  // least recently used cached block
  int lru_tail_ = -1;
  int n_cached_ = 0;
  uint64_t evictions_ = 0;
  EvictHook evict_hook_;
};

}  // namespace strata
