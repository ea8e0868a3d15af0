// AVX2 matmul over the packed Q6_K layout (packed_q6k.h), for CPUs without AVX-512: the
// weights stream as one contiguous run per row group, the int8 scales grouped by row.
//
// Each super-block is done one half (8 rows) at a time: the halves of a low-bits line and
// of a top-bits line, masked, shifted and or-ed, give the unsigned 6-bit codes of 8 rows,
// and maddubs gives their products with 4 activations per row as int16 pair sums: at most
// 2 * 63 * 127 = 16002 (quantize_q8_row clamps activations to 127), so two lines' sums add
// exactly in int16 before one madd against the sub-block's scale widens them (scale_k * dot_k
// in int32, exact: the oracle's integer). The offset 32 enters as -32 * scale times the activation
// sums, exact in int32 like the rest, and the float step follows
// reference::matmul_packed_q6_k_rows: the bits equal the oracle's (and the AVX-512
// kernel's), for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd per line and row adds its
// products to the sub-block's int32 dot (at most 16 * 63 * 127 per lane) instead of maddubs
// and an int16 add, one 32-bit multiply per sub-block applies the scale, and vpdpwssd adds
// the offset terms; the same integers, so the same bits. On AMD Zen 5 vpdpbusd, maddubs,
// madd and mulld share two of the four vector pipes (2 a cycle in all, measured), so per 32
// products and row this takes 1.375 of those and 1.625 vector instructions in all, against
// AVX2's 1.625 and 2.75 (plus the code decode that a tile's rows share).
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q6k.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// Bits kFrom..kFrom+1 of every byte of tops moved to bits 4-5, other bits cleared.
template <int kFrom>
inline __m256i top_bits(__m256i tops) {
  const __m256i moved = kFrom <= 4 ? _mm256_slli_epi16(tops, 4 - kFrom) : _mm256_srli_epi16(tops, kFrom - 4);
  return _mm256_and_si256(moved, _mm256_set1_epi8(0x30));
}

// Scale pair q (sub-blocks 2q, 2q + 1) of half h's 8 rows as int16 pairs (bytes 32 q + 2 i + e).
inline __m256i scale_pairs(const std::byte* blk, int h, int q) {
  return _mm256_cvtepi8_epi16(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedQ6KScalesOffset + 32 * q + 16 * h)));
}

// The unsigned 6-bit codes of nibble k of a pair of code lines (k = 2 l + e: the low (e = 0)
// or high (e = 1) nibbles of the pair's line l) from the line's low bits and the pair's top bits.
template <int k>
inline __m256i q6k_codes(__m256i low, __m256i tops) {
  const __m256i nibbles = k % 2 == 0 ? low : _mm256_srli_epi16(low, 4);
  return _mm256_or_si256(_mm256_and_si256(nibbles, _mm256_set1_epi8(0x0f)), top_bits<2 * k>(tops));
}

// Half h of the top-bits line of code lines 8p + t0 and 8p + t0 + 1 (t0 even), and of their
// low-bits lines.
inline __m256i q6k_tops(const std::byte* blk, int h, int p, int t0) {
  return half_line(blk + kPackedQ6KHighOffset + 64 * (4 * p + t0 / 2), h);
}
inline __m256i q6k_low(const std::byte* blk, int h, int p, int t) {
  return half_line(blk + kPackedQ6KLowOffset + 64 * (8 * p + t), h);
}

#if defined(STRATA_KERNELS_AVX2_VNNI)

// Row i's int8 scale of sub-block 2q + e in int32 lane i, for half h's 8 rows.
inline __m256i q6k_scale_ints(const std::byte* blk, int h, int q, int e) {
  const __m256i pairs = scale_pairs(blk, h, q);
  return _mm256_srai_epi32(e == 0 ? _mm256_slli_epi32(pairs, 16) : pairs, 16);
}

// Sub-block 4p + 2e + u of half h (the e nibbles of code lines 8p + 4u .. 8p + 4u + 3)
// against NR activation rows: its dot summed by vpdpbusd in int32, then times its scale,
// added to dots[r]. One sub-block at a time keeps one int32 dot per row live beside the
// row's dots, so four rows fit the 16 registers.
template <int NR, int e>
[[gnu::always_inline]] inline void sub_block(const std::byte* blk, int h, int p, int u, const Q8Row* x, int64_t s, __m256i* dots) {
  __m256i dot32[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot32[r] = _mm256_setzero_si256();
#pragma GCC unroll 2
  for (int v2 = 0; v2 < 2; ++v2) {
    const int t0 = 4 * u + 2 * v2;
    const __m256i tops = q6k_tops(blk, h, p, t0);
    const __m256i codes0 = q6k_codes<e>(q6k_low(blk, h, p, t0), tops);
    const __m256i codes1 = q6k_codes<2 + e>(q6k_low(blk, h, p, t0 + 1), tops);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 64 * p + 32 * e + 4 * t0;
      dot32[r] = _mm256_dpbusd_avx_epi32(dot32[r], codes0, broadcast4(xq));
      dot32[r] = _mm256_dpbusd_avx_epi32(dot32[r], codes1, broadcast4(xq + 4));
    }
  }
  const __m256i scale = q6k_scale_ints(blk, h, 2 * p + e, u);
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dots[r] = _mm256_add_epi32(dots[r], _mm256_mullo_epi32(dot32[r], scale));
}

