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
// K/V block is read once per tile, and the tile's row-heads (rows times the query heads of a
// K/V head) share each key's conversion and broadcast. 64 row-heads fill the kernels' lanes:
// 8 rows of 8 query heads (TinyLlama, Qwen3-30B-A3B), 16 of 4 (Llama 3), 64 of 1 (Qwen1.5-MoE).
// A row's bits never depend on its tile-mates, so this is a speed choice only.
constexpr int kAttentionTileRowHeads = 64;
constexpr int kMinAttentionTileRows = 8;
constexpr int kMaxAttentionTileRows = kAttentionTileRowHeads;

// Hparams guarantees n_head_kv >= 1 and that it divides n_head (check_shapes).
inline int attention_tile_rows(const Hparams& hp) {
  return std::max(kAttentionTileRowHeads / (hp.n_head / hp.n_head_kv), kMinAttentionTileRows);
}

struct Model::Impl {
  std::shared_ptr<const GgufFile> gguf;
  Hparams hp;
  ModelWeights w;
  kernels::RopeParams rope;  // freq_factors points into w.owned
};

}  // namespace strata
