// AVX2 matmul over the packed Q3_K layout (packed_q3k.h), for CPUs without AVX-512: the
// weights stream as one contiguous run per row group, the int8 scales decoded and grouped
// by row.
//
// Each super-block is done one half (8 rows) at a time: the halves of a low-bits line and of
// a high-bits line, shifted, masked and or-ed, give the unsigned 3-bit codes of 8 rows, and
// maddubs gives their products with 4 activations per row as int16 pair sums. A sub-block's
// four lines add in int16 (at most 8 * 7 * 127 = 7112; quantize_q8_row clamps activations to
// 127) before one madd against the sub-block's scale widens them: scale_k * dot_k in int32,
// exact, the oracle's integer. The offset 4 enters as -4 * scale times the activation sums,
// and the float step follows reference::matmul_packed_q3_k_rows: the bits equal the
// oracle's (and the AVX-512 kernel's), for any tile and batch.
//
// The half is a template parameter, like everything that picks a line or an activation
// offset: with the half a loop variable GCC hoisted a block's activation addresses out of
// that loop and kept them on the stack (as in avx2_packed_q2k.cc).
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd per line and row adds a
// sub-block's products in int32 instead of maddubs and an int16 add, one multiply-add per
// sub-block and row applies the scale, and vpdpwssd adds the offset terms; the same
// integers, so the same bits. BM_MatmulHot q3_K on the Zen 5: 0.82-0.83x the AVX2 table's
// time at 4-64 rows, 0.86x at 2, 0.93x at 1.
#include <immintrin.h>

#include <utility>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q3k.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// The codes of inputs 128 kH + 32 kC + 4t + k from low line 8 kH + t and high line t: bits
// 2kC..2kC+1 of low and bit 4kH + kC of high, moved to bit 2.
template <int kH, int kC>
inline __m256i codes(__m256i low, __m256i high) {
  const __m256i low2 = _mm256_and_si256(kC == 0 ? low : _mm256_srli_epi16(low, 2 * kC), _mm256_set1_epi8(3));
  constexpr int kBit = 4 * kH + kC;
  __m256i moved = high;
  if constexpr (kBit > 2) moved = _mm256_srli_epi16(high, kBit - 2);
  if constexpr (kBit < 2) moved = _mm256_slli_epi16(high, 2 - kBit);
  return _mm256_or_si256(low2, _mm256_and_si256(moved, _mm256_set1_epi8(4)));
}

// Scale pair q (sub-blocks 2q, 2q + 1) of half h's 8 rows as int16 pairs (bytes 32 q + 2 i + e).
inline __m256i scale_pairs(const std::byte* blk, int h, int q) {
  return _mm256_cvtepi8_epi16(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedQ3KScalesOffset + 32 * q + 16 * h)));
}

#if defined(STRATA_KERNELS_AVX2_VNNI)

// Sub-blocks 8kH + 2kC (lines t < 4) and 8kH + 2kC + 1 (lines t >= 4), slot kC of the code
// lines, for the 8 rows of half kHalf against NR activation rows: adds scale_k * dot_k of
// both to dots[r]. Each sub-block's dot adds up in int32 by one vpdpbusd per line and row;
// it is at most 16 * 7 * 127 = 14224 in magnitude, so its low int16 is the dot, and a
// multiply-add against the scale in the low int16 of each lane (0 in the high one) is
// scale_k * dot_k. (Q2_K's scaled codes do not carry over: a signed scale times a code,
// -224..217, fits neither operand of vpdpbusd.) Up to two rows one vpdpwssd adds it (0.95x
// the time of madd and add, BM_MatmulHot q3_K rows:2); from three rows madd and an add held
// in order by keep_chain (0.91-0.93x the time of vpdpwssd, rows 4-64).
template <int kHalf, int kH, int kC, int NR>
[[gnu::always_inline]] inline void sub_block_pair(const std::byte* blk, const TileInputs<NR>& x, __m256i* dots) {
  const __m256i pairs = scale_pairs(blk, kHalf, 4 * kH + kC);
#pragma GCC unroll 2
  for (int e = 0; e < 2; ++e) {
    const __m256i scale = low_scale_of_pair(pairs, e);
    __m256i dot32[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dot32[r] = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int t = 4 * e; t < 4 * e + 4; ++t) {
      const __m256i u = codes<kH, kC>(half_line(blk + kPackedQ3KLowOffset + 64 * (8 * kH + t), kHalf),
                                      half_line(blk + kPackedQ3KHighOffset + 64 * t, kHalf));
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        dot32[r] = _mm256_dpbusd_avx_epi32(dot32[r], u, broadcast4(x.q[r] + 128 * kH + 32 * kC + 4 * t));
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      if constexpr (NR <= 2) {
        dots[r] = _mm256_dpwssd_avx_epi32(dots[r], dot32[r], scale);
      } else {
        dots[r] = _mm256_add_epi32(dots[r], _mm256_madd_epi16(dot32[r], scale));
        keep_chain(dots[r]);
      }
    }
  }
}

