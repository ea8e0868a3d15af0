// Single-input-row matmul (one activation row: a decode step) for the lattice i-quants on
// the AVX2 table, and on the AVX-512 table for CPUs without VBMI (those with it run the
// byte-permute kernels of avx512_matmul_iq_vbmi.cc, except for IQ1_S / IQ1_M, whose 2048-entry
// grid is too large for byte permutes: theirs run here on both tables).
//
// The tiled kernels of avx2_matmul_iq.cc decode a weight sub-block once and reuse it for
// every input row; with one input row there is nothing to reuse, and their per-element
// scalar index arithmetic cost most of a decode step. Here one super-block is multiplied
// straight into 8 int32 lanes: grid entries are loaded into vectors by scalar loads (on the
// AMD Zen 5 measured, a gather is slower than its scalar loads; indices are in scalar
// registers, never read back from a vector stored to the stack, whose loads wait on the
// store; IQ3_S computes its 9-bit ones in vectors and moves them over, avx2_iq3s_decode.h),
// IQ2_XS, IQ2_XXS and IQ3_XXS decode a super-block's sign sets in vectors (the last two
// with avx2_iq_xxs_decode.h; IQ1_S and IQ1_M their scales and shift signs), the sign bits
// negate the activation codes instead of the weights so the unsigned grid bytes feed maddubs
// directly, and maddubs, then madd by the sub-block's odd scale, sum over the super-block.
// Lane k ends up with sum over sub-blocks j of scale_j * (elements 4k..4k+3 of j): the
// tiled kernels' int32 lanes (integer sums are exact, so their grouping is free), then
// their float step (avx2_iq_row_driver.h). Results are bit-identical to the tiled kernels
// and the oracle in matmul_simd_oracle_test.cc. Stateless; safe from any thread.
#include "kernels/cpu/avx2_matmul_iq_row.h"

#include <utility>

#include "kernels/cpu/avx2_iq2_decode.h"
#include "kernels/cpu/avx2_iq3s_decode.h"
#include "kernels/cpu/avx2_iq_row_driver.h"
#include "kernels/cpu/avx2_iq_xxs_decode.h"
#include "tensor/block_layouts.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

// Word j of v (8 int16 in both 128-bit lanes) in every word.
[[gnu::always_inline]] inline __m256i word_in_lanes(__m256i v, int j) {
  return _mm256_shuffle_epi8(v, _mm256_set1_epi16(static_cast<int16_t>((2 * j) | ((2 * j + 1) << 8))));
}

// Sub-block j's int16 scale in every word, from the 8 scales of odd_scales_from_nibbles
// in both 128-bit lanes.
[[gnu::always_inline]] inline __m256i sub_block_scale(__m256i odd_scales, int j) {
  return word_in_lanes(odd_scales, j);
}

// The dots of a super-block's 8 sub-blocks, K::sub_block<J>(decoded..., x + 32 * J), added
// in order J = 0..7. Sub-block indices are template arguments so each sub-block's shuffles
// take immediates.
template <class K, int... J, class... Decoded>
[[gnu::always_inline]] inline __m256i sum_of_sub_blocks(std::integer_sequence<int, J...>, const int8_t* x,
                                                        const Decoded&... decoded) {
  __m256i acc = _mm256_setzero_si256();
  ((acc = _mm256_add_epi32(acc, K::template sub_block<J>(decoded..., x + 32 * J))), ...);
  return acc;
}
constexpr std::make_integer_sequence<int, 8> kSubBlocks{};

struct IQ3S {
  using Block = BlockIQ3_S;
  static constexpr int kFactorInverse = 1;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    return sum_of_sub_blocks<IQ3S>(kSubBlocks, x, iq3s_parts(b));
  }
  template <int J>
  [[gnu::always_inline]] static __m256i sub_block(const Iq3sParts& p, const int8_t* x) {
    const __m256i xs = negate_where(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), iq3s_negative<J>(p));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(iq3s_magnitudes<J>(p), xs), iq3s_scale<J>(p));
  }
};

// Per 7-bit sign set, the 8 bytes (+1 or -1) its full set (parity bit added) multiplies
// elements by: _mm256_sign_epi8 operands, four sets per 64-bit gather.
struct SignMultipliers {
  int64_t set[128];
};
constexpr SignMultipliers kSignMultipliers = [] {
  SignMultipliers t{};
  for (uint32_t i = 0; i < 128; ++i) {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) {
      v |= static_cast<uint64_t>(((iq::sign_set_from7(i) >> k) & 1) != 0 ? 0xff : 0x01) << (8 * k);
    }
    t.set[i] = static_cast<int64_t>(v);
  }
  return t;
}();

