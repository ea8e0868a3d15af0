// AVX-512 VNNI matmul over the packed Q8_0 layout (packed_q8.h): one 512-bit register
// holds 16 output rows, so a block of 32 inputs costs 8 VNNI instructions per input row
// for all 16 rows, and the weights stream as one contiguous run per row group.
//
// Per (output row, input row) pair the float operations are those of the scalar oracle
// reference::matmul_packed_q8_0_rows, in the same order, whatever the tile: the results
// are bit-identical to it and batch-invariant.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as maybe-uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q8.h"

namespace strata::kernels::cpu::avx512 {

namespace {

struct PackedQ8 : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedGroupBlockBytes;
  static constexpr int64_t kPrefetchBytes = 4 * kPackedGroupBlockBytes;  // a few blocks ahead
  static constexpr int kMaxTileRows = 8;  // 16 of the 32 registers for accumulators

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    __m512i dot[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dot[r] = _mm512_set1_epi32(-128 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
#pragma GCC unroll 8
    for (int c = 0; c < 8; ++c) {
      const __m512i codes = _mm512_loadu_si512(blk + 32 + 64 * c);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        dot[r] = _mm512_dpbusd_epi32(dot[r], codes, broadcast4(x[r].q + s * kQK + 4 * c));
      }
    }
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m512 scale = _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s]));
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]), scale, acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q8_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ8>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
