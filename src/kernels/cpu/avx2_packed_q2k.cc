// AVX2 matmul over the packed Q2_K layout (packed_q2k.h), for CPUs without AVX-512: the
// weights stream as one contiguous run per row group, the scale and min bytes grouped by row.
//
// Each super-block is done one half (8 rows) at a time: half a code line, shifted and masked,
// gives the unsigned 2-bit codes of 8 rows, and maddubs gives their products with 4
// activations per row as int16 pair sums. A sub-block's four lines add in int16 (at most
// 8 * 3 * 127 = 3048; quantize_q8_row clamps activations to 127) before one madd against the
// sub-block's scale widens them: scale_k * dot_k in int32, exact, the oracle's integer. The
// mins multiply the activation sums in int32 as well, and the float steps follow
// reference::matmul_packed_q2_k_rows: the bits equal the oracle's (and the AVX-512
// kernel's), for any tile and batch.
//
// The half is a template parameter, like everything that picks a line or an activation
// offset: with the half a loop variable GCC hoisted all 64 activation addresses of a block
// out of that loop and kept them on the stack (2.2x the time of this form in BM_MatmulHot
// q2_K 256 x 2048, 64 rows).
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there, from three tile rows, a 16-bit multiply per
// line puts the scale into the codes (scale * code <= 45 stays a byte) and each row's
// vpdpbusd adds the line's scaled products straight into its int32 dots: per line and row
// one instruction where AVX2 has maddubs, an int16 add and a quarter of a madd and an add.
// Smaller tiles sum each sub-block's dot by vpdpbusd and scale it by one vpdpwssd; the mins
// take vpdpwssd as well. The same integers, so the same bits. BM_MatmulHot q2_K on the
// Zen 5: 0.83-0.84x the AVX2 table's time at 4-64 rows, 0.88x at 1-2.
#include <immintrin.h>

#include <utility>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q2k.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// Scale-and-min pair q (sub-blocks 2q, 2q + 1) of half h's 8 rows as int16 pairs (bytes
// 32 q + 2 i + e; scale in the low nibble, min in the high one).
inline __m256i scale_min_pairs(const std::byte* blk, int h, int q) {
  return _mm256_cvtepu8_epi16(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedQ2KScalesOffset + 32 * q + 16 * h)));
}

// The codes of line 8kH + t, slot kC (bits 2kC..2kC+1), half kHalf.
template <int kHalf, int kH, int kC>
inline __m256i line_codes(const std::byte* blk, int t) {
  const __m256i line = half_line(blk + kPackedQ2KCodesOffset + 64 * (8 * kH + t), kHalf);
  return _mm256_and_si256(kC == 0 ? line : _mm256_srli_epi16(line, 2 * kC), _mm256_set1_epi8(3));
}

#if defined(STRATA_KERNELS_AVX2_VNNI)

// The fewest tile rows that take scaled codes (scaled_sub_block); smaller tiles take
// dotted_sub_block. With one or two rows the multiply per line is shared too thinly:
// BM_MatmulHot q2_K 256 x 2048 rows:1 took 1.15x the AVX2 table's time with scaled codes,
// 0.9x with dotted_sub_block.
constexpr int kScaledCodeRows = 3;

// Accumulators per tile row: scaled codes add every line into the row's dots, so two chains
// per row (even and odd lines) hide the vpdpbusd latency (one chain: 1.2x the time,
// BM_MatmulHot q2_K 4-64 rows).
template <int NR>
constexpr int kDotChains = NR >= kScaledCodeRows ? 2 : 1;

// Sub-block 8kH + 2kC + e (lines 4e..4e + 3, slot kC) of half kHalf against NR rows, the
// scale entering the codes before the products: a 16-bit multiply of a line's code bytes by
// the row's scale (in both int16 halves of its lane) gives scale * code per byte, at most
// 15 * 3 = 45, so no byte carries into the next and the bytes are valid unsigned operands of
// vpdpbusd. One multiply per line serves the tile's rows, and each row's vpdpbusd adds
// straight into its dots (chain t % 2).
template <int kHalf, int kH, int kC, int NR>
[[gnu::always_inline]] inline void scaled_sub_block(const std::byte* blk, const TileInputs<NR>& x, __m256i scale,
                                                    int e, __m256i* dots) {
#pragma GCC unroll 4
  for (int t = 4 * e; t < 4 * e + 4; ++t) {
    const __m256i scaled = _mm256_mullo_epi16(line_codes<kHalf, kH, kC>(blk, t), scale);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      __m256i& chain = dots[(t % kDotChains<NR>) * NR + r];
      chain = _mm256_dpbusd_avx_epi32(chain, scaled, broadcast4(x.q[r] + 128 * kH + 32 * kC + 4 * t));
    }
  }
}

