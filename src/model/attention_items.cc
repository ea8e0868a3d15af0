#include "model/attention_items.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>

#include "kernels/kernels.h"
#include "model/model_impl.h"

namespace strata {
namespace {

// The heads of one work item: K/V heads [kv0, kv0 + n_kv) and their query heads, or, when
// n_q > 0, query heads [q0, q0 + n_q) of the model's one K/V head.
struct ItemHeads {
  int kv0 = 0;
  int n_kv = 1;
  int q0 = 0;
  int n_q = 0;
};

// Rows [r0, r1) of one sequence (a tile), each over positions [first_token, pos] read from
// the cache. The kernel reads each K/V block once for the whole tile; every row's bits are
// those it would get alone, and every head's those it would get in an item of its own.
// first_token > 0 (a sliding-window row whose window starts past position 0) is for a tile of
// one row: the kernels then walk the cache's blocks from the one holding it, that block's keys
// before it skipped, on their decode path.
void attend_tile(const LayerAttention& la, std::span<const Row> rows, int r0, int r1, int first_token,
                 const ItemHeads& h, KvView& kv, ForwardScratch& s, int worker) {
  const Hparams& hp = la.hp;
  const int layer = la.layer;
  const AttnShape sh = hp.attn_shape(layer);
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
  const int kv_layer = hp.kv_layer(layer);
  const int group = L.group_of(kv_layer);
  for (int b = first_token / L.block_tokens; b < n_blocks; ++b) {
    const std::byte* base = kv.block(rows[r0].seq, group, b);
    block_k[b] = base + L.k_offset(kv_layer, 0);
    block_v[b] = base + L.v_offset(kv_layer, 0);
  }
  kernels::AttentionArgs a;
  a.block_k = block_k;
  a.block_v = block_v;
  a.block_tokens = L.block_tokens;
  a.token_stride_bytes = L.token_bytes(group);
  a.n_tokens = n_tokens;
  a.n_head = sh.n_head;
  a.n_head_kv = sh.n_head_kv;
  a.head_dim = sh.head_dim;
  a.kv_type = L.type;
  a.scale = hp.kq_scale();
  a.n_rows = r1 - r0;
  a.row_tokens = row_tokens.data();
  a.first_token = first_token;
  a.sinks = la.sinks;
  a.softcap = hp.attn_softcap;
  const size_t offset = static_cast<size_t>(r0) * sh.q_dim();
  if (h.n_q > 0) {  // a range of the one K/V head's query heads, rows still n_head heads apart
    a.n_head = h.n_q;
    a.row_stride_floats = static_cast<size_t>(sh.q_dim());
    a.sinks = la.sinks == nullptr ? nullptr : la.sinks + h.q0;
    const size_t at = offset + static_cast<size_t>(h.q0) * sh.head_dim;
    kernels::attention_kv_heads(a, s.q() + at, s.attn_out() + at, s.attention_scratch(worker), 0, 1);
    return;
  }
  kernels::attention_kv_heads(a, s.q() + offset, s.attn_out() + offset, s.attention_scratch(worker), h.kv0, h.n_kv);
}

// One work item: rows [r0, r1) of one sequence and heads h. In a sliding-window (or chunked)
// layer, the rows that do not attend from position 0 go one by one (a prompt's rows there forgo the sharing of a tile) and
// the runs of rows between them as tiles.
void attend_item(const LayerAttention& la, std::span<const Row> rows, int r0, int r1, const ItemHeads& h,
                 KvView& kv, ForwardScratch& s, int worker) {
  if (!la.hp.layer_limits_keys(la.layer)) {
    attend_tile(la, rows, r0, r1, 0, h, kv, s, worker);
    return;
  }
  int run = r0;
  for (int r = r0; r < r1; ++r) {
    const int first = la.hp.first_key(la.layer, rows[r].pos);
    if (first == 0) continue;
    if (run < r) attend_tile(la, rows, run, r, 0, h, kv, s, worker);
    attend_tile(la, rows, r, r + 1, first, h, kv, s, worker);
    run = r + 1;
  }
  if (run < r1) attend_tile(la, rows, run, r1, 0, h, kv, s, worker);
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
int kv_heads_per_item(const AttnShape& sh, int n_rows, int n_tiles, int n_workers) {
  if (n_rows != n_tiles) return 1;
  const int groups = std::clamp((2 * n_workers + n_tiles - 1) / n_tiles, 1, sh.n_head_kv);
  return (sh.n_head_kv + groups - 1) / groups;
}

}  // namespace

void attend_all(const LayerAttention& la, std::span<const Row> rows, KvView& kv, ForwardScratch& s,
                ThreadPool& pool) {
  const Hparams& hp = la.hp;
  const AttnShape sh = hp.attn_shape(la.layer);
  int* tiles = s.attention_tiles();
  const int max_workers = std::min(s.n_attention_workers(), pool.size());
  const int n_tiles = make_tiles(rows, attention_tile_rows(hp, sh, static_cast<int>(rows.size()), max_workers), tiles);
  const int item_heads = kv_heads_per_item(sh, static_cast<int>(rows.size()), n_tiles, max_workers);
  const int item_q_heads = attention_item_query_heads(hp, sh);
  const int items_per_tile =
      item_q_heads > 0 ? attention_items_per_tile(hp, sh) : (sh.n_head_kv + item_heads - 1) / item_heads;
  const int n_items = n_tiles * items_per_tile;
  // Short contexts of small models are less work than waking the pool.
  int64_t work = 0;
  for (const Row& row : rows) work += static_cast<int64_t>(row.pos + 1) * sh.head_dim * (sh.n_head + sh.n_head_kv);
  constexpr int64_t kInlineWork = 1 << 16;
  const int n_workers = work <= kInlineWork ? 1 : std::min(max_workers, n_items);
  std::atomic<int>& next = s.next_attention_item();
  next.store(0, std::memory_order_relaxed);
  pool.parallel_for(n_workers, [&](int worker, int) {
    for (int item = next.fetch_add(1); item < n_items; item = next.fetch_add(1)) {
      // Latest rows first: they have the most keys to read.
      const int reversed = n_items - 1 - item;
      const int tile = reversed / items_per_tile;
      ItemHeads h;
      if (item_q_heads > 0) {
        h.q0 = reversed % items_per_tile * item_q_heads;
        h.n_q = std::min(item_q_heads, sh.n_head - h.q0);
      } else {
        h.kv0 = reversed % items_per_tile * item_heads;
        h.n_kv = std::min(item_heads, sh.n_head_kv - h.kv0);
      }
      attend_item(la, rows, tiles[tile], tiles[tile + 1], h, kv, s, worker);
    }
  });
}

}  // namespace strata