// The 32 sign multipliers of the four 7-bit sign sets at bits 0, 7, 14, 21 of aux. Scalar
// loads into a vector: on the AMD Zen 5 this was measured on, a gather of four is slower.
[[gnu::always_inline]] inline __m256i sign_multipliers(uint32_t aux) {
  const int64_t* m = kSignMultipliers.set;
  return _mm256_set_epi64x(m[(aux >> 21) & 127], m[(aux >> 14) & 127], m[(aux >> 7) & 127], m[aux & 127]);
}

// Sub-block j's low scale in the low 128 bits, its high scale in the high ones.
[[gnu::always_inline]] inline __m256i split_scale_of(__m256i half_scales, int j) {
  const __m256i both = _mm256_permute2x128_si256(half_scales, half_scales, 0x00);  // low scales in both lanes
  const __m256i lo_hi = _mm256_blend_epi32(both, _mm256_permute2x128_si256(half_scales, half_scales, 0x11), 0xf0);
  return _mm256_shuffle_epi8(lo_hi, _mm256_set1_epi16(static_cast<int16_t>((2 * j) | ((2 * j + 1) << 8))));
}

[[gnu::always_inline]] inline __m256i load_x(const int8_t* x) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
}

// Byte 4d + g of each 128-bit lane of v in the 8 bytes of group g (elements 8g..8g+7). Both
// lanes hold the same 16 bytes, so one in-lane shuffle spreads them (a lane-crossing permute
// first cost 10% of an IQ2_XS super-block).
[[gnu::always_inline]] inline __m256i group_bytes_in_lanes(__m256i v, int d) {
  const char b = static_cast<char>(4 * d);
  const char c = static_cast<char>(b + 1), e = static_cast<char>(b + 2), f = static_cast<char>(b + 3);
  return _mm256_shuffle_epi8(v, _mm256_setr_epi8(b, b, b, b, b, b, b, b, c, c, c, c, c, c, c, c,
                                                 e, e, e, e, e, e, e, e, f, f, f, f, f, f, f, f));
}

// IQ3_XXS: the aux words' signs and scales decoded a super-block at a time, and the sign masks
// negating the activation codes (avx2_iq_xxs_decode.h).
struct IQ3XXS {
  using Block = BlockIQ3_XXS;
  static constexpr int kFactorInverse = 4;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    return sum_of_sub_blocks<IQ3XXS>(kSubBlocks, x, b, iq3xxs_aux(b));
  }
  template <int J>
  [[gnu::always_inline]] static __m256i sub_block(const Block& b, const XxsAux& aux, const int8_t* x) {
    const __m256i xs = negate_where(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), xxs_negative<J>(aux));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(iq3xxs_magnitudes<J>(b), xs), xxs_scale<J>(aux));
  }
};

// The IQ2 kernels' step for one sub-block: magnitudes w, sign multipliers, its x and scale.
[[gnu::always_inline]] inline __m256i iq2_sub_block(__m256i w, __m256i signs, const int8_t* x, __m256i scale) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(w, _mm256_sign_epi8(load_x(x), signs)), scale);
}

struct IQ2XXS {
  using Block = BlockIQ2_XXS;
  static constexpr int kFactorInverse = 8;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    return sum_of_sub_blocks<IQ2XXS>(kSubBlocks, x, b, iq2xxs_aux(b));
  }
  // Even sub-blocks take sign multipliers from the table and the scale by scalar steps,
  // odd ones both from the vector-decoded aux words: the two ways load different execution
  // units (scalar and load ports, vector ALUs); mixed, 1.03x faster than either alone.
  template <int J>
  [[gnu::always_inline]] static __m256i sub_block(const Block& b, const XxsAux& aux, const int8_t* x) {
    const __m256i w = iq2xxs_magnitudes<J>(b);
    if constexpr (J % 2 == 0) {
      const uint32_t word = load_as<uint32_t>(b.qs + 4 * J + 2);
      const __m256i scale = _mm256_set1_epi16(static_cast<int16_t>(2 * (word >> 28) + 1));
      return iq2_sub_block(w, sign_multipliers(word), x, scale);
    } else {
      const __m256i xs = negate_where(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), xxs_negative<J>(aux));
      return _mm256_madd_epi16(_mm256_maddubs_epi16(w, xs), xxs_scale<J>(aux));
    }
  }
};

