#include "kvcache/window_blocks.h"

#include <algorithm>

#include "base/log.h"

namespace strata {
namespace {

constexpr int kParked = -2;  // planned table entry still in the park store

}  // namespace

WindowBlocks::WindowBlocks(const KvLayout& layout, int n_blocks, int n_seqs, int max_blocks, int max_step_tokens)
    : layout_(layout),
      max_blocks_(max_blocks),
      max_step_tokens_(max_step_tokens),
      pool_(n_blocks, layout.group_bytes(1), layout.block_tokens),
      tables_(static_cast<size_t>(n_seqs) * max_blocks, -1),
      seqs_(n_seqs) {}

int WindowBlocks::cap_blocks(int total_tokens) const {
  const int blocks = (total_tokens + layout_.block_tokens - 1) / layout_.block_tokens;
  return std::min(blocks, layout_.window_step_blocks(max_step_tokens_));
}

bool WindowBlocks::present(const BlockHash& key, std::span<const int32_t> tokens, const ParkStore* store) const {
  if (tokens.empty()) return pool_.contains(key);
  return pool_.find(key, tokens) >= 0 || (store != nullptr && store->contains(key, ParkKind::kWindow));
}

int WindowBlocks::usable_prefix(std::span<const BlockHash> keys, std::span<const int32_t> tokens, int n_plan,
                                const ParkStore* store) const {
  const int bt = layout_.block_tokens;
  // A prefix of n blocks needs blocks [first(n), n). When block m among them is missing, no
  // prefix longer than m can be used (its range reaches m too), so the scan moves below m and
  // looks at every block at most once.
  int n = n_plan;
  int b = n - 1;
  while (n > 0) {
    const int first = layout_.first_window_block(n * bt);
    while (b >= first &&
           present(keys[b], tokens.empty() ? tokens : tokens.subspan(static_cast<size_t>(b) * bt, bt), store)) {
      --b;
    }
    if (b < first) return n;
    n = b;
    b = n - 1;
  }
  return 0;
}

int WindowBlocks::outstanding_reservations() const {
  int n = 0;
  for (const Seq& s : seqs_) n += std::max(0, s.cap - s.held);
  return n;
}

int WindowBlocks::attach(int seq, std::span<const BlockHash> keys, std::span<const int32_t> tokens, int n,
                         int total_tokens, ParkStore* store, int* n_restored) {
  const int bt = layout_.block_tokens;
  Seq& s = seqs_[seq];
  int* t = table(seq);
  int first = n > 0 ? layout_.first_window_block(n * bt) : 0;
  int n_hits = 0, n_were_cached = 0;
  for (int b = first; b < n; ++b) {
    auto block_tokens = tokens.subspan(static_cast<size_t>(b) * bt, bt);
    const int block = pool_.find(keys[b], block_tokens);
    if (block >= 0) {
      t[b] = block;
      ++n_hits;
      if (pool_.refcount(block) == 0) ++n_were_cached;
    } else if (store != nullptr && store->contains(keys[b], ParkKind::kWindow)) {
      t[b] = kParked;
    } else {  // gone since the plan (group 0's restore cut it shorter): recompute from 0
      std::fill(t + first, t + b, -1);
      first = n = n_hits = n_were_cached = 0;
      break;
    }
  }
  const int cap = cap_blocks(total_tokens);
  const int available = pool_.n_free() + pool_.n_cached() - n_were_cached - outstanding_reservations();
  if (cap - n_hits > available) {
    std::fill(t + first, t + n, -1);
    return -1;
  }
  for (int b = first; b < n; ++b) {
    if (t[b] != kParked) pool_.ref(t[b]);
  }
  s.first = first;
  s.held = n_hits;
  s.cap = cap;
  for (int b = first; b < n; ++b) {
    if (t[b] != kParked) continue;
    auto block_tokens = tokens.subspan(static_cast<size_t>(b) * bt, bt);
    const int block = pool_.allocate();
    Status st = block < 0 ? Status::ResourceExhausted("sliding-window K/V pool is full")
                          : store->get(keys[b], block_tokens, pool_.data(block), ParkKind::kWindow);
    if (!st.ok()) {
      STRATA_LOG_WARN("sliding-window K/V restore: {}; recomputing from position 0", st.ToString());
      if (block >= 0) pool_.unref(block);
      for (int rest = b; rest < n; ++rest) {
        if (t[rest] == kParked) t[rest] = -1;
      }
      release(seq, n);
      s.cap = cap;
      return 0;
    }
    pool_.publish(block, keys[b], block_tokens);
    t[b] = block;
    ++s.held;
    ++*n_restored;
  }
  return n;
}

bool WindowBlocks::add(int seq, int block_index) {
  const int block = pool_.allocate();
  if (block < 0) return false;
  table(seq)[block_index] = block;
  ++seqs_[seq].held;
  return true;
}

void WindowBlocks::publish(int seq, std::span<const BlockHash> keys, std::span<const int32_t> tokens, int from,
                           int n_full, int n_computed) {
  const int bt = layout_.block_tokens;
  Seq& s = seqs_[seq];
  int* t = table(seq);
  for (int b = std::max(from, s.first); b < n_full; ++b) {
    if (t[b] >= 0) pool_.publish(t[b], keys[b], tokens.subspan(static_cast<size_t>(b) * bt, bt));
  }
  // Only published blocks leave: they stay cached for a sequence resuming where they end, but
  // are evicted first (a running sequence recycles its own), so that the windows conversations
  // end with, which their follow-ups resume from, stay longest.
  const int passed = std::min(layout_.first_window_block(n_computed), n_full);
  for (int b = s.first; b < passed; ++b) {
    if (t[b] < 0) continue;
    pool_.unref_cold(t[b]);
    t[b] = -1;
    --s.held;
  }
  s.first = std::max(s.first, passed);
}

void WindowBlocks::release(int seq, int n_table) {
  Seq& s = seqs_[seq];
  int* t = table(seq);
  for (int b = s.first; b < n_table; ++b) {
    if (t[b] >= 0) pool_.unref(t[b]);
    t[b] = -1;
  }
  s = Seq{};
}

}  // namespace strata
