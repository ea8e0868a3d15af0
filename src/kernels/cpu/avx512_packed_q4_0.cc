// AVX-512 VNNI matmul over the packed Q4_0 layout (packed_q4_0.h): one 512-bit register
// holds 16 output rows; one 64-byte code line, masked and shifted, feeds two VNNI
// instructions (4 inputs from each half of the block) for all 16 rows. The offset 8 enters
// as -8 times the block's activation sum, so the int32 dot is exact.
//
// Per (output row, input row) pair the float operations are those of the scalar oracle
// reference::matmul_packed_q4_0_rows, in the same order, whatever the tile: the results
// are bit-identical to it and batch-invariant.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as maybe-uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q4_0.h"

namespace strata::kernels::cpu::avx512 {

namespace {

struct PackedQ40 : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedQ40BlockBytes;
  static constexpr int64_t kPrefetchBytes = 8 * kPackedQ40BlockBytes;  // a few blocks ahead
  static constexpr int kMaxTileRows = 8;  // 16 of the 32 registers for accumulators

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m512i mask4 = _mm512_set1_epi8(0x0f);
    __m512i dot[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dot[r] = _mm512_set1_epi32(-8 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const __m512i line = _mm512_loadu_si512(blk + kPackedQ40CodesOffset + 64 * c);
      const __m512i lo = _mm512_and_si512(line, mask4);
      const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(line, 4), mask4);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQK + 4 * c;
        dot[r] = _mm512_dpbusd_epi32(dot[r], lo, broadcast4(xq));
        dot[r] = _mm512_dpbusd_epi32(dot[r], hi, broadcast4(xq + 16));
      }
    }
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]), _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s])), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q4_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ40>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
