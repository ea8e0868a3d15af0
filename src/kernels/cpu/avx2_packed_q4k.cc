// AVX2 matmul over the packed Q4_K and Q5_K layouts (packed_q4k.h), for CPUs without
// AVX-512: the weights stream as one contiguous run per row group, the scales and mins
// arrive unpacked.
//
// Each super-block is done one half (8 rows) at a time: a code line's half, masked and
// shifted (Q5_K: with its 5th bits added from a high line), gives the unsigned codes of two
// sub-blocks for 8 rows, and maddubs gives their products with 4 activations per row as
// int16 pair sums. Activations are at most 127 in magnitude (quantize_q8_row clamps them),
// so a line adds at most 2 * 15 * 127 = 3810 per int16 lane for Q4_K codes and 7874 for
// Q5_K's: 8 (Q4_K) or 4 (Q5_K) lines add up exactly in int16 before one madd widens them.
// The scaled sums and the mins are exact int32, and the float steps follow the oracles
// reference::matmul_packed_q4_k_rows / _q5_k_rows in order: the bits equal the oracle's
// (and the AVX-512 kernel's), for any tile and batch.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q4k.h"

namespace strata::kernels::cpu::avx2 {

namespace {

// 0x10 in every byte of high whose bit `bit` is set, else 0: a Q5_K code's 5th bit.
inline __m256i fifth_bits(__m256i high, int bit) {
  const __m128i count = _mm_cvtsi32_si128(bit <= 4 ? 4 - bit : bit - 4);
  const __m256i moved = bit <= 4 ? _mm256_sll_epi16(high, count) : _mm256_srl_epi16(high, count);
  return _mm256_and_si256(moved, _mm256_set1_epi8(0x10));
}

// sum_j scale_j * (sub-block j's code . x) of half h's 8 rows, for NR activation rows.
template <bool kFive, int NR>
inline void scaled_dots(const std::byte* blk, int h, const Q8Row* x, int64_t s, __m256i* dots) {
  // Lines summed in int16 before widening (see the top of the file).
  constexpr int kLinesPerWiden = kFive ? 4 : 8;
  const __m256i mask4 = _mm256_set1_epi8(0x0f);
  const __m256i ones = _mm256_set1_epi16(1);
  for (int p = 0; p < 4; ++p) {
    __m256i lo_dot[NR], hi_dot[NR], lo16[NR], hi16[NR];
    for (int r = 0; r < NR; ++r) lo_dot[r] = hi_dot[r] = lo16[r] = hi16[r] = _mm256_setzero_si256();
    const std::byte* lines = blk + kPackedQ4KCodesOffset + 64 * 8 * p;
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      const __m256i line = half_line(lines + 64 * t, h);
      __m256i lo = _mm256_and_si256(line, mask4);
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4);
      if constexpr (kFive) {
        const __m256i high = half_line(blk + kPackedQ5KHighOffset + 64 * (2 * p + t / 4), h);
        lo = _mm256_or_si256(lo, fifth_bits(high, 2 * (t % 4)));
        hi = _mm256_or_si256(hi, fifth_bits(high, 2 * (t % 4) + 1));
      }
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
        lo16[r] = _mm256_add_epi16(lo16[r], _mm256_maddubs_epi16(lo, broadcast4(xq)));
        hi16[r] = _mm256_add_epi16(hi16[r], _mm256_maddubs_epi16(hi, broadcast4(xq + 32)));
      }
      if (t % kLinesPerWiden == kLinesPerWiden - 1) {
        for (int r = 0; r < NR; ++r) {
          lo_dot[r] = _mm256_add_epi32(lo_dot[r], _mm256_madd_epi16(lo16[r], ones));
          hi_dot[r] = _mm256_add_epi32(hi_dot[r], _mm256_madd_epi16(hi16[r], ones));
          lo16[r] = hi16[r] = _mm256_setzero_si256();
        }
      }
    }
    // Row i's scale of sub-block j is byte 16 j + i: half h's 8 rows are 8 bytes.
    const std::byte* scales = blk + kPackedQ4KScalesOffset + 8 * h;
    const __m256i sc_lo = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(scales + 32 * p)));
    const __m256i sc_hi = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(scales + 32 * p + 16)));
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      dots[r] = _mm256_add_epi32(dots[r], _mm256_mullo_epi32(lo_dot[r], sc_lo));
      dots[r] = _mm256_add_epi32(dots[r], _mm256_mullo_epi32(hi_dot[r], sc_hi));
    }
  }
}

// sum_j min_j * (sum of x over sub-block j) of half h's 8 rows for one activation row:
// the mins pair up per row as int16 (bytes 32 p + 2 i + e), the activation sums likewise.
inline __m256i min_terms(const std::byte* blk, int h, const int16_t* sum16) {
  __m256i terms = _mm256_setzero_si256();
  for (int p = 0; p < 4; ++p) {
    const int16_t pair[2] = {static_cast<int16_t>(sum16[4 * p] + sum16[4 * p + 1]),
                             static_cast<int16_t>(sum16[4 * p + 2] + sum16[4 * p + 3])};
    const __m256i mins = _mm256_cvtepu8_epi16(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedQ4KMinsOffset + 32 * p + 16 * h)));
    terms = _mm256_add_epi32(terms, _mm256_madd_epi16(mins, broadcast4(pair)));
  }
  return terms;
}

template <bool kFive>
struct PackedQ4K : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kFive ? kPackedQ5KBlockBytes : kPackedQ4KBlockBytes;
  static constexpr int64_t kPrefetchBytes = kBlockBytes;  // one super-block ahead
  // Per tile row: two accumulators, the half's dots, two sub-block dots and their int16
  // partial sums (7 of the 16 registers), so two rows leave room for the code lines.
  static constexpr int kMaxTileRows = 2;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    for (int h = 0; h < 2; ++h) {
      __m256i dots[NR];
      for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
      scaled_dots<kFive, NR>(blk, h, x, s, dots);
      const __m256 dw = fp16x8(blk + 16 * h);
      const __m256 dmin = fp16x8(blk + 32 + 16 * h);
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        const __m256i mins = min_terms(blk, h, x[r].sum16 + s * 16);
        const __m256 xd = _mm256_set1_ps(x[r].d[s]);
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[r]), _mm256_mul_ps(dw, xd), acc[r][h]);
        acc[r][h] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mins), _mm256_mul_ps(dmin, xd), acc[r][h]);
      }
    }
  }
};

}  // namespace

void matmul_packed_q4_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ4K<false>>(a, o_begin, o_end);
}

void matmul_packed_q5_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ4K<true>>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx2
