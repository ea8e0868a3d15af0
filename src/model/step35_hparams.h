// StepFun Step 3.5's, Poolside Laguna's and Xiaomi MiMo-V2's hyper-parameters (ArchTraits::step35,
// laguna, mimo2), read after the common ones. Private to
// src/model (hparams.cc calls it).
#pragma once

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"

namespace strata {

// The per-layer keys of Step 3.5's files, each an array over every block (the multi-token-
// prediction blocks last, their values unused): which layers slide (attention.sliding_window_pattern)
// over how many keys (attention.sliding_window); the query and K/V heads of the full and the
// sliding layers (attention.head_count, head_count_kv: one count for each kind); the rotated
// dims (rope.dimension_count_per_layer, else half of rope.dimension_count (the head size when
// absent) in a full layer and all of it in a sliding one) and the sliding layers' rope base (rope.freq_base_swa, or rope.freq_base_per_layer, one
// base for each kind); and the SwiGLU limits of the routed experts (swiglu_limits, or
// swiglu_clamp_exp) and of the shared expert and dense layers (swiglu_limits_shared, or
// swiglu_clamp_shexp). The file's rope_freqs turn the full layers only
// (rope.scaling.apply_mask 1, the default; another mask is refused).
Status read_step35(const GgufFile& gguf, Hparams* hp);

// Poolside Laguna's keys (ArchTraits::laguna), as llama.cpp's converter writes them: the window
// (attention.sliding_window, 0 for none), which layers slide (attention.sliding_window_pattern, or,
// without it, those whose attention.head_count differs from layer 0's), the heads of each kind as
// for Step 3.5, the full layers' rotated dims (rope.dimension_count, half a head when absent) and
// the sliding layers' (rope.dimension_count_swa, the whole head when absent; or
// rope.dimension_count_per_layer), the sliding layers' base (rope.freq_base_swa, else
// rope.freq_base), which they rotate by without YaRN, and YaRN's ramp bounds and attention factor
// for the full layers (rope.scaling.yarn_beta_fast / _slow, yarn_attn_factor; an extrapolation
// factor other than 1 is refused). A softplus gate per head when the layers have attn_gate of one
// value per head (a gate per value, Laguna M.1's, is refused); routing renormalised by at least
// 2^-14.
Status read_laguna(const GgufFile& gguf, Hparams* hp);

// Xiaomi MiMo-V2's keys (ArchTraits::mimo2), as llama.cpp's converter writes them: the window
// (attention.sliding_window) and which layers slide (attention.sliding_window_pattern, over every
// block), the K/V heads of each kind (attention.head_count_kv: one count for each), the sliding
// layers' rotated dims (rope.dimension_count_swa, the full layers' when absent) and base
// (rope.freq_base_swa), and v's scale (attention.value_scale, 1 when absent). The layers without a
// router (ffn_gate_inp) are dense and must lead.
Status read_mimo2(const GgufFile& gguf, Hparams* hp);

}  // namespace strata
