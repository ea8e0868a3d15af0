// Gemma 3n's hyper-parameters (ArchTraits::gemma3n), read after the common ones. Private to
// src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// AltUp's streams (altup.num_inputs, 4 when absent; altup.active_idx must be 0, the stream
// llama.cpp's graph runs and corrects), which layers slide (attention.sliding_window_pattern: a
// flag per layer, or a period; every 5th layer full when absent), the feed-forward's sparse
// layers (activation_sparsity_scale, a standard-deviation multiplier per layer, minus infinity for
// a dense one; when absent the first 10 at 1.6448533535003662, as llama.cpp runs every file), the
// per-layer inputs and shared K/V (read_gemma_small_model_parts), unscaled scores, v RMS-normed,
// and the final soft cap (final_logit_softcapping, 30 when absent).
Status read_gemma3n(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
