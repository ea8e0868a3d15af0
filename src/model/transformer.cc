// The forward pass of a transformer (llama, qwen2, qwen3, their mixture-of-experts forms, and
// gemma3), top to bottom.
//
// Rows are independent except through the K/V cache: every per-row step below writes only
// that row's outputs, and the matmuls (the only place rows meet) are batch-invariant by
// the kernels' contract. So a row's bits never depend on what else is in the batch.
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstring>
#include <span>

#include "model/model.h"
#include "model/model_impl.h"
#include "model/moe_ffn.h"
#include "model/row_loop.h"

namespace strata {
namespace {

using kernels::WeightMatrix;

void add_in_place(float* x, const float* y, int n) {
  for (int i = 0; i < n; ++i) x[i] += y[i];
}

// Bias, per-head QK-norm and rotary embedding of one row's q and k, then the row's k and v
// go into the cache at its position.
void finish_qkv_row(const Hparams& hp, const kernels::RopeParams& rope, const LayerWeights& lw, int layer,
                    const Row& row, float* q, float* k, float* v, KvView& kv) {
  const int q_dim = hp.n_head * hp.head_dim;
  const int kv_dim = hp.n_head_kv * hp.head_dim;
  if (lw.bq != nullptr) {
    add_in_place(q, lw.bq, q_dim);
    add_in_place(k, lw.bk, kv_dim);
    add_in_place(v, lw.bv, kv_dim);
  }
  if (lw.q_norm != nullptr) {
    for (int h = 0; h < hp.n_head; ++h) kernels::rmsnorm(q + h * hp.head_dim, lw.q_norm, hp.head_dim, hp.rms_eps, q + h * hp.head_dim);
    for (int h = 0; h < hp.n_head_kv; ++h) kernels::rmsnorm(k + h * hp.head_dim, lw.k_norm, hp.head_dim, hp.rms_eps, k + h * hp.head_dim);
  }
  kernels::rope(q, hp.n_head, row.pos, rope);
  kernels::rope(k, hp.n_head_kv, row.pos, rope);

  const KvLayout& L = kv.layout();
  std::byte* block = kv.block(row.seq, row.pos / L.block_tokens);
  const int in_block = row.pos % L.block_tokens;
  kernels::store_kv(k, kv_dim, L.type, block + L.k_offset(layer, in_block));
  kernels::store_kv(v, kv_dim, L.type, block + L.v_offset(layer, in_block));
}

// Rows [r0, r1) of one sequence (a tile) and the query heads that share K/V heads
// [g, g + n_g), each row over positions [0, pos] read from the cache. The kernel reads each
// K/V block once for the whole tile; every row's bits are those it would get alone, and every
// head's those it would get in an item of its own.
void attend_tile(const Hparams& hp, int layer, std::span<const Row> rows, int r0, int r1, int g, int n_g, KvView& kv,
                 ForwardScratch& s, int worker) {
  const KvLayout& L = kv.layout();
  std::array<int, kMaxAttentionTileRows> row_tokens{};
  int n_tokens = 0;
  for (int r = r0; r < r1; ++r) {
    row_tokens[static_cast<size_t>(r - r0)] = rows[r].pos + 1;
    n_tokens = std::max(n_tokens, rows[r].pos + 1);
  }
  const int n_blocks = (n_tokens + L.block_tokens - 1) / L.block_tokens;
  const void** block_k = s.block_k(worker);
  const void** block_v = s.block_v(worker);
  for (int b = 0; b < n_blocks; ++b) {
    const std::byte* base = kv.block(rows[r0].seq, b);
    block_k[b] = base + L.k_offset(layer, 0);
    block_v[b] = base + L.v_offset(layer, 0);
  }
  kernels::AttentionArgs a;
  a.block_k = block_k;
  a.block_v = block_v;
  a.block_tokens = L.block_tokens;
  a.token_stride_bytes = L.token_bytes();
  a.n_tokens = n_tokens;
  a.n_head = hp.n_head;
  a.n_head_kv = hp.n_head_kv;
  a.head_dim = hp.head_dim;
  a.kv_type = L.type;
  a.scale = 1.0f / std::sqrt(static_cast<float>(hp.attn_scale_dim));
  a.n_rows = r1 - r0;
  a.row_tokens = row_tokens.data();
  const size_t offset = static_cast<size_t>(r0) * hp.n_head * hp.head_dim;
  kernels::attention_kv_heads(a, s.q() + offset, s.attn_out() + offset, s.attention_scratch(worker), g, n_g);
}

// A row of a sliding-window layer whose window starts past position 0: it attends over keys
// [first, pos] only. The kernel walks whole cache blocks from position 0, so those keys (of
// K/V heads [g, g + n_g)) are copied, in cache format, into the worker's window buffer and
// attended there as a cache of their own whose blocks start at `first`. The row's bits then
// depend on its position alone, whatever its tile-mates or chunking; a row alone costs the
// sharing a tile gives, which a prompt past the window forgoes in these layers.
void attend_window_row(const Hparams& hp, int layer, const Row& row, size_t q_offset, int g, int n_g, KvView& kv,
                       ForwardScratch& s, int worker) {
  const KvLayout& L = kv.layout();
  const int first = hp.first_key(layer, row.pos);
  const int n_tokens = row.pos - first + 1;
  const size_t head_bytes = L.token_bytes() / static_cast<size_t>(L.n_head_kv);  // heads are whole blocks of the type
  const size_t span_bytes = static_cast<size_t>(n_g) * head_bytes;  // one token's K (or V) of the item's heads
  std::byte* window_k = s.window_kv(worker);
  std::byte* window_v = window_k + static_cast<size_t>(n_tokens) * span_bytes;
  for (int t = 0; t < n_tokens; ++t) {
    const int pos = first + t;
    const std::byte* block = kv.block(row.seq, pos / L.block_tokens);
    const int in_block = pos % L.block_tokens;
    std::memcpy(window_k + t * span_bytes, block + L.k_offset(layer, in_block) + g * head_bytes, span_bytes);
    std::memcpy(window_v + t * span_bytes, block + L.v_offset(layer, in_block) + g * head_bytes, span_bytes);
  }
  const void** block_k = s.block_k(worker);
  const void** block_v = s.block_v(worker);
  const int n_blocks = (n_tokens + L.block_tokens - 1) / L.block_tokens;
  for (int b = 0; b < n_blocks; ++b) {
    block_k[b] = window_k + static_cast<size_t>(b) * L.block_tokens * span_bytes;
    block_v[b] = window_v + static_cast<size_t>(b) * L.block_tokens * span_bytes;
  }
  const int group = hp.n_head / hp.n_head_kv;
  kernels::AttentionArgs a;
  a.block_k = block_k;
  a.block_v = block_v;
  a.block_tokens = L.block_tokens;
  a.token_stride_bytes = span_bytes;
  a.n_tokens = n_tokens;
  a.n_head = n_g * group;
  a.n_head_kv = n_g;
  a.head_dim = hp.head_dim;
  a.kv_type = L.type;
  a.scale = 1.0f / std::sqrt(static_cast<float>(hp.attn_scale_dim));
  const size_t heads = q_offset + static_cast<size_t>(g) * group * hp.head_dim;
  kernels::attention_kv_heads(a, s.q() + heads, s.attn_out() + heads, s.attention_scratch(worker), 0, n_g);
}

// One attention work item: rows [r0, r1) of one sequence and K/V heads [g, g + n_g). In a
// sliding-window layer, the rows past the window go one by one (attend_window_row) and the
// runs of rows between them as tiles.
void attend_item(const Hparams& hp, int layer, std::span<const Row> rows, int r0, int r1, int g, int n_g, KvView& kv,
                 ForwardScratch& s, int worker) {
  if (!hp.layer_slides(layer)) {
    attend_tile(hp, layer, rows, r0, r1, g, n_g, kv, s, worker);
    return;
  }
  int run = r0;
  for (int r = r0; r < r1; ++r) {
    if (hp.first_key(layer, rows[r].pos) == 0) continue;
    if (run < r) attend_tile(hp, layer, rows, run, r, g, n_g, kv, s, worker);
    attend_window_row(hp, layer, rows[r], static_cast<size_t>(r) * hp.n_head * hp.head_dim, g, n_g, kv, s, worker);
    run = r + 1;
  }
  if (run < r1) attend_tile(hp, layer, rows, run, r1, g, n_g, kv, s, worker);
}

// Splits the batch into tiles: runs of consecutive rows of one sequence, at most tile_rows
// (attention_tile_rows()) each. Returns the tile count; tiles[i] is tile i's first row.
int make_tiles(std::span<const Row> rows, int tile_rows, int* tiles) {
  const int n = static_cast<int>(rows.size());
  int n_tiles = 0;
  for (int r = 0; r < n; ++r) {
    if (r == 0 || rows[r].seq != rows[r - 1].seq || r - tiles[n_tiles - 1] == tile_rows) tiles[n_tiles++] = r;
  }
  tiles[n_tiles] = n;
  return n_tiles;
}

// K/V heads per attention work item. A decode row's kernel walks an item's heads together,
// reading each token's K/V row as one span of them instead of one strided pass per head (at
// depth, from DRAM: qwen2moe's 16 heads of 128 read 256 bytes of every 4 KB row), so a batch
// of decode rows gets items of several heads: about two per worker (the workers take them
// from a counter, so uneven depths still even out), all of a row's heads once there are
// enough rows. A batch with prompt rows keeps one head per item (its tile kernel walks a
// head at a time anyway, and its long rows want fine-grained items).
int kv_heads_per_item(const Hparams& hp, int n_rows, int n_tiles, int n_workers) {
  if (n_rows != n_tiles) return 1;
  const int groups = std::clamp((2 * n_workers + n_tiles - 1) / n_tiles, 1, hp.n_head_kv);
  return (hp.n_head_kv + groups - 1) / groups;
}

// All (tile, K/V heads) items of the batch, spread over the pool. Workers take items from a
// shared counter so the long rows at the end of a prompt chunk do not leave threads idle.
void attend_all(const Hparams& hp, int layer, std::span<const Row> rows, KvView& kv, ForwardScratch& s,
                ThreadPool& pool) {
  int* tiles = s.attention_tiles();
  const int max_workers = std::min(s.n_attention_workers(), pool.size());
  const int n_tiles = make_tiles(rows, attention_tile_rows(hp, static_cast<int>(rows.size()), max_workers), tiles);
  const int item_heads = kv_heads_per_item(hp, static_cast<int>(rows.size()), n_tiles, max_workers);
  const int items_per_tile = (hp.n_head_kv + item_heads - 1) / item_heads;
  const int n_items = n_tiles * items_per_tile;
  // Short contexts of small models are less work than waking the pool.
  int64_t work = 0;
  for (const Row& row : rows) work += static_cast<int64_t>(row.pos + 1) * hp.head_dim * (hp.n_head + hp.n_head_kv);
  constexpr int64_t kInlineWork = 1 << 16;
  const int n_workers = work <= kInlineWork ? 1 : std::min(max_workers, n_items);
  std::atomic<int>& next = s.next_attention_item();
  next.store(0, std::memory_order_relaxed);
  pool.parallel_for(n_workers, [&](int worker, int) {
    for (int item = next.fetch_add(1); item < n_items; item = next.fetch_add(1)) {
      // Latest rows first: they have the most keys to read.
      const int reversed = n_items - 1 - item;
      const int tile = reversed / items_per_tile;
      const int g = reversed % items_per_tile * item_heads;
      attend_item(hp, layer, rows, tiles[tile], tiles[tile + 1], g, std::min(item_heads, hp.n_head_kv - g), kv, s,
                  worker);
    }
  });
}

void rmsnorm_rows(const float* x, const float* weight, int n_rows, int n, float eps, float* out, ThreadPool& pool) {
  for_each_row(pool, n_rows, n, [&](int r) {
    kernels::rmsnorm(x + static_cast<size_t>(r) * n, weight, n, eps, out + static_cast<size_t>(r) * n);
  });
}

void matmul(const WeightMatrix& w, const float* x, int n_rows, float* y, ForwardScratch& s, ThreadPool& pool) {
  ProfileTimer timer(s.profile(), w.type);
  kernels::matmul(w, x, n_rows, y, s.matmul_scratch(), pool);
}

// Products of one input (q, k and v; gate and up) in one pass over the pool: one wake-up,
// one quantised copy of x and one end-of-matmul wait instead of one each, with the bits
// matmul() gives each (kernels::matmul_many). When the jobs would need more scratch than a
// single matmul (weight types with different activation blocks), they run one by one so
// the step allocates nothing. The profile books the pass under the first job's type.
void matmul_same_input(std::span<const kernels::MatmulJob> jobs, ForwardScratch& s, ThreadPool& pool) {
  if (kernels::matmul_many_scratch_bytes(jobs) > s.matmul_scratch().size()) {
    for (const kernels::MatmulJob& job : jobs) matmul(*job.w, job.x, job.n_rows, job.y, s, pool);
    return;
  }
  ProfileTimer timer(s.profile(), jobs[0].w->type);
  kernels::matmul_many(jobs, s.matmul_scratch(), pool);
}

// s.proj()[r] = the SiLU- (or GELU-) gated feed-forward of s.normed()[r].
void dense_ffn(const Hparams& hp, const LayerWeights& lw, int n, ForwardScratch& s, ThreadPool& pool) {
  const kernels::MatmulJob gate_up[] = {{&lw.w_gate, s.normed(), n, s.gate()}, {&lw.w_up, s.normed(), n, s.up()}};
  matmul_same_input(gate_up, s, pool);
  {
    ProfileTimer timer(s.profile(), StepPart::kFfnActivation);
    for_each_row(pool, n, hp.n_ff, [&](int r) {
      const size_t at = static_cast<size_t>(r) * hp.n_ff;
      if (hp.ffn_gelu) {
        kernels::gelu_mul(s.gate() + at, s.up() + at, hp.n_ff);
      } else {
        kernels::silu_mul(s.gate() + at, s.up() + at, hp.n_ff);
      }
    });
  }
  matmul(lw.w_down, s.gate(), n, s.proj(), s, pool);
}

}  // namespace

void Model::embed(std::span<const Row> rows, float* hidden) const {
  const Hparams& hp = impl_->hp;
  for (size_t r = 0; r < rows.size(); ++r) {
    float* out = hidden + r * hp.n_embd;
    const int32_t token = rows[r].token;
    // Callers validate tokens; an id outside the vocabulary still must not read out of bounds.
    if (token < 0 || token >= hp.n_vocab) {
      std::memset(out, 0, sizeof(float) * hp.n_embd);
      continue;
    }
    kernels::dequantize_row(impl_->w.token_embd, token, out);
    if (hp.embd_scale != 1.0f) {
      for (int i = 0; i < hp.n_embd; ++i) out[i] *= hp.embd_scale;
    }
  }
}

void Model::forward_layers(std::span<const Row> rows, int first_layer, int last_layer, float* hidden, KvView& kv,
                           ForwardScratch& s, ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  const int n = static_cast<int>(rows.size());
  assert(n <= s.max_rows());
  assert(kv.layout().block_tokens <= s.max_block_tokens());
  assert(std::all_of(rows.begin(), rows.end(), [&](const Row& r) { return r.pos >= 0 && r.pos < s.max_seq_tokens(); }));
  if (n == 0) return;
  const int n_embd = hp.n_embd;
  const int q_dim = hp.n_head * hp.head_dim;
  const int kv_dim = hp.n_head_kv * hp.head_dim;
  for (int layer = first_layer; layer < last_layer; ++layer) {
    const LayerWeights& lw = impl_->w.layers[layer];

    // Attention. Every row stores its K/V before any row attends, and every row reads its
    // keys back from the cache, so a prompt gives the same bits whatever its chunking.
    {
      ProfileTimer timer(s.profile(), StepPart::kNorm);
      rmsnorm_rows(hidden, lw.attn_norm, n, n_embd, hp.rms_eps, s.normed(), pool);
    }
    const kernels::MatmulJob qkv[] = {
        {&lw.wq, s.normed(), n, s.q()}, {&lw.wk, s.normed(), n, s.k()}, {&lw.wv, s.normed(), n, s.v()}};
    matmul_same_input(qkv, s, pool);
    {
      ProfileTimer timer(s.profile(), StepPart::kQkvFinish);
      for_each_row(pool, n, q_dim + 2 * kv_dim, [&](int r) {
        finish_qkv_row(hp, hp.layer_slides(layer) ? impl_->rope_sliding : impl_->rope, lw, layer, rows[r], s.q() + static_cast<size_t>(r) * q_dim,
                       s.k() + static_cast<size_t>(r) * kv_dim, s.v() + static_cast<size_t>(r) * kv_dim, kv);
      });
    }
    {
      ProfileTimer timer(s.profile(), StepPart::kAttention);
      attend_all(hp, layer, rows, kv, s, pool);
    }
    matmul(lw.wo, s.attn_out(), n, s.proj(), s, pool);

    // Residual (of the post-normed output, gemma3), then the feed-forward block: gated, or
    // routed through experts.
    {
      ProfileTimer timer(s.profile(), StepPart::kNorm);
      for_each_row(pool, n, n_embd, [&](int r) {
        float* h = hidden + static_cast<size_t>(r) * n_embd;
        float* proj = s.proj() + static_cast<size_t>(r) * n_embd;
        if (lw.attn_post_norm != nullptr) kernels::rmsnorm(proj, lw.attn_post_norm, n_embd, hp.rms_eps, proj);
        add_in_place(h, proj, n_embd);
        kernels::rmsnorm(h, lw.ffn_norm, n_embd, hp.rms_eps, s.normed() + static_cast<size_t>(r) * n_embd);
      });
    }
    if (hp.is_moe()) {
      ProfileTimer timer(s.profile(), StepPart::kMoe);
      moe_ffn(hp, lw, layer, n, s, pool);
    } else {
      dense_ffn(hp, lw, n, s, pool);
    }
    ProfileTimer residual_timer(s.profile(), StepPart::kResidual);
    for_each_row(pool, n, n_embd, [&](int r) {
      float* proj = s.proj() + static_cast<size_t>(r) * n_embd;
      if (lw.ffn_post_norm != nullptr) kernels::rmsnorm(proj, lw.ffn_post_norm, n_embd, hp.rms_eps, proj);
      add_in_place(hidden + static_cast<size_t>(r) * n_embd, proj, n_embd);
    });
  }
}

void Model::output_logits(std::span<const Row> rows, const float* hidden, float* logits, ForwardScratch& s,
                          ThreadPool& pool) const {
  const Hparams& hp = impl_->hp;
  int n_out = 0;
  {
    ProfileTimer timer(s.profile(), StepPart::kNorm);
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!rows[r].want_logits) continue;
      kernels::rmsnorm(hidden + r * hp.n_embd, impl_->w.output_norm, hp.n_embd, hp.rms_eps,
                       s.normed() + static_cast<size_t>(n_out) * hp.n_embd);
      ++n_out;
    }
  }
  if (n_out > 0) matmul(impl_->w.output, s.normed(), n_out, logits, s, pool);
}

}  // namespace strata
