// AVX2 matmul over the packed Q4_0 layout (packed_q4_0.h), for CPUs without AVX-512: the
// weights stream as one contiguous run per row group.
//
// Each block is done one half (8 rows) at a time: a code line's half, masked and shifted,
// gives the unsigned codes of 4 inputs from each half of the block for 8 rows, and maddubs
// gives their products with the activations as int16 pair sums. Codes are at most 15 and
// activations at most 127 in magnitude (quantize_q8_row clamps them), so the block's 8
// maddubs add up to at most 8 * 2 * 15 * 127 = 30480 per int16 lane: exact in int16 before
// one madd widens them. The offset 8 enters as -8 times the activation sum, so the int32
// dot is exact, and the float step follows reference::matmul_packed_q4_0_rows: the bits
// equal the oracle's (and the AVX-512 kernel's), for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd per line half and row adds the
// products to an int32 dot that starts at the offset term (at most 32 * 15 * 127 + 8 * 32 *
// 127 in magnitude) instead of maddubs and an int16 add, and no madd widens it; the same
// integer, so the same bits.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q4_0.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

struct PackedQ40 : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedQ40BlockBytes;
  static constexpr int64_t kPrefetchBytes = 8 * kPackedQ40BlockBytes;  // a few blocks ahead
  // Per tile row two partial sums (int16 pair sums; AVX-VNNI: int32 dots) stay live across
  // the block (the accumulators wait in memory): four rows take 8 of the 16 registers, so
  // one line load serves four rows.
  static constexpr int kMaxTileRows = 4;

#if defined(STRATA_KERNELS_AVX2_VNNI)
  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m256i mask4 = _mm256_set1_epi8(0x0f);
    __m256i dot[NR][2];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dot[r][0] = dot[r][1] = _mm256_set1_epi32(-8 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
    }
#pragma GCC unroll 8
    for (int c = 0; c < 4; ++c) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256i line = half_line(blk + kPackedQ40CodesOffset + 64 * c, h);
        const __m256i lo = _mm256_and_si256(line, mask4);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4);
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          const int8_t* xq = x[r].q + s * kQK + 4 * c;
          dot[r][h] = _mm256_dpbusd_avx_epi32(dot[r][h], lo, broadcast4(xq));
          dot[r][h] = _mm256_dpbusd_avx_epi32(dot[r][h], hi, broadcast4(xq + 16));
        }
      }
    }
    const __m256 dw[2] = {fp16x8(blk), fp16x8(blk + 16)};
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m256 dx = _mm256_set1_ps(x[r].d[s]);
      for (int h = 0; h < 2; ++h) {
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r][h]), _mm256_mul_ps(dw[h], dx), acc[r][h]);
      }
    }
  }
#else
  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m256i mask4 = _mm256_set1_epi8(0x0f);
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i sum16[NR][2];
    for (int r = 0; r < NR; ++r) sum16[r][0] = sum16[r][1] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int c = 0; c < 4; ++c) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256i line = half_line(blk + kPackedQ40CodesOffset + 64 * c, h);
        const __m256i lo = _mm256_and_si256(line, mask4);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4);
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          const int8_t* xq = x[r].q + s * kQK + 4 * c;
          sum16[r][h] = _mm256_add_epi16(sum16[r][h], _mm256_maddubs_epi16(lo, broadcast4(xq)));
          sum16[r][h] = _mm256_add_epi16(sum16[r][h], _mm256_maddubs_epi16(hi, broadcast4(xq + 16)));
          keep_chain(sum16[r][h]);
        }
      }
    }
    const __m256 dw[2] = {fp16x8(blk), fp16x8(blk + 16)};
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m256i offset = _mm256_set1_epi32(-8 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
      const __m256 dx = _mm256_set1_ps(x[r].d[s]);
      for (int h = 0; h < 2; ++h) {
        const __m256i dot = _mm256_add_epi32(_mm256_madd_epi16(sum16[r][h], ones), offset);
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(dw[h], dx), acc[r][h]);
      }
    }
  }
#endif
};

}  // namespace

void matmul_packed_q4_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ40>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
