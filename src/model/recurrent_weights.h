// The recurrent layers' tensors (Hparams::layer_is_recurrent) bound into LayerWeights: Qwen3.5's and
// Qwen3-Next's gated delta-nets, Ling 3.0's and Kimi Linear's Kimi Delta Attention, Mamba-2 mixers
// and LFM2's short convolutions, each with the names and shapes its converter writes (the fields'
// meanings: model/model_weights.h). Private to src/model (model_weights.cc calls these); errors go to
// the binder, which remembers the first.
#pragma once

#include <string>

#include "model/hparams.h"
#include "model/model_weights.h"
#include "model/weight_binder.h"

namespace strata {

void bind_delta_net(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw);
void bind_kda(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw);
void bind_mamba2(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw);
void bind_short_conv(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw);

}  // namespace strata
