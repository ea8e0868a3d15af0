// Single-input-row matmul (one activation row: a decode step) for the lattice i-quants on
// the AVX2 table; the AVX-512 table runs avx512_matmul_iq_vbmi.cc instead (this file's
// AVX-512 build only forwards to it).
//
// The tiled kernels of avx2_matmul_iq.cc decode a weight sub-block once and reuse it for
// every input row; with one input row there is nothing to reuse, and their per-element
// scalar index arithmetic and vector inserts cost most of a decode step. Here one
// super-block is multiplied straight into 8 int32 lanes: grid entries come from gathers of
// vector-computed indices, the sign bits negate the activation codes instead of the weights
// (shuffle + compare + xor/sub), so the unsigned grid bytes feed maddubs directly, and
// maddubs, then madd by the sub-block's odd scale, sum over the super-block. Lane k ends up
// with sum over sub-blocks j of scale_j * (elements 4k..4k+3 of j): the tiled kernels'
// int32 lanes (integer sums are exact, so their grouping is free), then their float step
// (avx2_iq_row_driver.h). Results are bit-identical to the tiled kernels and the oracle in
// matmul_simd_oracle_test.cc. Stateless; safe from any thread.
#include "kernels/cpu/avx2_matmul_iq_row.h"

#include "kernels/cpu/avx2_iq_row_driver.h"
#include "tensor/block_layouts.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::STRATA_SIMD {

#if defined(STRATA_KERNELS_AVX512)

bool matmul_iq3_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (!__builtin_cpu_supports("avx512vbmi")) return false;
  matmul_iq3_s_vbmi(args, o_begin, o_end);
  return true;
}
bool matmul_iq3_xxs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (!__builtin_cpu_supports("avx512vbmi")) return false;
  matmul_iq3_xxs_vbmi(args, o_begin, o_end);
  return true;
}
bool matmul_iq2_xxs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (!__builtin_cpu_supports("avx512vbmi")) return false;
  matmul_iq2_xxs_vbmi(args, o_begin, o_end);
  return true;
}
bool matmul_iq2_xs_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (!__builtin_cpu_supports("avx512vbmi")) return false;
  matmul_iq2_xs_vbmi(args, o_begin, o_end);
  return true;
}
bool matmul_iq2_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (!__builtin_cpu_supports("avx512vbmi")) return false;
  matmul_iq2_s_vbmi(args, o_begin, o_end);
  return true;
}

#else

namespace {

// Activation codes x (32 bytes) negated where bit e of neg is set.
[[gnu::always_inline]] inline __m256i signed_codes(const int8_t* x, uint32_t neg) {
  const __m256i bytes = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(neg)),
      _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i m = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
  return _mm256_sub_epi8(_mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), m), m);
}

// Sub-block j's int16 scale in every word, from the 8 scales of odd_scales_from_nibbles.
[[gnu::always_inline]] inline __m256i sub_block_scale(__m128i odd_scales, int j) {
  const __m128i pick = _mm_set1_epi16(static_cast<int16_t>((2 * j) | ((2 * j + 1) << 8)));
  const __m128i s = _mm_shuffle_epi8(odd_scales, pick);
  return _mm256_set_m128i(s, s);
}

struct IQ3S {
  using Block = BlockIQ3_S;
  static constexpr int kFactorInverse = 1;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i scales = odd_scales_from_nibbles(load_as<uint32_t>(b.scales));
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const int high = b.qh[j] << 8;  // index l takes bit l of qh[j] as its 9th bit
      const __m256i hi = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(high), lane), _mm256_set1_epi32(256));
      const __m256i index = _mm256_or_si256(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.qs + 8 * j))), hi);
      const __m256i grid = _mm256_i32gather_epi32(reinterpret_cast<const int*>(iq::kIq3sGrid), index, 4);
      const __m256i xs = signed_codes(x + 32 * j, load_as<uint32_t>(b.signs + 4 * j));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(grid, xs), sub_block_scale(scales, j)));
    }
    return acc;
  }
};

}  // namespace

bool matmul_iq3_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ3S(), args, o_begin, o_end);
  return true;
}
// The tiled kernel is as fast on one row here.
bool matmul_iq3_xxs_single_row(const MatmulArgs&, int64_t, int64_t) { return false; }
bool matmul_iq2_xxs_single_row(const MatmulArgs&, int64_t, int64_t) { return false; }
bool matmul_iq2_xs_single_row(const MatmulArgs&, int64_t, int64_t) { return false; }
bool matmul_iq2_s_single_row(const MatmulArgs&, int64_t, int64_t) { return false; }

#endif

}  // namespace strata::kernels::cpu::STRATA_SIMD