// acc + the int32 lanes' sums of int16 pair products a * b, by one vpdpwssd.
inline __m256i madd_add(__m256i acc, __m256i a, __m256i b) { return _mm256_dpwssd_avx_epi32(acc, a, b); }

#else

// Sub-blocks 8kH + 2kC (lines t < 4) and 8kH + 2kC + 1 (lines t >= 4), slot kC of the code
// lines, for the 8 rows of half kHalf against NR activation rows: adds scale_k * dot_k of
// both to dots[r]. Always inlined: called out of line, dots[] would live in memory.
template <int kHalf, int kH, int kC, int NR>
[[gnu::always_inline]] inline void sub_block_pair(const std::byte* blk, const TileInputs<NR>& x, __m256i* dots) {
  const __m256i pairs = scale_pairs(blk, kHalf, 4 * kH + kC);
#pragma GCC unroll 2
  for (int e = 0; e < 2; ++e) {
    const __m256i scale = scale_of_pair(pairs, e);
    __m256i sums[NR];
#pragma GCC unroll 4
    for (int t = 4 * e; t < 4 * e + 4; ++t) {
      const __m256i u = codes<kH, kC>(half_line(blk + kPackedQ3KLowOffset + 64 * (8 * kH + t), kHalf),
                                      half_line(blk + kPackedQ3KHighOffset + 64 * t, kHalf));
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const __m256i prod = _mm256_maddubs_epi16(u, broadcast4(x.q[r] + 128 * kH + 32 * kC + 4 * t));
        sums[r] = t == 4 * e ? prod : _mm256_add_epi16(sums[r], prod);
        keep_chain(sums[r]);
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dots[r] = _mm256_add_epi32(dots[r], _mm256_madd_epi16(sums[r], scale));
      keep_chain(dots[r]);
    }
  }
}

// acc + the int32 lanes' sums of int16 pair products a * b.
inline __m256i madd_add(__m256i acc, __m256i a, __m256i b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }

#endif

template <int kHalf, int NR, int... kQ>
[[gnu::always_inline]] inline void half_sub_blocks(const std::byte* blk, const TileInputs<NR>& x, __m256i* dots,
                                                   std::integer_sequence<int, kQ...>) {
  (sub_block_pair<kHalf, kQ / 4, kQ % 4, NR>(blk, x, dots), ...);
}

// Half kHalf (rows 8kHalf..8kHalf+7) of a super-block against the tile's NR rows, onto
// acc[r][kHalf].
template <int kHalf, int NR>
[[gnu::always_inline]] inline void half_block(const std::byte* blk, const TileInputs<NR>& x, __m256 (*acc)[2]) {
  // The offset 4 of the codes: -4 * scale fits int16, so one multiply-add per pair of
  // sub-blocks adds scale_k * -4 * (sum of x over sub-block k) for both.
  __m256i dots[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (int q = 0; q < 8; ++q) {
    const __m256i neg4_scales =
        _mm256_sub_epi16(_mm256_setzero_si256(), _mm256_slli_epi16(scale_pairs(blk, kHalf, q), 2));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dots[r] = madd_add(dots[r], neg4_scales, broadcast4(x.sum16[r] + 2 * q));
    }
  }
  half_sub_blocks<kHalf, NR>(blk, x, dots, std::make_integer_sequence<int, 8>{});
  const __m256 dw = fp16x8(blk + 16 * kHalf);
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    const __m256 scale = _mm256_mul_ps(dw, _mm256_set1_ps(x.d[r]));
    acc[r][kHalf] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[r]), scale, acc[r][kHalf]);
  }
}

struct PackedQ3K : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedQ3KBlockBytes;
  // Four super-blocks (7.3 KB) ahead: one ahead left single-row decode waiting on DRAM
  // (BM_Matmul rows:1, 5632 x 2048 and 2048 x 5632: 1.05-1.08x the time of four ahead, least
  // of 8 alternating runs on the busy 2-core AMD EPYC); six and eight ahead measured slower.
  static constexpr int64_t kPrefetchBytes = 4 * kPackedQ3KBlockBytes;
  // Per tile row the half's dots and one int16 sum stay live across the code lines; with the
  // decode registers, four rows fit the 16 registers.
  static constexpr int kMaxTileRows = 4;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const TileInputs<NR> in = super_block_inputs<NR>(x, s);
    half_block<0, NR>(blk, in, acc);
    half_block<1, NR>(blk, in, acc);
  }
};

}  // namespace

void matmul_packed_q3_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ3K>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