// IQ2_XS and IQ2_S: a super-block's sign bytes and scales decoded once (avx2_iq2_decode.h),
// the sign masks negating the activation codes.
template <class Block, class Derived>
struct Iq2Row {
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    return sum_of_sub_blocks<Iq2Row>(kSubBlocks, x, b, Derived::parts(b));
  }
  template <int J>
  [[gnu::always_inline]] static __m256i sub_block(const Block& b, const Iq2Parts& p, const int8_t* x) {
    const __m256i xs = negate_where(load_x(x), iq2_negative<J>(p));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(Derived::template magnitudes<J>(b), xs), iq2_scale<J>(p));
  }
};

struct IQ2XS : Iq2Row<BlockIQ2_XS, IQ2XS> {
  using Block = BlockIQ2_XS;
  static constexpr int kFactorInverse = 8;
  [[gnu::always_inline]] static Iq2Parts parts(const Block& b) { return iq2xs_parts(b); }
  template <int J>
  [[gnu::always_inline]] static __m256i magnitudes(const Block& b) { return iq2xs_magnitudes<J>(b); }
};

struct IQ2S : Iq2Row<BlockIQ2_S, IQ2S> {
  using Block = BlockIQ2_S;
  static constexpr int kFactorInverse = 8;
  [[gnu::always_inline]] static Iq2Parts parts(const Block& b) { return iq2s_parts(b); }
  template <int J>
  [[gnu::always_inline]] static __m256i magnitudes(const Block& b) { return iq2s_magnitudes<J>(b); }
};

// IQ1_S / IQ1_M: weights 8 * g + shift for grid bytes g in {-1, 0, 1} and a group's shift
// +1 or -1 (the format's +-1/8, times 8); never 0, so maddubs takes |w| and the codes carry
// w's sign, as in the tiled kernels.
[[gnu::always_inline]] inline __m256i iq1_sub_block(__m256i g, __m256i shift, const int8_t* x, __m256i scale) {
  const __m256i w = _mm256_add_epi8(_mm256_sign_epi8(_mm256_set1_epi8(8), g), shift);
  return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(w), _mm256_sign_epi8(load_x(x), w)), scale);
}

struct IQ1S {
  using Block = BlockIQ1_S;
  static constexpr int kFactorInverse = 8;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    // qh[j]: bits 0-11 the four groups' high index bits, 12-14 the scale, 15 the shift sign.
    const __m128i qh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qh));
    const __m128i ls = _mm_and_si128(_mm_srli_epi16(qh, 12), _mm_set1_epi16(7));
    const __m128i odd = _mm_add_epi16(_mm_add_epi16(ls, ls), _mm_set1_epi16(1));
    const __m128i shift = _mm_or_si128(_mm_srai_epi16(qh, 15), _mm_set1_epi8(1));  // bytes +1 or -1
    const __m256i scales = _mm256_set_m128i(odd, odd);
    const __m256i shifts = _mm256_set_m128i(shift, shift);
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const uint32_t h = b.qh[j];
      const uint8_t* q = b.qs + 4 * j;
      const __m256i g = grid64(iq::kIq1sGrid, q[0] | ((h << 8) & 0x700u), q[1] | ((h << 5) & 0x700u),
                               q[2] | ((h << 2) & 0x700u), q[3] | ((h >> 1) & 0x700u));
      acc = _mm256_add_epi32(acc, iq1_sub_block(g, word_in_lanes(shifts, j), x + 32 * j, sub_block_scale(scales, j)));
    }
    return acc;
  }
};

// IQ1_M's 16 odd scales 2 * ls + 1 (3-bit ls: sub-block j's elements 0-15 at bit 6 (j % 2)
// of scale word j / 2, 16-31 three bits higher) as int16: sub-block j's low scale in word j,
// its high one in word 8 + j.
[[gnu::always_inline]] inline __m256i iq1_m_half_scales(uint64_t packed) {
  const __m256i words = _mm256_cvtepu16_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(packed)));
  const __m256i pairs = _mm256_permutevar8x32_epi32(words, _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3));
  const __m256i per_sub_block = _mm256_srlv_epi32(pairs, _mm256_setr_epi32(0, 6, 0, 6, 0, 6, 0, 6));
  const __m256i seven = _mm256_set1_epi32(7);
  const __m256i lo = _mm256_and_si256(per_sub_block, seven);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi32(per_sub_block, 3), seven);
  // packus leaves lo 0-3, hi 0-3 | lo 4-7, hi 4-7; the qword permute orders them lo 0-7 | hi 0-7.
  const __m256i ls = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
  return _mm256_add_epi16(_mm256_add_epi16(ls, ls), _mm256_set1_epi16(1));
}

