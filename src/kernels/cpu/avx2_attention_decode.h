// Attention of one decode row (AttentionArgs::n_rows == 1) for the query heads of one kv
// head, a path of cpu/avx2_attention.cc's attention() for the tile shape decode runs at
// every step. Same float operations per row-head as attention_oracle.h, so the same bits
// as the general tile; what differs is how the cache is read: K and V rows are converted
// in registers (K once into a small per-block buffer for the score broadcasts, V straight
// into the value multiply-adds), the next window of keys is prefetched, and the AVX-512
// build runs 16-lane vectors (scores as 8 heads x 2 keys, values as 16 dims). A kv head of
// 3-4 query heads scores 4 heads x 2 keys per vector (AVX-512: x 4) instead of padding to 8
// heads. A kv head with one query head runs with keys across the lanes instead (K
// transposed per window, 8 lanes on both tables). Either way the kv heads of a call share one walk over the keys (up to
// kAttentionDecodeMaxHeads padded heads, kKeyLanesMaxHeads key-lanes heads per walk).
//
// Thread-safe: reads a, q and the cache, writes only out's heads of the call's kv heads and
// scratch.
#pragma once

#include "kernels/cpu/avx2.h"

namespace strata::kernels::cpu::STRATA_SIMD {

// True when attention_decode() handles a (one row, at most 8 query heads per kv head, a
// head size and K/V type it has vectors for); otherwise run the general tile.
bool attention_decode_fits(const AttentionArgs& a);

// Writes the outputs of the query heads of kv heads [first_kv, first_kv + n_kv). scratch:
// attention_scratch_floats(a). Each head's bits are the same whichever heads share the call.
void attention_decode(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv, int n_kv);

}  // namespace strata::kernels::cpu::STRATA_SIMD
