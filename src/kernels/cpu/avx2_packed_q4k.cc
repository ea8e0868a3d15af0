// AVX2 matmul over the packed Q4_K and Q5_K layouts (packed_q4k.h), for CPUs without
// AVX-512: the weights stream as one contiguous run per row group, the scales and mins
// arrive unpacked.
//
// Each super-block is done one half (8 rows) at a time: a code line's half, masked and
// shifted (Q5_K: with its 5th bits added from a high line), gives the unsigned codes of two
// sub-blocks for 8 rows, and maddubs gives their products with 4 activations per row as
// int16 pair sums. Activations are at most 127 in magnitude (quantize_q8_row clamps them),
// so a line adds at most 2 * 15 * 127 = 3810 per int16 lane for Q4_K codes and 7874 for
// Q5_K's: 8 (Q4_K) or 4 (Q5_K) lines add up exactly in int16 before one madd against the
// sub-block's scale widens them (scale_j * dot_j, exact in int32: the oracle's integer).
// The scaled sums and the mins are exact int32, and the float steps follow the oracles
// reference::matmul_packed_q4_k_rows / _q5_k_rows in order: the bits equal the oracle's
// (and the AVX-512 kernel's), for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd per line and row adds a
// sub-block's products in int32 (at most 32 * 31 * 127 per lane) instead of maddubs and an
// int16 add, and a 32-bit multiply applies the scale once per sub-block; the same integers,
// so the same bits. The min terms keep madd and add there: one vpdpwssd in their place
// measured level (BM_MatmulHot q4_K / q5_K 256x2048 and 256x5632, 1-64 rows, 0.97-1.01 of
// the time, least of 5 alternating runs), the min terms being a few percent of a block's
// instructions.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q4k.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// 0x10 in every byte of high whose bit `bit` is set, else 0: a Q5_K code's 5th bit.
inline __m256i fifth_bits(__m256i high, int bit) {
  const __m128i count = _mm_cvtsi32_si128(bit <= 4 ? 4 - bit : bit - 4);
  const __m256i moved = bit <= 4 ? _mm256_sll_epi16(high, count) : _mm256_srl_epi16(high, count);
  return _mm256_and_si256(moved, _mm256_set1_epi8(0x10));
}

// Line t of sub-block pair p (sub-blocks 2p and 2p + 1), half h's 8 rows: the low and the high
// nibble codes, with their 5th bits for Q5_K.
template <bool kFive>
inline void pair_codes(const std::byte* blk, int h, int p, int t, __m256i* lo, __m256i* hi) {
  const __m256i mask4 = _mm256_set1_epi8(0x0f);
  const __m256i line = half_line(blk + kPackedQ4KCodesOffset + 64 * (8 * p + t), h);
  *lo = _mm256_and_si256(line, mask4);
  *hi = _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4);
  if constexpr (kFive) {
    const __m256i high = half_line(blk + kPackedQ5KHighOffset + 64 * (2 * p + t / 4), h);
    *lo = _mm256_or_si256(*lo, fifth_bits(high, 2 * (t % 4)));
    *hi = _mm256_or_si256(*hi, fifth_bits(high, 2 * (t % 4) + 1));
  }
}

// Row i's 6-bit scale of sub-block j (byte 16 j + i) in int32 lane i, for half h's 8 rows.
inline __m256i scale_ints(const std::byte* blk, int h, int j) {
  return _mm256_cvtepu8_epi32(
      _mm_loadl_epi64(reinterpret_cast<const __m128i*>(blk + kPackedQ4KScalesOffset + 16 * j + 8 * h)));
}

#if defined(STRATA_KERNELS_AVX2_VNNI)

// sum_j scale_j * (sub-block j's code . x) of half h's 8 rows, for NR activation rows: each
// sub-block's dot in int32 by vpdpbusd, then times its scale (exact: at most 63 * 126984).
template <bool kFive, int NR>
inline void scaled_dots(const std::byte* blk, int h, const Q8Row* x, int64_t s, __m256i* dots) {
  for (int p = 0; p < 4; ++p) {
    __m256i lo32[NR], hi32[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) lo32[r] = hi32[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      __m256i lo, hi;
      pair_codes<kFive>(blk, h, p, t, &lo, &hi);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
        lo32[r] = _mm256_dpbusd_avx_epi32(lo32[r], lo, broadcast4(xq));
        hi32[r] = _mm256_dpbusd_avx_epi32(hi32[r], hi, broadcast4(xq + 32));
      }
    }
    const __m256i sc_lo = scale_ints(blk, h, 2 * p);
    const __m256i sc_hi = scale_ints(blk, h, 2 * p + 1);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dots[r] = _mm256_add_epi32(dots[r], _mm256_mullo_epi32(lo32[r], sc_lo));
      dots[r] = _mm256_add_epi32(dots[r], _mm256_mullo_epi32(hi32[r], sc_hi));
    }
  }
}
#else
// Row i's 6-bit scale of sub-block j in both int16 halves of int32 lane i, for half h's 8 rows:
// one madd of a row's int16 pair sums against it is scale_j * dot_j.
inline __m256i scale_pairs(const std::byte* blk, int h, int j) {
  const __m256i sc = scale_ints(blk, h, j);
  return _mm256_or_si256(sc, _mm256_slli_epi32(sc, 16));
}

