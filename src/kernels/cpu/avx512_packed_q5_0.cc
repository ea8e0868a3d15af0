// AVX-512 VNNI matmul over the packed Q5_0 layout (packed_q5_0.h): as the packed Q4_0 kernel,
// one 64-byte code line gives the low nibbles of 4 inputs from each half of the block for all
// 16 rows; the fifth-bit line, shifted by a constant per line and masked, supplies bit 4 of
// each code. The offset 16 enters as -16 times the block's activation sum, so the int32 dot
// is exact.
//
// Per (output row, input row) pair the float operations are those of the scalar oracle
// reference::matmul_packed_q5_0_rows, in the same order, whatever the tile: the results
// are bit-identical to it and batch-invariant.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as (maybe-)uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q5_0.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// v shifted left by S bits (right by -S) in 16-bit lanes. For |S| <= 3 (4 leftwards) bit 4
// of each byte comes from the same byte, which is all the callers keep.
template <int S>
static inline __m512i shift16(__m512i v) {
  if constexpr (S > 0) return _mm512_slli_epi16(v, S);
  if constexpr (S < 0) return _mm512_srli_epi16(v, -S);
  return v;
}

struct PackedQ50 : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedQ50BlockBytes;
  static constexpr int64_t kPrefetchBytes = 8 * kPackedQ50BlockBytes;  // a few blocks ahead
  static constexpr int kMaxTileRows = 8;  // 16 of the 32 registers for accumulators

  // Adds code line C's products (inputs 4C..4C+3 and 16+4C..16+4C+3) to dot.
  template <int C, int NR>
  static void line(const std::byte* blk, __m512i high, const Q8Row* x, int64_t s, __m512i* dot) {
    const __m512i mask4 = _mm512_set1_epi8(0x0f);
    const __m512i bit4 = _mm512_set1_epi8(0x10);
    const __m512i codes = _mm512_loadu_si512(blk + kPackedQ50CodesOffset + 64 * C);
    const __m512i lo = _mm512_or_si512(_mm512_and_si512(codes, mask4), _mm512_and_si512(shift16<4 - 2 * C>(high), bit4));
    const __m512i hi = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(codes, 4), mask4),
                                       _mm512_and_si512(shift16<3 - 2 * C>(high), bit4));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQK + 4 * C;
      dot[r] = _mm512_dpbusd_epi32(dot[r], lo, broadcast4(xq));
      dot[r] = _mm512_dpbusd_epi32(dot[r], hi, broadcast4(xq + 16));
    }
  }

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    __m512i dot[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dot[r] = _mm512_set1_epi32(-16 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
    const __m512i high = _mm512_loadu_si512(blk + kPackedQ50HighOffset);
    line<0, NR>(blk, high, x, s, dot);
    line<1, NR>(blk, high, x, s, dot);
    line<2, NR>(blk, high, x, s, dot);
    line<3, NR>(blk, high, x, s, dot);
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]), _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s])), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q5_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ50>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
