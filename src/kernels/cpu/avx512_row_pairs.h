// The AVX-512 strips' float step on two input rows per vector (avx2_iq_strips.h,
// avx2_matmul_tq.cc): lanes 0-7 of a vector belong to input row 2q, lanes 8-15 to row 2q + 1,
// and each lane sees exactly the operations of the AVX2 tables' 8-lane step, so both tables
// give the same bits. Only in the AVX-512 build.
#pragma once

#if defined(STRATA_KERNELS_AVX512)
#include <immintrin.h>

#include <cstdint>

#include "kernels/cpu/avx2_common.h"
#include "kernels/kernel_table.h"

namespace strata::kernels::cpu::STRATA_SIMD {

// Input row 2q's and 2q + 1's int32 sums of a super-block (lo, hi: 16 lanes each, the halves of
// two 256-bit steps) as one vector: lanes 0-7 lo's lower half plus its upper half, 8-15 hi's.
static inline __m512i row_pair_lanes(__m512i lo, __m512i hi) {
  return _mm512_add_epi32(_mm512_shuffle_i64x2(lo, hi, 0x44), _mm512_shuffle_i64x2(lo, hi, 0xee));
}

// Output (r0 + r, o + i) of a tile: the 8-lane hsum of row r's half of acc[i][r / 2].
template <int NW, int NR>
[[gnu::always_inline]] inline void store_row_pairs(const MatmulArgs& a, const __m512 (&acc)[NW][(NR + 1) / 2],
                                                   int64_t o, int r0) {
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const __m256 half = r % 2 == 0 ? _mm512_castps512_ps256(acc[i][r / 2]) : _mm512_extractf32x8_ps(acc[i][r / 2], 1);
      a.y[static_cast<int64_t>(r0 + r) * a.w->n_out + o + i] = hsum(half);
    }
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
#endif
