// WindowBlocks: the K/V blocks of a model's sliding-window layers (KvLayout group 1), kept
// apart from the other layers' so that a sequence holds only the blocks its next rows can read.
//
// A row at position p of a sliding layer reads keys (p - window_tokens, p] only, and a
// sequence's next rows start at its computed length n_past, so once n_past has moved on, the
// blocks before KvLayout::first_window_block(n_past) are never read by it again. publish()
// hands them back to the pool, published: they stay cached for a later sequence whose prompt
// ends where theirs did, like group 0's blocks, but at the cold end of the LRU order (evicted
// before the windows that released sequences end with), and are parked to disk as
// ParkKind::kWindow files when evicted. A sequence resuming a prefix of n blocks needs group
// 0's blocks [0, n) and only the window's [first_window_block(n * block_tokens), n).
//
// Reservation: a sequence never holds more than cap_blocks() window blocks (the window before
// its next rows plus max_step_tokens rows of them, over block boundaries), so attach()
// promises that many and grow() can then never fail, as KvCache promises for group 0.
//
// Owns its pool and one table row per sequence (entries before the sequence's first held
// block are -1). Not thread-safe: the owning KvCache calls it on the engine thread, except
// block(), which stage threads call for the sequences of their window (see kv_cache.h).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kvcache/block_hash.h"
#include "kvcache/block_pool.h"
#include "kvcache/park_store.h"
#include "model/kv_view.h"

namespace strata {

class WindowBlocks {
 public:
  // layout.window_tokens > 0; max_step_tokens: the most rows one forward gives a sequence.
  WindowBlocks(const KvLayout& layout, int n_blocks, int n_seqs, int max_blocks, int max_step_tokens);

  bool ok() const { return pool_.ok(); }
  BlockPool& pool() { return pool_; }
  const BlockPool& pool() const { return pool_; }
  // Window blocks one sequence of total_tokens positions may hold at once.
  int cap_blocks(int total_tokens) const;
  std::byte* block(int seq, int block_index) { return pool_.data(table(seq)[block_index]); }

  // The longest prefix of at most n_plan blocks (keys[b] the chain key of block b) whose
  // window blocks are all cached or parked. Without tokens (empty), a block counts when a cached
  // one has its key, unchecked: how warm a finished conversation is (KvCache::retained_blocks).
  int usable_prefix(std::span<const BlockHash> keys, std::span<const int32_t> tokens, int n_plan,
                    const ParkStore* store) const;
  // Starts seq (holding no window blocks) on the prefix of n blocks for a request of
  // total_tokens positions: takes the cached window blocks, restores the parked ones and
  // reserves the rest. Returns n, or 0 when one of them is missing or fails its checks
  // (nothing then held), or -1 when the pool cannot promise the blocks now (nothing changed).
  int attach(int seq, std::span<const BlockHash> keys, std::span<const int32_t> tokens, int n, int total_tokens,
             ParkStore* store, int* n_restored);
  // Adds a fresh block as seq's block block_index (the next one); false when the pool is full.
  bool add(int seq, int block_index);
  // Publishes blocks [from, n_full) under their keys, then returns those before the window of
  // a row at position n_computed to the pool.
  void publish(int seq, std::span<const BlockHash> keys, std::span<const int32_t> tokens, int from, int n_full,
               int n_computed);
  // Drops every block seq holds among its first n_table.
  void release(int seq, int n_table);
  int outstanding_reservations() const;
  int held(int seq) const { return seqs_[seq].held; }

 private:
  struct Seq {
    int first = 0;  // first held block; entries before it are -1
    int held = 0;
    int cap = 0;    // blocks promised in all (0 when not attached)
  };
  int* table(int seq) { return tables_.data() + static_cast<size_t>(seq) * max_blocks_; }
  bool present(const BlockHash& key, std::span<const int32_t> tokens, const ParkStore* store) const;

  const KvLayout layout_;
  const int max_blocks_;
  const int max_step_tokens_;
  BlockPool pool_;
  std::vector<int> tables_;  // n_seqs x max_blocks_
  std::vector<Seq> seqs_;
};

}  // namespace strata
