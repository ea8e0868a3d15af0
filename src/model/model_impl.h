// Model::Impl: the state behind a Model (file, hyper-parameters, bound weights, rope
// parameters). Private to src/model: model.cc builds it, transformer.cc runs it.
// Immutable after construction.
#pragma once

#include <memory>

#include "gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "model/hparams.h"
#include "model/model.h"
#include "model/model_weights.h"

namespace strata {

// Prompt rows of one sequence that attend together (kernels::AttentionArgs::n_rows): each
// K/V block is read once per tile. 8 rows of 8 query heads fill the kernels' lanes.
constexpr int kAttentionTileRows = 8;

struct Model::Impl {
  std::shared_ptr<const GgufFile> gguf;
  Hparams hp;
  ModelWeights w;
  kernels::RopeParams rope;  // freq_factors points into w.owned
};

}  // namespace strata