// The same sub-block's dot by vpdpbusd alone, then scaled: the dot is at most
// 16 * 3 * 127 = 6096, so its low int16 is the dot, and one vpdpwssd against the scale in
// the low int16 of each lane (0 in the high one) adds scale_k * dot_k to dots[r].
template <int kHalf, int kH, int kC, int NR>
[[gnu::always_inline]] inline void dotted_sub_block(const std::byte* blk, const TileInputs<NR>& x, __m256i scale,
                                                    int e, __m256i* dots) {
  __m256i dot32[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot32[r] = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (int t = 4 * e; t < 4 * e + 4; ++t) {
    const __m256i u = line_codes<kHalf, kH, kC>(blk, t);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dot32[r] = _mm256_dpbusd_avx_epi32(dot32[r], u, broadcast4(x.q[r] + 128 * kH + 32 * kC + 4 * t));
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dots[r] = _mm256_dpwssd_avx_epi32(dots[r], dot32[r], scale);
}

// Sub-blocks 8kH + 2kC (lines t < 4) and 8kH + 2kC + 1 (lines t >= 4), bits 2kC..2kC+1 of
// the code lines, for the 8 rows of half kHalf against NR activation rows: adds
// scale_k * dot_k of both to dots[r] (to one of its kDotChains<NR> chains).
template <int kHalf, int kH, int kC, int NR>
[[gnu::always_inline]] inline void sub_block_pair(const std::byte* blk, const TileInputs<NR>& x, __m256i* dots) {
  const __m256i pairs = _mm256_and_si256(scale_min_pairs(blk, kHalf, 4 * kH + kC), _mm256_set1_epi16(0x0f));
#pragma GCC unroll 2
  for (int e = 0; e < 2; ++e) {
    if constexpr (NR >= kScaledCodeRows) {
      scaled_sub_block<kHalf, kH, kC, NR>(blk, x, scale_of_pair(pairs, e), e, dots);
    } else {
      dotted_sub_block<kHalf, kH, kC, NR>(blk, x, low_scale_of_pair(pairs, e), e, dots);
    }
  }
}

// acc + the int32 lanes' sums of int16 pair products a * b, by one vpdpwssd.
inline __m256i madd_add(__m256i acc, __m256i a, __m256i b) { return _mm256_dpwssd_avx_epi32(acc, a, b); }

#else

// Sub-blocks 8kH + 2kC (lines t < 4) and 8kH + 2kC + 1 (lines t >= 4), bits 2kC..2kC+1 of
// the code lines, for the 8 rows of half kHalf against NR activation rows: adds
// scale_k * dot_k of both to dots[r]. Always inlined: called out of line, dots[] would live
// in memory.
template <int kHalf, int kH, int kC, int NR>
[[gnu::always_inline]] inline void sub_block_pair(const std::byte* blk, const TileInputs<NR>& x, __m256i* dots) {
  const __m256i pairs = _mm256_and_si256(scale_min_pairs(blk, kHalf, 4 * kH + kC), _mm256_set1_epi16(0x0f));
#pragma GCC unroll 2
  for (int e = 0; e < 2; ++e) {
    const __m256i scale = scale_of_pair(pairs, e);
    __m256i sums[NR];
#pragma GCC unroll 4
    for (int t = 4 * e; t < 4 * e + 4; ++t) {
      const __m256i u = line_codes<kHalf, kH, kC>(blk, t);
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

// One chain of dots per tile row: the int16 sums carry the latency.
template <int NR>
constexpr int kDotChains = 1;

// acc + the int32 lanes' sums of int16 pair products a * b.
inline __m256i madd_add(__m256i acc, __m256i a, __m256i b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }

#endif

template <int kHalf, int NR, int... kQ>
[[gnu::always_inline]] inline void half_sub_blocks(const std::byte* blk, const TileInputs<NR>& x, __m256i* dots,
                                                   std::integer_sequence<int, kQ...>) {
  (sub_block_pair<kHalf, kQ / 4, kQ % 4, NR>(blk, x, dots), ...);
}

// Half kHalf (rows 8kHalf..8kHalf+7) of a super-block against the tile's NR rows, onto
// acc[r][kHalf]. Row r's dots are chains r, NR + r, ..., summed before the float step.
template <int kHalf, int NR>
[[gnu::always_inline]] inline void half_block(const std::byte* blk, const TileInputs<NR>& x, __m256 (*acc)[2]) {
  __m256i dots[kDotChains<NR> * NR], min_terms[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dots[r] = min_terms[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (int r = NR; r < kDotChains<NR> * NR; ++r) dots[r] = _mm256_setzero_si256();
  half_sub_blocks<kHalf, NR>(blk, x, dots, std::make_integer_sequence<int, 8>{});
#pragma GCC unroll 8
  for (int r = NR; r < kDotChains<NR> * NR; ++r) dots[r % NR] = _mm256_add_epi32(dots[r % NR], dots[r]);
#pragma GCC unroll 8
  for (int q = 0; q < 8; ++q) {
    const __m256i mins = _mm256_srli_epi16(scale_min_pairs(blk, kHalf, q), 4);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      min_terms[r] = madd_add(min_terms[r], mins, broadcast4(x.sum16[r] + 2 * q));
    }
  }
  const __m256 dw = fp16x8(blk + 16 * kHalf);
  const __m256 dmin = fp16x8(blk + 32 + 16 * kHalf);
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    const __m256 xd = _mm256_set1_ps(x.d[r]);
    acc[r][kHalf] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[r]), _mm256_mul_ps(dw, xd), acc[r][kHalf]);
    acc[r][kHalf] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(min_terms[r]), _mm256_mul_ps(dmin, xd), acc[r][kHalf]);
  }
}

struct PackedQ2K : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedQ2KBlockBytes;
  // Four super-blocks (5.4 KB) ahead: one ahead left single-row decode waiting on DRAM
  // (BM_Matmul rows:1, 5632 x 2048 and 2048 x 5632: 1.05-1.08x the time of four ahead, least
  // of 8 alternating runs on the busy 2-core AMD EPYC); six and eight ahead measured slower.
  static constexpr int64_t kPrefetchBytes = 4 * kPackedQ2KBlockBytes;
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

void matmul_packed_q2_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ2K>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
