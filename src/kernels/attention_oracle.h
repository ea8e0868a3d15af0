// The scalar oracle of the SIMD attention kernels (cpu/avx2_attention.cc): the exact float
// operations the AVX2 and AVX-512 tables perform for each query row and head, one row at a
// time, so tests can compare their outputs byte for byte (attention_test.cc). The scalar
// reference table (reference/attention.cc) is the readable formula; this is its SIMD order.
//
// Per row and query head, over the key blocks in position order (block b holds positions
// [b * block_tokens, ...), cut at the row's own token count, and for a row with a first_token
// past 0 also before it; blocks left with no keys are skipped):
//   score_t  = fma-chain over i = 0..head_dim-1 of q[i] * k_t[i], starting at +0, times scale,
//              then softcap(score_t, a.softcap) when a.softcap > 0 (kernels/softcap.h)
//   bm       = max over the block's scores in position order, with max(a, b) = a > b ? a : b
//   new_max  = max(old_max, bm); rescale = exp8(old_max - new_max)
//   sum      = sum * rescale, then + exp8(score_t - new_max) for each t in order
//   out      = out * rescale, then fma(p_t, v_t[i], out[i]) for each t in order
// and at the end out * (sum > 0 ? 1 / sum : 0), where a layer with sinks first adds
// exp8(sink_h - max) to the sum. exp8 is the kernels' 8-lane exponential
// (cpu/avx2_common.h exp_ps) evaluated on one lane. Nothing depends on other rows, so a
// row's bits are the same in any tile.
//
// Allocates; for tests only. Thread-safe (no state).
#pragma once

#include "kernels/kernels.h"

namespace strata::kernels {

// Writes every row's n_head * head_dim outputs of the tile a describes (head_dim % 8 == 0).
void attention_oracle(const AttentionArgs& a, const float* q, float* out);

// exp_ps of cpu/avx2_common.h on one value, bit for bit.
float exp8_lane(float x);

}  // namespace strata::kernels
