// AVX2 matmul over the packed IQ4_XS layout (packed_iq4xs.h), for CPUs without AVX-512:
// the weights stream as one contiguous run per row group, the scales arrive unpacked, and a
// code line is turned into levels once for every input row of the tile.
//
// Each super-block is done one half (8 rows) at a time: a code line's half, masked and
// shifted, gives the codes of two sub-blocks for 8 rows, a byte shuffle their signed levels.
// maddubs needs an unsigned operand, so it takes |level| against x carrying the level's
// sign: a pair adds at most 2 * 127 * 127 = 32258, exact in int16; one madd against the
// sub-block's scale (-32..31) widens it (exact in int32). The integer is the oracle's dots
// and the float step reference::matmul_packed_iq4_xs_rows', so the bits equal the oracle's
// (and the AVX-512 kernel's) for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there the byte shuffle gives level + 128 (1..241,
// unsigned, as vpdpbusd's first operand wants), one vpdpbusd per line half and row adds a
// sub-block's products in int32 (at most 32 * 241 * 127 per lane), one 32-bit multiply per
// sub-block applies the scale, and the +128 comes back out once per half and row: 128 *
// sum_j scale_j * (sum of x over sub-block j), one vpdpwssd per two sub-blocks (all under
// 2^28 in magnitude). The same integer, so the same bits.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_iq4xs.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

#if defined(STRATA_KERNELS_AVX2_VNNI)
// Half h's 8 rows' scales of sub-blocks 2p and 2p + 1 as the int16 pair of each int32 lane.
inline __m256i scale_pairs(const std::byte* blk, int h, int p) {
  return _mm256_cvtepi8_epi16(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedIQ4XSScalesOffset + 32 * p + 16 * h)));
}

// Sub-block 2p + e of half h (the e nibbles of code lines 8p .. 8p + 7) against NR activation
// rows: its dot of level + 128 with x summed by vpdpbusd in int32, then times its scale (row
// i's in int32 lane i), added to dots[r]. One sub-block at a time keeps one int32 dot per row
// live beside the row's dots (each line is loaded twice, from L1), so four rows fit the 16
// registers. Always inlined: called out of line, dots[] would live in memory.
template <int NR, int e>
[[gnu::always_inline]] inline void sub_block(const std::byte* blk, int h, int p, __m256i scale, const Q8Row* x,
                                             int64_t s, __m256i* dots) {
  const __m256i levels = _mm256_xor_si256(iq4_levels(), _mm256_set1_epi8(static_cast<char>(0x80)));  // + 128
  const __m256i mask4 = _mm256_set1_epi8(0x0f);
  const std::byte* lines = blk + kPackedIQ4XSCodesOffset + 64 * 8 * p;
  __m256i dot32[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot32[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (int t = 0; t < 8; ++t) {
    const __m256i line = half_line(lines + 64 * t, h);
    const __m256i codes = _mm256_shuffle_epi8(levels, _mm256_and_si256(e == 0 ? line : _mm256_srli_epi16(line, 4), mask4));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dot32[r] = _mm256_dpbusd_avx_epi32(dot32[r], codes, broadcast4(x[r].q + s * kQKK + 64 * p + 32 * e + 4 * t));
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dots[r] = _mm256_add_epi32(dots[r], _mm256_mullo_epi32(dot32[r], scale));
}

// sum_j scale_j * (sub-block j's (level + 128) . x) of half h's 8 rows, for NR activation rows.
template <int NR>
inline void scaled_dots(const std::byte* blk, int h, const Q8Row* x, int64_t s, __m256i* dots) {
  for (int p = 0; p < 4; ++p) {
    const __m256i pairs = scale_pairs(blk, h, p);
    sub_block<NR, 0>(blk, h, p, _mm256_srai_epi32(_mm256_slli_epi32(pairs, 16), 16), x, s, dots);
    sub_block<NR, 1>(blk, h, p, _mm256_srai_epi32(pairs, 16), x, s, dots);
  }
}

// dots minus the +128 of the levels: 128 * sum_j scale_j * (sum of x over sub-block j) of half
// h's 8 rows, the activation sums given as sub-block pairs (sub_block_sum_pairs()).
inline __m256i remove_level_bias(const std::byte* blk, int h, const int32_t* x_pairs, __m256i dots) {
  __m256i terms = _mm256_setzero_si256();
  for (int p = 0; p < 4; ++p) terms = _mm256_dpwssd_avx_epi32(terms, scale_pairs(blk, h, p), _mm256_set1_epi32(x_pairs[p]));
  return _mm256_sub_epi32(dots, _mm256_slli_epi32(terms, 7));
}
#else
// Half h's 8 rows' scales of sub-blocks 2p (first) and 2p + 1 (second), each row's in both
// int16 halves of its int32 lane: one madd of a row's int16 pair sums against it is
// scale_j * (their sum).
struct ScalePair {
  __m256i lo, hi;
};

inline ScalePair scale_pair(const std::byte* blk, int h, int p) {
  // Lane i: row 8h + i's (scale 2p, scale 2p + 1) as int16.
  const __m256i pairs = _mm256_cvtepi8_epi16(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedIQ4XSScalesOffset + 32 * p + 16 * h)));
  const __m256i low_twice = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13, 0, 1, 0, 1, 4, 5, 4,
                                             5, 8, 9, 8, 9, 12, 13, 12, 13);
  const __m256i high_twice = _mm256_add_epi8(low_twice, _mm256_set1_epi8(2));
  return {_mm256_shuffle_epi8(pairs, low_twice), _mm256_shuffle_epi8(pairs, high_twice)};
}

