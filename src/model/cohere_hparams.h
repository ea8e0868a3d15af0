// Cohere's hyper-parameters (ArchTraits::cohere2, ArchTraits::cohere2_moe), read after the common
// ones. Private to src/model (hparams.cc calls them).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// Command R7B, Command A and Command R (cohere2, command-r): layer norms of eps
// attention.layer_norm_epsilon, parallel blocks, logits times logit_scale (both required, as
// llama.cpp requires them), and Command R+'s q/k layer norms with gains per head when the file
// has them.
Status read_cohere2(const GgufFile& gguf, Hparams* hp);

// Cohere's MoE (cohere2_moe): RMS norms, parallel blocks, the logits times logit_scale (0: none),
// a window of attention.sliding_window keys in the layers attention.sliding_window_pattern flags
// (a value per layer, or one for all), and rope in those and in the leading dense layers only.
Status read_cohere2_moe(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
