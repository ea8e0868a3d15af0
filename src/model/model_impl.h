// Model::Impl: the state behind a Model (file, hyper-parameters, bound weights, rope
// parameters). Private to src/model: model.cc builds it, transformer.cc runs it.
// Immutable after construction.
#pragma once

#include <algorithm>
#include <memory>

#include "gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "model/hparams.h"
#include "model/model.h"
#include "model/model_weights.h"

namespace strata {

// Prompt rows of one sequence that attend together (kernels::AttentionArgs::n_rows): each
// K/V block is read and converted to floats once per tile, and the tile's row-heads (rows
// times the query heads of a K/V head) share each key's conversion and broadcast. A row's
// bits never depend on its tile-mates, so the size is a speed choice only:
//   - up to 256 row-heads: 64 rows of Llama 3's 4 query heads per K/V head, 32 of TinyLlama's
//     8, 256 of Qwen1.5-MoE's 1. Against 64 row-heads, the 4096-token prompt's attention at
//     the Llama-3-8B shape took 0.80-0.83x the time (the conversions are shared 4x wider);
//   - at least 64 row-heads (and 8 rows), where the kernels' lanes are full;
//   - between the two, small enough for 4 work items (tile x K/V head) per worker, so many
//     cores still share a prompt chunk evenly.
constexpr int kMaxAttentionTileRowHeads = 256;
constexpr int kMinAttentionTileRowHeads = 64;
constexpr int kMinAttentionTileRows = 8;
constexpr int kMaxAttentionTileRows = kMaxAttentionTileRowHeads;
constexpr int kAttentionItemsPerWorker = 4;

// Query heads per attention work item in a model with one K/V head (Multi-head Latent
// Attention), whose heads would otherwise all be one item: 8, so each key row's conversion
// serves 8 heads while a decode row's heads still spread over the pool (16 heads: 2 items).
// Measured on DeepSeek-V2-Lite's shape at depth 2048, 2 threads: attention 12.3 ms per decode
// step with 8 heads per item, 15.0 with 4, 29.3 with 2, 31.3 with all 16 in one item. It depends
// on the model only, so a head's item arguments never depend on the batch; 0: items by K/V heads.
// The helpers below take the layer's heads (Hparams::attn_shape), which differ between Gemma 4's
// sliding and full layers.
inline int attention_item_query_heads(const Hparams& hp, const AttnShape& a) {
  return hp.is_mla() ? std::min(a.n_head, 8) : 0;
}

// Work items per tile when items go by query heads; else the K/V heads (one each or grouped).
inline int attention_items_per_tile(const Hparams& hp, const AttnShape& a) {
  const int q_heads = attention_item_query_heads(hp, a);
  return q_heads > 0 ? (a.n_head + q_heads - 1) / q_heads : a.n_head_kv;
}

// Rows of a tile of about `row_heads` row-heads for this layer, at least kMinAttentionTileRows.
// Hparams guarantees n_head_kv >= 1 and that it divides n_head (check_shapes).
inline int attention_tile_rows_of(const Hparams& hp, const AttnShape& a, int row_heads) {
  const int q_heads = attention_item_query_heads(hp, a);
  return std::max(row_heads / (q_heads > 0 ? q_heads : a.n_head / a.n_head_kv), kMinAttentionTileRows);
}

// The largest tile (rows) for this layer: what the scratch is sized for (over every layer).
inline int largest_attention_tile_rows(const Hparams& hp, const AttnShape& a) {
  return attention_tile_rows_of(hp, a, kMaxAttentionTileRowHeads);
}

// The tile (rows) for a batch of n_rows rows attended by n_workers (>= 1: the pool's and the
// scratch's worker counts are) workers.
inline int attention_tile_rows(const Hparams& hp, const AttnShape& a, int n_rows, int n_workers) {
  const int even = n_rows * attention_items_per_tile(hp, a) / (kAttentionItemsPerWorker * n_workers);
  return std::clamp(even, attention_tile_rows_of(hp, a, kMinAttentionTileRowHeads), largest_attention_tile_rows(hp, a));
}

struct Model::Impl {
  std::shared_ptr<const GgufFile> gguf;
  Hparams hp;
  ModelWeights w;
  kernels::RopeParams rope;  // freq_factors points into w.owned
  // Sliding-window layers' (hp.rope_freq_base_swa, unscaled; Gemma 4's narrower heads and their
  // own rotated dims).
  kernels::RopeParams rope_sliding;
};

}  // namespace strata