// acc + scale * (the int16 pair sums of |q| times x carrying q's sign).
inline __m256i signed_dot_add(__m256i acc, __m256i abs_q, __m256i q, __m256i x, __m256i scale) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(abs_q, _mm256_sign_epi8(x, q)), scale));
}

// sum_j scale_j * (sub-block j's level . x) of half h's 8 rows, for NR activation rows.
template <int NR>
inline void scaled_dots(const std::byte* blk, int h, const Q8Row* x, int64_t s, __m256i* dots) {
  const __m256i levels = iq4_levels();
  const __m256i mask4 = _mm256_set1_epi8(0x0f);
  for (int p = 0; p < 4; ++p) {
    const ScalePair sc = scale_pair(blk, h, p);
    const std::byte* lines = blk + kPackedIQ4XSCodesOffset + 64 * 8 * p;
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      const __m256i line = half_line(lines + 64 * t, h);
      const __m256i lo = _mm256_shuffle_epi8(levels, _mm256_and_si256(line, mask4));
      const __m256i hi = _mm256_shuffle_epi8(levels, _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4));
      const __m256i abs_lo = _mm256_abs_epi8(lo), abs_hi = _mm256_abs_epi8(hi);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
        dots[r] = signed_dot_add(dots[r], abs_lo, lo, broadcast4(xq), sc.lo);
        dots[r] = signed_dot_add(dots[r], abs_hi, hi, broadcast4(xq + 32), sc.hi);
        keep_chain(dots[r]);
      }
    }
  }
}
#endif

struct PackedIQ4XS : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedIQ4XSBlockBytes;
  static constexpr int64_t kPrefetchBytes = kBlockBytes;  // one super-block ahead
  // Per tile row only the half's dots stay live in the line loop (the accumulators wait in
  // memory), next to the levels, the line's two level vectors, their magnitudes and scales.
  static constexpr int kMaxTileRows = 4;

  // AVX-VNNI: the dots carry the levels' +128 (vpdpbusd's unsigned operand), which comes off
  // once per half and row against the activation sums.
  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
#if defined(STRATA_KERNELS_AVX2_VNNI)
    int32_t x_pairs[NR][4];
    for (int r = 0; r < NR; ++r) sub_block_sum_pairs(x[r].sum16 + s * 16, x_pairs[r]);
#endif
    for (int h = 0; h < 2; ++h) {
      __m256i dots[NR];
      for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
      scaled_dots<NR>(blk, h, x, s, dots);
      const __m256 dw = fp16x8(blk + 16 * h);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
#if defined(STRATA_KERNELS_AVX2_VNNI)
        const __m256i exact = remove_level_bias(blk, h, x_pairs[r], dots[r]);
#else
        const __m256i exact = dots[r];
#endif
        const __m256 xd = _mm256_set1_ps(x[r].d[s]);
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(exact), _mm256_mul_ps(dw, xd), acc[r][h]);
      }
    }
  }
};

}  // namespace

void matmul_packed_iq4_xs(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedIQ4XS>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
