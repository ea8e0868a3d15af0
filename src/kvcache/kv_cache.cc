#include "kvcache/kv_cache.h"

#include <algorithm>
#include <limits>

#include "base/log.h"

namespace strata {

ParkIdentity park_identity(const KvLayout& layout, uint64_t model_id, size_t block_bytes) {
  ParkIdentity id;
  id.model_id = model_id;
  id.kv_type = static_cast<uint32_t>(layout.type);
  id.n_layer = static_cast<uint32_t>(layout.n_layer);
  id.n_head_kv = static_cast<uint32_t>(layout.n_head_kv);
  id.head_dim = static_cast<uint32_t>(layout.head_dim);
  id.block_tokens = static_cast<uint32_t>(layout.block_tokens);
  id.block_bytes = block_bytes;
  id.state_bytes = layout.state_floats * sizeof(float);
  id.window_bytes = layout.window_tokens > 0 ? layout.group_bytes(1) : 0;
  return id;
}

namespace {

// Chain keys start from the whole identity, so blocks of another model or K/V layout can
// never share a key (nor a park file name) with ours.
BlockHash identity_root(const ParkIdentity& id, const KvLayout& layout) {
  const uint64_t words[] = {id.model_id, id.kv_type, id.n_layer, id.n_head_kv, id.head_dim, id.block_tokens,
                            id.block_bytes};
  uint64_t h = hash_bytes64(words, sizeof(words), 0);
  // Only a windowed layout mixes in its window, so the keys (and park files) of every other
  // layout stay what they were.
  if (layout.window_tokens > 0) {
    const uint64_t window[] = {static_cast<uint64_t>(layout.window_tokens), id.window_bytes,
                               static_cast<uint64_t>(layout.window_chunked)};
    h = hash_bytes64(window, sizeof(window), h);
  }
  return root_hash(h);
}

}  // namespace

KvCache::KvCache(const KvCacheOptions& o, size_t block_bytes)
    : layout_(o.layout),
      block_tokens_(o.layout.block_tokens),
      max_blocks_((o.max_seq_tokens + o.layout.block_tokens - 1) / o.layout.block_tokens),
      root_(identity_root(park_identity(o.layout, o.model_id, block_bytes), o.layout)),
      pool_(o.n_blocks, block_bytes, o.layout.block_tokens),
      tables_(static_cast<size_t>(o.n_seqs) * max_blocks_, -1),
      seqs_(o.n_seqs),
      states_(static_cast<size_t>(o.n_seqs) * o.layout.state_floats * sizeof(float)) {
  for (Seq& s : seqs_) {
    s.hashes.resize(max_blocks_);
    s.last_hashes.resize(max_blocks_);
  }
  if (o.layout.state_floats > 0 && o.n_state_snapshots > 0) {
    snapshots_ = std::make_unique<StateCache>(o.n_state_snapshots, o.layout.state_floats, o.layout.block_tokens);
  }
  if (o.layout.window_tokens > 0) {
    window_ = std::make_unique<WindowBlocks>(o.layout, o.n_window_blocks, o.n_seqs, max_blocks_, o.max_step_tokens);
  }
  counters_.block_tokens = block_tokens_;
  counters_.blocks_total = o.n_blocks;
  counters_.window_blocks_total = window_ ? o.n_window_blocks : 0;
}

Result<std::unique_ptr<KvCache>> KvCache::Create(const KvCacheOptions& o) {
  if (o.layout.block_tokens < 1) return Status::InvalidArgument("--kv-block must be at least 1 token");
  if (o.n_seqs < 1) return Status::InvalidArgument("K/V cache needs at least one sequence");
  if (o.max_seq_tokens < 1) return Status::InvalidArgument("K/V cache needs a context of at least one token");
  if (o.n_blocks < 1) return Status::InvalidArgument("K/V pool has no blocks (raise --kv-cache-mib)");
  size_t block_bytes = o.layout.group_bytes(0);
  if (block_bytes == 0) return Status::InvalidArgument("K/V layout has zero-sized blocks");
  if (o.layout.window_tokens > 0) {
    if (o.layout.group_bytes(1) == 0 || o.layout.state_floats > 0) {
      return Status::InvalidArgument("K/V layout has a sliding-window group without layers, or beside a recurrent state");
    }
    if (o.n_window_blocks < 1) return Status::InvalidArgument("sliding-window K/V pool has no blocks");
    if (o.max_step_tokens < 1) return Status::InvalidArgument("sliding-window K/V pool needs the rows of a step");
  }
  if (o.layout.state_floats > std::numeric_limits<size_t>::max() / sizeof(float) / static_cast<size_t>(o.n_seqs)) {
    return Status::ResourceExhausted("recurrent state size overflows");
  }
  std::unique_ptr<KvCache> cache(new KvCache(o, block_bytes));
  if (!cache->pool_.ok() || (cache->window_ && !cache->window_->ok())) {
    const size_t bytes = cache->pool_.memory_bytes() + (cache->window_ ? cache->window_->pool().memory_bytes() : 0);
    return Status::ResourceExhausted("cannot reserve " + std::to_string(bytes >> 20) +
                                     " MiB for the K/V pool (lower --kv-cache-mib, --parallel or the context)");
  }
  // A hybrid model's blocks are of no use without state snapshots to resume from.
  if (!o.park_dir.empty() && (o.layout.state_floats == 0 || cache->snapshots_)) {
    STRATA_ASSIGN_OR_RETURN(cache->store_, ParkStore::Open(o.park_dir, o.park_capacity_bytes,
                                                           park_identity(o.layout, o.model_id, block_bytes)));
    cache->pool_.set_evict_hook([c = cache.get()](int block) { c->park_block(c->pool_, ParkKind::kBlock, block); });
    if (cache->window_) {
      BlockPool& window_pool = cache->window_->pool();
      window_pool.set_evict_hook([c = cache.get(), &window_pool](int block) {
        c->park_block(window_pool, ParkKind::kWindow, block);
      });
    }
    if (cache->snapshots_) {
      cache->snapshots_->set_evict_hook([c = cache.get()](const BlockHash& key, const float* state,
                                                          std::span<const int32_t> tokens) {
        c->park_state(key, state, tokens);
      });
    }
  }
  return cache;
}

int KvCache::outstanding_reservations() const {
  int n = 0;
  for (const Seq& s : seqs_) n += s.reserved;
  return n;
}

std::optional<Admission> KvCache::admit(int seq, std::span<const int32_t> tokens, int max_reuse_tokens,
                                        int total_tokens) {
  Seq& s = seqs_[seq];
  s.n_prompt = static_cast<int>(tokens.size());
  // A hybrid model's sequence resumes only where a state snapshot exists.
  if (layout_.state_floats > 0 && !snapshots_) max_reuse_tokens = 0;
  int max_reuse_blocks = std::clamp(max_reuse_tokens, 0, static_cast<int>(tokens.size())) / block_tokens_;
  max_reuse_blocks = std::min(max_reuse_blocks, max_blocks_);
  // Plan the whole chain first: each block either in the pool (t[b] >= 0) or parked
  // (kParked). Pool hits are pinned before any restore allocates, so restoring early
  // blocks can never evict the later ones we are about to use.
  int* t = table(seq);
  int n_plan = 0, n_pool = 0, n_were_cached = 0;
  for (BlockHash parent = root_; n_plan < max_reuse_blocks; ++n_plan) {
    auto block_tokens = tokens.subspan(static_cast<size_t>(n_plan) * block_tokens_, block_tokens_);
    BlockHash key = chain_hash(parent, block_tokens);
    int block = pool_.find(key, block_tokens);
    if (block < 0 && !(store_ && store_->contains(key))) break;
    t[n_plan] = block < 0 ? kParked : block;
    s.hashes[n_plan] = key;
    if (block >= 0) {
      ++n_pool;
      if (pool_.refcount(block) == 0) ++n_were_cached;
    }
    parent = key;
  }
  if (snapshots_ || window_) {
    if (snapshots_) n_plan = cut_to_snapshot(seq, n_plan);
    if (window_) {
      const int usable = window_->usable_prefix(s.hashes, tokens, n_plan, store_.get());
      std::fill(t + usable, t + n_plan, -1);
      n_plan = usable;
    }
    n_pool = n_were_cached = 0;
    for (int b = 0; b < n_plan; ++b) {
      if (t[b] == kParked) continue;
      ++n_pool;
      if (pool_.refcount(t[b]) == 0) ++n_were_cached;
    }
  }
  const int n_total = blocks_for_tokens(total_tokens);
  const int need_new = std::max(0, n_total - n_pool);
  const int available = pool_.n_free() + pool_.n_cached() - n_were_cached - outstanding_reservations();
  if (available < need_new) {
    std::fill(t, t + n_plan, -1);
    return std::nullopt;
  }
  for (int b = 0; b < n_plan; ++b) {
    if (t[b] != kParked) pool_.ref(t[b]);
  }
  s.reserved = need_new;
  int n_restored = 0;
  s.n_table = s.n_hashed = restore_planned(seq, tokens, n_plan, &n_restored);
  if (snapshots_) {
    s.n_table = s.n_hashed = resume_state(seq, tokens);
    n_restored = std::min(n_restored, s.n_table);  // blocks cut after a failed state read
  }
  if (window_ && !attach_window(seq, tokens, total_tokens, &n_restored)) return std::nullopt;
  s.reserved = std::max(0, n_total - s.n_table);

  Admission a;
  a.reused_tokens = s.n_table * block_tokens_;
  a.restored_tokens = n_restored * block_tokens_;
  counters_.prefix_queries_tokens += tokens.size();
  counters_.prefix_hit_tokens += a.reused_tokens;
  counters_.bytes_reused += static_cast<uint64_t>(s.n_table) * pool_.block_bytes();
  if (n_restored > 0) {
    ++counters_.restores;
    counters_.restored_blocks += n_restored;
  }
  return a;
}

// Reads the planned blocks that are parked, in order, into fresh blocks taken from seq's
// reservation. At the first block that fails its checks the table is cut there (later
// pool hits are released: the engine computes positions contiguously). Returns the
// usable length of the table.
int KvCache::restore_planned(int seq, std::span<const int32_t> tokens, int n_plan, int* n_restored) {
  int* t = table(seq);
  int b = 0;
  for (; b < n_plan; ++b) {
    if (t[b] != kParked) continue;
    auto block_tokens = tokens.subspan(static_cast<size_t>(b) * block_tokens_, block_tokens_);
    const BlockHash& key = seqs_[seq].hashes[b];
    int block = pool_.allocate();
    if (block < 0) break;
    Status st = store_->get(key, block_tokens, pool_.data(block));
    if (!st.ok()) {
      STRATA_LOG_WARN("K/V restore: {}; recomputing from position {}", st.ToString(), b * block_tokens_);
      pool_.unref(block);
      break;
    }
    // Another sequence may have published the same key meanwhile; ours then stays private.
    pool_.publish(block, key, block_tokens);
    t[b] = block;
    --seqs_[seq].reserved;
    ++*n_restored;
  }
  for (int rest = b; rest < n_plan; ++rest) {
    if (t[rest] != kParked) pool_.unref(t[rest]);
    t[rest] = -1;
  }
  return b;
}

Status KvCache::grow(int seq, int n_tokens) {
  Seq& s = seqs_[seq];
  int want = blocks_for_tokens(n_tokens);
  if (want > max_blocks_) {
    return Status::OutOfRange("sequence needs " + std::to_string(n_tokens) + " positions, context holds " +
                              std::to_string(max_blocks_ * block_tokens_));
  }
  int* t = table(seq);
  while (s.n_table < want) {
    int block = pool_.allocate();
    if (block < 0) return Status::ResourceExhausted("K/V pool is full (" + std::to_string(pool_.n_blocks()) + " blocks)");
    t[s.n_table++] = block;
    if (s.reserved > 0) --s.reserved;
    if (window_ && !window_->add(seq, s.n_table - 1)) {
      return Status::ResourceExhausted("sliding-window K/V pool is full (" +
                                       std::to_string(window_->pool().n_blocks()) + " blocks)");
    }
  }
  return Status::Ok();
}

bool KvCache::attach_window(int seq, std::span<const int32_t> tokens, int total_tokens, int* n_restored) {
  Seq& s = seqs_[seq];
  int* t = table(seq);
  int n_window_restored = 0;
  const int usable = window_->attach(seq, s.hashes, tokens, s.n_table, total_tokens, store_.get(), &n_window_restored);
  // Group 0 keeps the blocks the window pool can resume; without a promise (usable < 0) none,
  // and the ones it took stay cached for the retry.
  const int kept = std::max(usable, 0);
  for (int b = kept; b < s.n_table; ++b) {
    pool_.unref(t[b]);
    t[b] = -1;
  }
  s.n_table = s.n_hashed = kept;
  if (usable < 0) {
    s.reserved = 0;
    return false;
  }
  *n_restored = std::min(*n_restored, usable);
  counters_.restored_blocks += n_window_restored;
  counters_.bytes_reused += static_cast<uint64_t>(window_->held(seq)) * window_->pool().block_bytes();
  return true;
}

// Hybrid models: the planned chain up to its last block with a state snapshot, held or parked
// (the blocks after it are dropped from the plan; they hold no references yet).
int KvCache::cut_to_snapshot(int seq, int n_plan) {
  int* t = table(seq);
  int usable = n_plan;
  auto has_state = [&](const BlockHash& key) {
    return snapshots_->contains(key) || (store_ && store_->contains(key, ParkKind::kState));
  };
  while (usable > 0 && !has_state(seqs_[seq].hashes[usable - 1])) --usable;
  std::fill(t + usable, t + n_plan, -1);
  return usable;
}

// Hybrid models: loads the state after the table's last block into seq's recurrent state, from
// the snapshots or else the park store. When it has none (a parked block before it failed its
// checks and cut the table) or its parked copy fails its checks, the table is cut back to the
// last block that has one. Returns the table's length.
int KvCache::resume_state(int seq, std::span<const int32_t> tokens) {
  Seq& s = seqs_[seq];
  int* t = table(seq);
  int n = s.n_table;
  while (n > 0) {
    const BlockHash& key = s.hashes[n - 1];
    if (snapshots_->get(key, recurrent_state(seq))) break;
    if (store_ && store_->contains(key, ParkKind::kState)) {
      auto block_tokens = tokens.subspan(static_cast<size_t>(n - 1) * block_tokens_, block_tokens_);
      Status st = store_->get(key, block_tokens, reinterpret_cast<std::byte*>(recurrent_state(seq)), ParkKind::kState);
      if (st.ok()) {
        ++counters_.restored_states;
        break;
      }
      STRATA_LOG_WARN("state restore: {}; resuming from an earlier block", st.ToString());
    }
    --n;
    pool_.unref(t[n]);
    t[n] = -1;
  }
  return n;
}

// Hybrid models: after a forward pass left seq's state at n_computed positions, a snapshot
// when that is a block boundary (kept while the sequence runs if it is the prompt point).
void KvCache::snapshot_state(int seq, std::span<const int32_t> tokens, int n_computed) {
  const Seq& s = seqs_[seq];
  if (n_computed == 0 || n_computed % block_tokens_ != 0 || n_computed / block_tokens_ > s.n_hashed) return;
  const int block = n_computed / block_tokens_ - 1;
  snapshots_->put(seq, s.hashes[block], recurrent_state(seq), n_computed == prompt_point(s.n_prompt, block_tokens_),
                  tokens.subspan(static_cast<size_t>(block) * block_tokens_, block_tokens_));
}

void KvCache::publish(int seq, std::span<const int32_t> tokens, int n_computed) {
  if (layout_.state_floats > 0 && !snapshots_) return;
  Seq& s = seqs_[seq];
  int* t = table(seq);
  int n_full = std::min({n_computed, static_cast<int>(tokens.size())}) / block_tokens_;
  n_full = std::min(n_full, s.n_table);
  const int n_hashed_before = s.n_hashed;
  for (int b = s.n_hashed; b < n_full; ++b) {
    auto block_tokens = tokens.subspan(static_cast<size_t>(b) * block_tokens_, block_tokens_);
    BlockHash key = chain_hash(b == 0 ? root_ : s.hashes[b - 1], block_tokens);
    s.hashes[b] = key;
    pool_.publish(t[b], key, block_tokens);
  }
  s.n_hashed = std::max(s.n_hashed, n_full);
  if (window_) window_->publish(seq, s.hashes, tokens, n_hashed_before, s.n_hashed, n_computed);
  if (snapshots_) snapshot_state(seq, tokens, n_computed);
}

void KvCache::release(int seq) {
  Seq& s = seqs_[seq];
  int* t = table(seq);
  if (window_) window_->release(seq, s.n_table);
  for (int b = 0; b < s.n_table; ++b) {
    pool_.unref(t[b]);
    t[b] = -1;
  }
  std::copy(s.hashes.begin(), s.hashes.begin() + s.n_hashed, s.last_hashes.begin());
  s.n_last = s.n_hashed;
  s.n_table = s.n_hashed = s.reserved = 0;
  if (snapshots_) snapshots_->release(seq);
}

void KvCache::park_block(const BlockPool& pool, ParkKind kind, int block) {
  if (!store_ || store_->contains(pool.hash(block), kind)) return;
  Result<bool> written = store_->put(pool.hash(block), pool.tokens(block), pool.data(block), kind);
  if (!written.ok()) STRATA_LOG_WARN("K/V park: {}", written.status().ToString());
}

void KvCache::park_pool(BlockPool& pool, ParkKind kind) {
  for (int block : pool.cached_blocks()) {
    park_block(pool, kind, block);
    // Moved, not copied: the memory goes back to the free list. A block the store could
    // not take (I/O error, no capacity) stays cached.
    if (store_->contains(pool.hash(block), kind)) pool.drop_cached(block);
  }
}

void KvCache::park_state(const BlockHash& key, const float* state, std::span<const int32_t> tokens) {
  if (!store_ || store_->contains(key, ParkKind::kState)) return;
  Result<bool> written = store_->put(key, tokens, reinterpret_cast<const std::byte*>(state), ParkKind::kState);
  if (!written.ok()) STRATA_LOG_WARN("state park: {}", written.status().ToString());
}

int KvCache::park_idle() {
  if (!store_) return 0;
  uint64_t before = store_->stats().parks;
  // States first: they stay held (their memory is fixed), and a block moved below without its
  // state would be of no use to a hybrid model.
  if (snapshots_) snapshots_->for_each([this](const BlockHash& key, const float* state, std::span<const int32_t> tokens) {
    park_state(key, state, tokens);
  });
  park_pool(pool_, ParkKind::kBlock);
  if (window_) park_pool(window_->pool(), ParkKind::kWindow);
  return static_cast<int>(store_->stats().parks - before);
}

int KvCache::retained_blocks(int seq) const {
  const Seq& s = seqs_[seq];
  int n = 0;
  for (int b = 0; b < s.n_last; ++b) {
    if (pool_.contains(s.last_hashes[b])) ++n;
  }
  if (window_) n = std::min(n, window_->usable_prefix(s.last_hashes, {}, s.n_last, nullptr));
  return n;
}

KvCacheStats KvCache::stats() const {
  KvCacheStats out = counters_;
  out.blocks_used = pool_.n_used();
  out.blocks_cached = pool_.n_cached();
  out.evictions = pool_.evictions();
  if (store_) out.park = store_->stats();
  if (window_) {
    out.window_blocks_used = window_->pool().n_used();
    out.window_blocks_cached = window_->pool().n_cached();
    out.evictions += window_->pool().evictions();
  }
  if (snapshots_) {
    out.state_snapshots_total = snapshots_->n_entries();
    out.state_snapshots_used = snapshots_->n_used();
  }
  return out;
}

}  // namespace strata
