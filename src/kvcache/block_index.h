// BlockIndex: a fixed-capacity open-addressing map from BlockHash to a block number.
//
// Sized once for the pool (capacity >= 2 x blocks), so inserts and erases never allocate:
// publishing a block happens on the engine's hot path. Linear probing with backward-shift
// deletion (no tombstones), so lookups stay short however long the engine runs.
// Not thread-safe; owned by one BlockPool.
#pragma once

#include <cstdint>
#include <vector>

#include "kvcache/block_hash.h"

namespace strata {

class BlockIndex {
 public:
  explicit BlockIndex(int max_entries);

  // -1 when absent.
  int find(const BlockHash& key) const;
  // Returns false (and changes nothing) when key is already present.
  bool insert(const BlockHash& key, int block);
  // Returns false when key is absent.
  bool erase(const BlockHash& key);
  int size() const { return n_entries_; }

 private:
  struct Slot {
    BlockHash key;
    int block = -1;  // -1 = empty
  };
  size_t home(const BlockHash& key) const { return static_cast<size_t>(key.lo ^ key.hi) & mask_; }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int n_entries_ = 0;
  int max_entries_ = 0;
};

}  // namespace strata