// sum_j scale_j * (sub-block j's code . x) of half h's 8 rows, for NR activation rows.
// Only the int16 pair sums of the two sub-blocks in flight stay live per row; the scale
// enters in the madd that widens them (scale <= 63 times an int16 pair: exact in int32).
template <bool kFive, int NR>
inline void scaled_dots(const std::byte* blk, int h, const Q8Row* x, int64_t s, __m256i* dots) {
  // Lines summed in int16 before widening (see the top of the file).
  constexpr int kLinesPerWiden = kFive ? 4 : 8;
  for (int p = 0; p < 4; ++p) {
    const __m256i sc_lo = scale_pairs(blk, h, 2 * p);
    const __m256i sc_hi = scale_pairs(blk, h, 2 * p + 1);
    __m256i lo16[NR], hi16[NR];
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      __m256i lo, hi;
      pair_codes<kFive>(blk, h, p, t, &lo, &hi);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
        const __m256i lo_prod = _mm256_maddubs_epi16(lo, broadcast4(xq));
        const __m256i hi_prod = _mm256_maddubs_epi16(hi, broadcast4(xq + 32));
        const bool first = t % kLinesPerWiden == 0;
        lo16[r] = first ? lo_prod : _mm256_add_epi16(lo16[r], lo_prod);
        hi16[r] = first ? hi_prod : _mm256_add_epi16(hi16[r], hi_prod);
        keep_chain(lo16[r]);
        keep_chain(hi16[r]);
      }
      if (t % kLinesPerWiden == kLinesPerWiden - 1) {
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          dots[r] = _mm256_add_epi32(dots[r], _mm256_madd_epi16(lo16[r], sc_lo));
          dots[r] = _mm256_add_epi32(dots[r], _mm256_madd_epi16(hi16[r], sc_hi));
        }
      }
    }
  }
}

#endif

// sum_j min_j * (sum of x over sub-block j) of half h's 8 rows for one activation row:
// the mins pair up per row as int16 (bytes 32 p + 2 i + e), the activation sums likewise.
inline __m256i min_terms(const std::byte* blk, int h, const int32_t* pairs) {
  __m256i terms = _mm256_setzero_si256();
  for (int p = 0; p < 4; ++p) {
    const __m256i mins = _mm256_cvtepu8_epi16(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedQ4KMinsOffset + 32 * p + 16 * h)));
    terms = _mm256_add_epi32(terms, _mm256_madd_epi16(mins, _mm256_set1_epi32(pairs[p])));
  }
  return terms;
}

template <bool kFive>
struct PackedQ4K : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kFive ? kPackedQ5KBlockBytes : kPackedQ4KBlockBytes;
  // Four super-blocks (9.5 KB for Q4_K) ahead: one block ahead left single-row decode
  // waiting on DRAM (0.47-0.55 of the read bandwidth in BM_Matmul rows:1, 5632 x 2048, on a
  // busy 2-core AMD EPYC running this table; four ahead 0.79-0.82 in the same runs). The
  // AVX-512 kernel keeps its own distance.
  static constexpr int64_t kPrefetchBytes = 4 * kBlockBytes;
  // Per tile row the code-line loop keeps the half's dots and two int16 pair sums live (the
  // accumulators wait in memory): four rows (three for Q5_K, whose 5th bits take registers
  // too) leave room for the line and its nibbles, so one line load serves four rows.
  static constexpr int kMaxTileRows = kFive ? 3 : 4;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    int32_t pairs[NR][4];
    for (int r = 0; r < NR; ++r) sub_block_sum_pairs(x[r].sum16 + s * 16, pairs[r]);
    for (int h = 0; h < 2; ++h) {
      __m256i dots[NR];
      for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
      scaled_dots<kFive, NR>(blk, h, x, s, dots);
      const __m256 dw = fp16x8(blk + 16 * h);
      const __m256 dmin = fp16x8(blk + 32 + 16 * h);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const __m256i mins = min_terms(blk, h, pairs[r]);
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

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