struct IQ1M {
  using Block = BlockIQ1_M;
  static constexpr int kFactorInverse = 8;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    // A nibble of qh per group of 8 (group 2i the low nibble of qh[i]): 3 high index bits and
    // the shift sign (bit 3). Spread to a byte per group: groups 0-15 (sub-blocks 0-3) in the
    // low 128-bit lane, 16-31 in the high one, then each lane to both lanes of a vector.
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.qh));
    const __m128i m = _mm_set1_epi8(0x0f);
    const __m128i lo = _mm_and_si128(raw, m), hi = _mm_and_si128(_mm_srli_epi16(raw, 4), m);
    const __m256i nibbles = _mm256_set_m128i(_mm_unpackhi_epi8(lo, hi), _mm_unpacklo_epi8(lo, hi));
    const __m256i eight = _mm256_set1_epi8(8);
    const __m256i signs =
        _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_and_si256(nibbles, eight), eight), _mm256_set1_epi8(1));
    const __m256i shifts_0123 = _mm256_permute2x128_si256(signs, signs, 0x00);
    const __m256i shifts_4567 = _mm256_permute2x128_si256(signs, signs, 0x11);
    const __m256i scales = iq1_m_half_scales(load_as<uint64_t>(b.scales));
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const uint32_t h = load_as<uint16_t>(b.qh + 2 * j);
      const uint8_t* q = b.qs + 4 * j;
      const __m256i g = grid64(iq::kIq1sGrid, q[0] | ((h << 8) & 0x700u), q[1] | ((h << 4) & 0x700u),
                               q[2] | (h & 0x700u), q[3] | ((h >> 4) & 0x700u));
      const __m256i shift = group_bytes_in_lanes(j < 4 ? shifts_0123 : shifts_4567, j % 4);
      acc = _mm256_add_epi32(acc, iq1_sub_block(g, shift, x + 32 * j, split_scale_of(scales, j)));
    }
    return acc;
  }
  // The fp16 super-block scale sits in the top nibbles of the four uint16 of scales.
  [[gnu::always_inline]] static float block_d(const Block& b) {
    const uint64_t sc = load_as<uint64_t>(b.scales);
    const auto d_bits = static_cast<uint16_t>(((sc >> 12) & 0x000f) | ((sc >> 24) & 0x00f0) | ((sc >> 36) & 0x0f00) |
                                              ((sc >> 48) & 0xf000));
    return load_fp16(&d_bits);
  }
};

}  // namespace

void matmul_iq3_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
#if defined(STRATA_KERNELS_AVX512)
  if (__builtin_cpu_supports("avx512vbmi")) return matmul_iq3_s_vbmi(args, o_begin, o_end);
#endif
  matmul_single_row(IQ3S(), args, o_begin, o_end);
}
void matmul_iq3_xxs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
#if defined(STRATA_KERNELS_AVX512)
  if (__builtin_cpu_supports("avx512vbmi")) return matmul_iq3_xxs_vbmi(args, o_begin, o_end);
#endif
  matmul_single_row(IQ3XXS(), args, o_begin, o_end);
}
void matmul_iq2_xxs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
#if defined(STRATA_KERNELS_AVX512)
  if (__builtin_cpu_supports("avx512vbmi")) return matmul_iq2_xxs_vbmi(args, o_begin, o_end);
#endif
  matmul_single_row(IQ2XXS(), args, o_begin, o_end);
}
void matmul_iq2_xs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
#if defined(STRATA_KERNELS_AVX512)
  if (__builtin_cpu_supports("avx512vbmi")) return matmul_iq2_xs_vbmi(args, o_begin, o_end);
#endif
  matmul_single_row(IQ2XS(), args, o_begin, o_end);
}
void matmul_iq2_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
#if defined(STRATA_KERNELS_AVX512)
  if (__builtin_cpu_supports("avx512vbmi")) return matmul_iq2_s_vbmi(args, o_begin, o_end);
#endif
  matmul_single_row(IQ2S(), args, o_begin, o_end);
}
void matmul_iq1_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ1S(), args, o_begin, o_end);
}
void matmul_iq1_m_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ1M(), args, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
