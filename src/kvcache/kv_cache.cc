#include "kvcache/kv_cache.h"

#include <algorithm>

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
  return id;
}

namespace {

// Chain keys start from the whole identity, so blocks of another model or K/V layout can
// never share a key (nor a park file name) with ours.
BlockHash identity_root(const ParkIdentity& id) {
  const uint64_t words[] = {id.model_id, id.kv_type, id.n_layer, id.n_head_kv, id.head_dim, id.block_tokens,
                            id.block_bytes};
  return root_hash(hash_bytes64(words, sizeof(words), 0));
}

}  // namespace

KvCache::KvCache(const KvCacheOptions& o, size_t block_bytes)
    : layout_(o.layout),
      block_tokens_(o.layout.block_tokens),
      max_blocks_((o.max_seq_tokens + o.layout.block_tokens - 1) / o.layout.block_tokens),
      root_(identity_root(park_identity(o.layout, o.model_id, block_bytes))),
      pool_(o.n_blocks, block_bytes, o.layout.block_tokens),
      tables_(static_cast<size_t>(o.n_seqs) * max_blocks_, -1),
      seqs_(o.n_seqs) {
  for (Seq& s : seqs_) {
    s.hashes.resize(max_blocks_);
    s.last_hashes.resize(max_blocks_);
  }
  counters_.block_tokens = block_tokens_;
  counters_.blocks_total = o.n_blocks;
}

Result<std::unique_ptr<KvCache>> KvCache::Create(const KvCacheOptions& o) {
  if (o.layout.block_tokens < 1) return Status::InvalidArgument("--kv-block must be at least 1 token");
  if (o.n_seqs < 1) return Status::InvalidArgument("K/V cache needs at least one sequence");
  if (o.max_seq_tokens < 1) return Status::InvalidArgument("K/V cache needs a context of at least one token");
  if (o.n_blocks < 1) return Status::InvalidArgument("K/V pool has no blocks (raise --kv-cache-mib)");
  size_t block_bytes = o.layout.block_bytes();
  if (block_bytes == 0) return Status::InvalidArgument("K/V layout has zero-sized blocks");
  std::unique_ptr<KvCache> cache(new KvCache(o, block_bytes));
  if (!o.park_dir.empty()) {
    STRATA_ASSIGN_OR_RETURN(cache->store_, ParkStore::Open(o.park_dir, o.park_capacity_bytes,
                                                           park_identity(o.layout, o.model_id, block_bytes)));
    cache->pool_.set_evict_hook([c = cache.get()](int block) { c->park_block(block); });
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
  int max_reuse_blocks = std::clamp(max_reuse_tokens, 0, static_cast<int>(tokens.size())) / block_tokens_;
  max_reuse_blocks = std::min(max_reuse_blocks, max_blocks_);
  int* t = table(seq);
  BlockHash parent = root_;
  int n_matched = 0;
  int n_were_cached = 0;
  for (; n_matched < max_reuse_blocks; ++n_matched) {
    auto block_tokens = tokens.subspan(static_cast<size_t>(n_matched) * block_tokens_, block_tokens_);
    BlockHash key = chain_hash(parent, block_tokens);
    int block = pool_.find(key, block_tokens);
    if (block < 0) break;
    t[n_matched] = block;
    s.hashes[n_matched] = key;
    if (pool_.refcount(block) == 0) ++n_were_cached;
    parent = key;
  }
  int need_new = std::max(0, blocks_for_tokens(total_tokens) - n_matched);
  int available = pool_.n_free() + pool_.n_cached() - n_were_cached - outstanding_reservations();
  if (available < need_new) return std::nullopt;
  for (int b = 0; b < n_matched; ++b) pool_.ref(t[b]);
  s.n_table = s.n_hashed = n_matched;
  s.reserved = need_new;
  int n_restored = restore_parked(seq, tokens, max_reuse_blocks);

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

// Continues seq's matched chain from the park store, one block at a time, into fresh
// blocks taken from seq's reservation. Stops at the first block that is missing or fails
// its checks; the rest is recomputed.
int KvCache::restore_parked(int seq, std::span<const int32_t> tokens, int max_blocks) {
  if (!store_) return 0;
  Seq& s = seqs_[seq];
  int* t = table(seq);
  int n_restored = 0;
  while (s.n_table < max_blocks && s.reserved > 0) {
    int b = s.n_table;
    auto block_tokens = tokens.subspan(static_cast<size_t>(b) * block_tokens_, block_tokens_);
    BlockHash key = chain_hash(b == 0 ? root_ : s.hashes[b - 1], block_tokens);
    if (!store_->contains(key)) break;
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
    s.hashes[b] = key;
    s.n_table = s.n_hashed = b + 1;
    --s.reserved;
    ++n_restored;
  }
  return n_restored;
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
  }
  return Status::Ok();
}

void KvCache::publish(int seq, std::span<const int32_t> tokens, int n_computed) {
  Seq& s = seqs_[seq];
  int* t = table(seq);
  int n_full = std::min({n_computed, static_cast<int>(tokens.size())}) / block_tokens_;
  n_full = std::min(n_full, s.n_table);
  for (int b = s.n_hashed; b < n_full; ++b) {
    auto block_tokens = tokens.subspan(static_cast<size_t>(b) * block_tokens_, block_tokens_);
    BlockHash key = chain_hash(b == 0 ? root_ : s.hashes[b - 1], block_tokens);
    s.hashes[b] = key;
    pool_.publish(t[b], key, block_tokens);
  }
  s.n_hashed = std::max(s.n_hashed, n_full);
}

void KvCache::release(int seq) {
  Seq& s = seqs_[seq];
  int* t = table(seq);
  for (int b = 0; b < s.n_table; ++b) {
    pool_.unref(t[b]);
    t[b] = -1;
  }
  std::copy(s.hashes.begin(), s.hashes.begin() + s.n_hashed, s.last_hashes.begin());
  s.n_last = s.n_hashed;
  s.n_table = s.n_hashed = s.reserved = 0;
}

void KvCache::park_block(int block) {
  if (!store_ || store_->contains(pool_.hash(block))) return;
  Result<bool> written = store_->put(pool_.hash(block), pool_.tokens(block), pool_.data(block));
  if (!written.ok()) STRATA_LOG_WARN("K/V park: {}", written.status().ToString());
}

int KvCache::park_idle() {
  if (!store_) return 0;
  uint64_t before = store_->stats().parks;
  for (int block : pool_.cached_blocks()) park_block(block);
  return static_cast<int>(store_->stats().parks - before);
}

int KvCache::retained_blocks(int seq) const {
  const Seq& s = seqs_[seq];
  int n = 0;
  for (int b = 0; b < s.n_last; ++b) {
    if (pool_.contains(s.last_hashes[b])) ++n;
  }
  return n;
}

KvCacheStats KvCache::stats() const {
  KvCacheStats out = counters_;
  out.blocks_used = pool_.n_used();
  out.blocks_cached = pool_.n_cached();
  out.evictions = pool_.evictions();
  if (store_) out.park = store_->stats();
  return out;
}

}  // namespace strata
