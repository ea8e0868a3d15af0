// Gemma 4's hyper-parameters (ArchTraits::gemma4), read after the common ones. Private to
// src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// Which layers slide (attention.sliding_window_pattern, a flag per layer) over how many keys
// (attention.sliding_window); the sliding layers' heads (attention.key_length_swa, the per-layer
// attention.head_count_kv, rope.dimension_count_swa) and rope base (rope.freq_base_swa, 10000
// when absent); scores unscaled (q and k are RMS-normed per head), v RMS-normed, and the final
// soft cap (final_logit_softcapping, 30 when absent). The E2B / E4B's parts: per-layer inputs
// (embedding_length_per_layer_input), layers that share an earlier layer's K/V
// (attention.shared_kv_layers) and per-layer feed-forward widths (feed_forward_length as an
// array). A file with experts (26B-A4B) runs them beside its dense feed-forward
// (Hparams::moe_beside_dense).
Status read_gemma4(const GgufFile& gguf, Hparams* hp);

// The parts Gemma 4 E2B / E4B share with Gemma 3n: per-layer feed-forward widths
// (feed_forward_length as an array), per-layer inputs (embedding_length_per_layer_input) and the
// last attention.shared_kv_layers layers reading the K/V of the last earlier layer of their kind.
Status read_gemma_small_model_parts(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
