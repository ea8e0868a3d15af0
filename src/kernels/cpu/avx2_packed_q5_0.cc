// AVX2 matmul over the packed Q5_0 layout (packed_q5_0.h), for CPUs without AVX-512: the
// weights stream as one contiguous run per row group.
//
// Each block is done one half (8 rows) at a time: a code line's half, masked and shifted and
// joined with its fifth bits, gives the unsigned codes of 4 inputs from each half of the
// block for 8 rows, and maddubs gives their products with the activations as int16 pair
// sums. Codes are at most 31 and activations at most 127 in magnitude (quantize_q8_row
// clamps them), so a pair sum is at most 7874 and four maddubs add up to at most 31496 per
// int16 lane: exact in int16, so each two code lines (four maddubs) are widened by one madd.
// The offset 16 enters as -16 times the activation sum, so the int32 dot is exact, and the
// float step follows reference::matmul_packed_q5_0_rows: the bits equal the oracle's (and the
// AVX-512 kernel's), for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd per line half and row adds the
// products to an int32 dot that starts at the offset term (at most 32 * 31 * 127 + 16 * 32 *
// 127 in magnitude), so no int16 sums need widening and a tile row keeps one dot per half
// instead of two: four rows fit where AVX2 fits two. The same integer, so the same bits.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q5_0.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// See avx512_packed_q5_0.cc: bit 4 of each byte stays within its byte for these shifts.
template <int S>
static inline __m256i shift16(__m256i v) {
  if constexpr (S > 0) return _mm256_slli_epi16(v, S);
  if constexpr (S < 0) return _mm256_srli_epi16(v, -S);
  return v;
}

struct PackedQ50 : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedQ50BlockBytes;
  static constexpr int64_t kPrefetchBytes = 8 * kPackedQ50BlockBytes;  // a few blocks ahead
  // Four rows a tile on both builds. AVX-VNNI: per tile row one int32 dot stays live across a
  // half's four lines (the accumulators wait in memory), which leaves room for the fifth bits,
  // the masks and a line's codes. AVX2: two int16 sums per tile row stay live, so four rows
  // spill a few registers; measured fastest all the same (BM_MatmulHot q5_0 256 x 2048 and 256
  // x 5632, 8-64 rows, least of 3 alternating runs on the Zen 4: 2 / 3 / 6 / 8 rows a tile
  // took 1.13-1.18 / 1.06-1.10 / 1.9-2.0 / 1.6-1.8x the time of 4).
  static constexpr int kMaxTileRows = 4;

  // Adds code line C's products (half h) to sums: int16 pair sums on AVX2, int32 dots on
  // AVX-VNNI.
  template <int C, int NR>
  static void line(const std::byte* blk, __m256i high, int h, const Q8Row* x, int64_t s, __m256i* sums) {
    const __m256i mask4 = _mm256_set1_epi8(0x0f);
    const __m256i bit4 = _mm256_set1_epi8(0x10);
    const __m256i codes = half_line(blk + kPackedQ50CodesOffset + 64 * C, h);
    const __m256i lo = _mm256_or_si256(_mm256_and_si256(codes, mask4), _mm256_and_si256(shift16<4 - 2 * C>(high), bit4));
    const __m256i hi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(codes, 4), mask4),
                                       _mm256_and_si256(shift16<3 - 2 * C>(high), bit4));
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQK + 4 * C;
#if defined(STRATA_KERNELS_AVX2_VNNI)
      sums[r] = _mm256_dpbusd_avx_epi32(sums[r], lo, broadcast4(xq));
      sums[r] = _mm256_dpbusd_avx_epi32(sums[r], hi, broadcast4(xq + 16));
#else
      sums[r] = _mm256_add_epi16(sums[r], _mm256_maddubs_epi16(lo, broadcast4(xq)));
      sums[r] = _mm256_add_epi16(sums[r], _mm256_maddubs_epi16(hi, broadcast4(xq + 16)));
#endif
    }
  }

#if defined(STRATA_KERNELS_AVX2_VNNI)
  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m256i high = half_line(blk + kPackedQ50HighOffset, h);
      __m256i dot[NR];
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) dot[r] = _mm256_set1_epi32(-16 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
      line<0, NR>(blk, high, h, x, s, dot);
      line<1, NR>(blk, high, h, x, s, dot);
      line<2, NR>(blk, high, h, x, s, dot);
      line<3, NR>(blk, high, h, x, s, dot);
      const __m256 dw = fp16x8(blk + 16 * h);
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]), _mm256_mul_ps(dw, _mm256_set1_ps(x[r].d[s])), acc[r][h]);
      }
    }
  }
#else
  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m256i ones = _mm256_set1_epi16(1);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m256i high = half_line(blk + kPackedQ50HighOffset, h);
      __m256i first[NR], second[NR];
      for (int r = 0; r < NR; ++r) first[r] = second[r] = _mm256_setzero_si256();
      line<0, NR>(blk, high, h, x, s, first);
      line<1, NR>(blk, high, h, x, s, first);
      line<2, NR>(blk, high, h, x, s, second);
      line<3, NR>(blk, high, h, x, s, second);
      const __m256 dw = fp16x8(blk + 16 * h);
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        const __m256i offset = _mm256_set1_epi32(-16 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
        const __m256i dot = _mm256_add_epi32(
            _mm256_add_epi32(_mm256_madd_epi16(first[r], ones), _mm256_madd_epi16(second[r], ones)), offset);
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(dw, _mm256_set1_ps(x[r].d[s])), acc[r][h]);
      }
    }
  }
#endif
};

}  // namespace

void matmul_packed_q5_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ50>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