// Code lines 8p + 4u .. 8p + 4u + 3 of half h: sub-blocks 4p + u (low nibbles) and
// 4p + 2 + u (high nibbles) against NR activation rows; adds scale_k * dot_k to dots[r].
template <int NR>
[[gnu::always_inline]] inline void quarter(const std::byte* blk, int h, int p, int u, const Q8Row* x, int64_t s, __m256i* dots) {
  sub_block<NR, 0>(blk, h, p, u, x, s, dots);
  sub_block<NR, 1>(blk, h, p, u, x, s, dots);
}

// acc + the int32 lanes' sums of int16 pair products a * b, by one vpdpwssd.
inline __m256i madd_add(__m256i acc, __m256i a, __m256i b) { return _mm256_dpwssd_avx_epi32(acc, a, b); }

#else

// Scale e of each pair in both int16 halves of its int32 lane: one madd of a row's int16
// pair sums against it is scale_k * dot_k (|scale| <= 128 times an int16 pair: exact).
inline __m256i scale_of_pair(__m256i pairs, int e) {
  const __m256i pick_lo = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13,
                                           0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13);
  // The high int16 of each lane: the same bytes shifted by 2.
  const __m256i pick = e == 0 ? pick_lo : _mm256_add_epi8(pick_lo, _mm256_set1_epi8(2));
  return _mm256_shuffle_epi8(pairs, pick);
}

// Code lines 8p + 4u .. 8p + 4u + 3 of half h: sub-blocks 4p + u (low nibbles) and
// 4p + 2 + u (high nibbles) against NR activation rows; adds scale_k * dot_k to dots[r].
// Always inlined: called out of line, dots[] would live in memory.
template <int NR>
[[gnu::always_inline]] inline void quarter(const std::byte* blk, int h, int p, int u, const Q8Row* x, int64_t s, __m256i* dots) {
  const __m256i sc_lo = scale_of_pair(scale_pairs(blk, h, 2 * p), u);
  const __m256i sc_hi = scale_of_pair(scale_pairs(blk, h, 2 * p + 1), u);
#pragma GCC unroll 2
  for (int v2 = 0; v2 < 2; ++v2) {
    const int t0 = 4 * u + 2 * v2;
    const __m256i tops = q6k_tops(blk, h, p, t0);
    const __m256i low0 = q6k_low(blk, h, p, t0);
    const __m256i low1 = q6k_low(blk, h, p, t0 + 1);
    const __m256i codes[4] = {q6k_codes<0>(low0, tops), q6k_codes<1>(low0, tops), q6k_codes<2>(low1, tops),
                              q6k_codes<3>(low1, tops)};
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t0;
      const __m256i lo16 = _mm256_add_epi16(_mm256_maddubs_epi16(codes[0], broadcast4(xq)),
                                            _mm256_maddubs_epi16(codes[2], broadcast4(xq + 4)));
      const __m256i hi16 = _mm256_add_epi16(_mm256_maddubs_epi16(codes[1], broadcast4(xq + 32)),
                                            _mm256_maddubs_epi16(codes[3], broadcast4(xq + 36)));
      dots[r] = _mm256_add_epi32(dots[r], _mm256_madd_epi16(lo16, sc_lo));
      dots[r] = _mm256_add_epi32(dots[r], _mm256_madd_epi16(hi16, sc_hi));
      keep_chain(dots[r]);
    }
  }
}

// acc + the int32 lanes' sums of int16 pair products a * b.
inline __m256i madd_add(__m256i acc, __m256i a, __m256i b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }

#endif

struct PackedQ6K : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedQ6KBlockBytes;
  // Three super-blocks (about 10 KB) ahead, as for Q4_K (avx2_packed_q4k.cc): one block
  // ahead left single-row decode waiting on DRAM.
  static constexpr int64_t kPrefetchBytes = 3 * kPackedQ6KBlockBytes;
  // Per tile row only the half's dots stay live across the code lines (the accumulators
  // wait in memory); with the four decoded code registers and the two scales, four rows
  // fit the 16 registers, so each decoded line serves four rows.
  static constexpr int kMaxTileRows = 4;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    for (int h = 0; h < 2; ++h) {
      __m256i dots[NR];
      for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
      // The offset 32 of the codes: -32 * scale fits int16, so one multiply-add per pair of
      // sub-blocks adds scale_k * -32 * (sum of x over sub-block k) for both.
      for (int q = 0; q < 8; ++q) {
        const __m256i neg32_scales = _mm256_sub_epi16(_mm256_setzero_si256(), _mm256_slli_epi16(scale_pairs(blk, h, q), 5));
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          dots[r] = madd_add(dots[r], neg32_scales, broadcast4(x[r].sum16 + s * 16 + 2 * q));
        }
      }
      for (int p = 0; p < 4; ++p) {
        quarter<NR>(blk, h, p, 0, x, s, dots);
        quarter<NR>(blk, h, p, 1, x, s, dots);
      }
      const __m256 dw = fp16x8(blk + 16 * h);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[r]), _mm256_mul_ps(dw, _mm256_set1_ps(x[r].d[s])), acc[r][h]);
      }
    }
  }
};

}  // namespace

void matmul_packed_q6_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ6K>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
