#include "kvcache/block_index.h"

namespace strata {

BlockIndex::BlockIndex(int max_entries) : max_entries_(max_entries < 1 ? 1 : max_entries) {
  size_t capacity = 4;
  while (capacity < 2 * static_cast<size_t>(max_entries_)) capacity *= 2;
  slots_.resize(capacity);
  mask_ = capacity - 1;
}

int BlockIndex::find(const BlockHash& key) const {
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.block < 0) return -1;
    if (s.key == key) return s.block;
  }
}

bool BlockIndex::insert(const BlockHash& key, int block) {
  if (n_entries_ >= max_entries_) return false;
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.block < 0) {
      s.key = key;
      s.block = block;
      ++n_entries_;
      return true;
    }
    if (s.key == key) return false;
  }
}

bool BlockIndex::erase(const BlockHash& key) {
  size_t i = home(key);
  for (;; i = (i + 1) & mask_) {
    if (slots_[i].block < 0) return false;
    if (slots_[i].key == key) break;
  }
  // Backward shift: pull later entries of the probe run into the hole when their home
  // position does not lie (cyclically) between the hole and themselves.
  size_t hole = i;
  for (size_t j = (hole + 1) & mask_; slots_[j].block >= 0; j = (j + 1) & mask_) {
    size_t h = home(slots_[j].key);
    bool stays = (hole <= j) ? (hole < h && h <= j) : (hole < h || h <= j);
    if (!stays) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  --n_entries_;
  return true;
}

}  // namespace strata
