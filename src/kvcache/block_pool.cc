#include "kvcache/block_pool.h"

#include <sys/mman.h>

#include <algorithm>
#include <cassert>

namespace strata {

BlockPool::BlockPool(int n_blocks, size_t block_bytes, int block_tokens)
    : n_blocks_(n_blocks),
      block_bytes_(block_bytes),
      block_tokens_(block_tokens),
      memory_bytes_(static_cast<size_t>(n_blocks) * block_bytes),
      meta_(n_blocks),
      tokens_(static_cast<size_t>(n_blocks) * block_tokens),
      index_(n_blocks) {
  void* p = memory_bytes_ == 0 ? MAP_FAILED
                               : ::mmap(nullptr, memory_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p != MAP_FAILED) memory_ = static_cast<std::byte*>(p);
  free_.reserve(n_blocks);
  // Block 0 is handed out first, so allocation order is easy to follow in logs and tests.
  for (int b = n_blocks - 1; b >= 0; --b) free_.push_back(b);
}

BlockPool::~BlockPool() {
  if (memory_) ::munmap(memory_, memory_bytes_);
}

int BlockPool::allocate() {
  int block = -1;
  if (!free_.empty()) {
    block = free_.back();
    free_.pop_back();
  } else if (lru_head_ >= 0) {
    block = lru_head_;
    if (evict_hook_) evict_hook_(block);
    lru_remove(block);
    unpublish(block);
    ++evictions_;
  } else {
    return -1;
  }
  meta_[block].refs = 1;
  return block;
}

void BlockPool::ref(int block) {
  Meta& m = meta_[block];
  if (m.refs == 0) {
    assert(m.published);
    lru_remove(block);
  }
  ++m.refs;
}

void BlockPool::unref(int block) { drop_ref(block, false); }

void BlockPool::unref_cold(int block) { drop_ref(block, true); }

void BlockPool::drop_ref(int block, bool cold) {
  Meta& m = meta_[block];
  assert(m.refs > 0);
  if (--m.refs > 0) return;
  if (!m.published) {
    free_.push_back(block);
  } else if (cold) {
    lru_push_front(block);
  } else {
    lru_push_back(block);
  }
}

bool BlockPool::publish(int block, const BlockHash& hash, std::span<const int32_t> tokens) {
  Meta& m = meta_[block];
  if (m.published || static_cast<int>(tokens.size()) != block_tokens_) return false;
  if (!index_.insert(hash, block)) return false;
  m.published = true;
  m.hash = hash;
  std::copy(tokens.begin(), tokens.end(), tokens_.begin() + static_cast<size_t>(block) * block_tokens_);
  return true;
}

int BlockPool::find(const BlockHash& hash, std::span<const int32_t> tokens) const {
  int block = index_.find(hash);
  if (block < 0) return -1;
  std::span<const int32_t> stored = this->tokens(block);
  if (!std::equal(stored.begin(), stored.end(), tokens.begin(), tokens.end())) return -1;
  return block;
}

void BlockPool::drop_cached(int block) {
  Meta& m = meta_[block];
  if (m.refs != 0 || !m.published) return;
  lru_remove(block);
  unpublish(block);
  free_.push_back(block);
}

std::span<const int32_t> BlockPool::tokens(int block) const {
  return {tokens_.data() + static_cast<size_t>(block) * block_tokens_, static_cast<size_t>(block_tokens_)};
}

std::vector<int> BlockPool::cached_blocks() const {
  std::vector<int> out;
  out.reserve(n_cached_);
  for (int b = lru_head_; b >= 0; b = meta_[b].lru_next) out.push_back(b);
  return out;
}

void BlockPool::unpublish(int block) {
  Meta& m = meta_[block];
  if (!m.published) return;
  index_.erase(m.hash);
  m.published = false;
  m.hash = BlockHash{};
}

void BlockPool::lru_remove(int block) {
  Meta& m = meta_[block];
  if (m.lru_prev >= 0) meta_[m.lru_prev].lru_next = m.lru_next; else lru_head_ = m.lru_next;
  if (m.lru_next >= 0) meta_[m.lru_next].lru_prev = m.lru_prev; else lru_tail_ = m.lru_prev;
  m.lru_prev = m.lru_next = -1;
  --n_cached_;
}

void BlockPool::lru_push_back(int block) {
  Meta& m = meta_[block];
  m.lru_prev = lru_tail_;
  m.lru_next = -1;
  if (lru_tail_ >= 0) meta_[lru_tail_].lru_next = block; else lru_head_ = block;
  lru_tail_ = block;
  ++n_cached_;
}

void BlockPool::lru_push_front(int block) {
  Meta& m = meta_[block];
  m.lru_prev = -1;
  m.lru_next = lru_head_;
  if (lru_head_ >= 0) meta_[lru_head_].lru_prev = block; else lru_tail_ = block;
  lru_head_ = block;
  ++n_cached_;
}

}  // namespace strata
