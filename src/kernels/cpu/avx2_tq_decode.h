// Decoding TQ1_0 and TQ2_0 super-blocks (tensor/block_layouts.h) for the AVX2 kernels, and
// the exact integer dot product of the decoded codes with one activation row.
//
// A decoded super-block is 8 vectors of 32 codes u = t + 1 (0..2, TQ2_0's unused code 3 stays
// 3): vector c holds elements 32c..32c+31 in order, as the activation codes lie. Its dot
// product with activation codes x is 8 int32 lanes: lane k = the sum over the 8 vectors of u * x
// over elements 4k..4k+3, less the activation sum of elements 32k..32k+31 (sum16[2k] +
// sum16[2k+1]). The lanes add up to sum(t * x); TqDot gives the same lanes on every table
// (int16 pair sums on AVX2, int32 vpdpbusd dots with AVX-512 VNNI or AVX-VNNI: integer sums are
// exact, so their grouping is free). matmul_tq_test.cc's oracle spells the lanes and the float step out.
// `static inline` only (see avx2_common.h).
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cpu/avx2_common.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels::cpu::STRATA_SIMD {

static inline void tq2_codes(const BlockTQ2_0& b, __m256i (&u)[8]) {
  const __m256i mask = _mm256_set1_epi8(3);
#pragma GCC unroll 2
  for (int h = 0; h < 2; ++h) {
    const __m256i q = load_256(b.qs + 32 * h);
    u[4 * h] = _mm256_and_si256(q, mask);
    u[4 * h + 1] = _mm256_and_si256(_mm256_srli_epi16(q, 2), mask);
    u[4 * h + 2] = _mm256_and_si256(_mm256_srli_epi16(q, 4), mask);
    u[4 * h + 3] = _mm256_and_si256(_mm256_srli_epi16(q, 6), mask);
  }
}

// TQ1_0 bytes are base-3 fractions; trit n is the top trit of the byte times 3^n (mod 256).
// The bytes are kept offset by 128 (xor 0x80, signed compares below): as 3^n is odd,
// (q + 128) * 3^n = q * 3^n + 128 (mod 256), so the multiplies keep the offset.

static inline __m256i tq_times3(__m256i v) { return _mm256_add_epi8(v, _mm256_add_epi8(v, v)); }

// v + 8v; the 16-bit shift's bits that cross into the next byte are cleared.
static inline __m256i tq_times9(__m256i v) {
  return _mm256_add_epi8(v, _mm256_and_si256(_mm256_slli_epi16(v, 3), _mm256_set1_epi8(static_cast<char>(0xf8))));
}

// The top trit (3q) >> 8 of each byte q given as q - 128: 1 from q = 86, 2 from q = 171.
static inline __m256i tq_top_trit(__m256i offset) {
  const __m256i from86 = _mm256_cmpgt_epi8(offset, _mm256_set1_epi8(-43));
  const __m256i from171 = _mm256_cmpgt_epi8(offset, _mm256_set1_epi8(42));
  return _mm256_sub_epi8(_mm256_sub_epi8(_mm256_setzero_si256(), from86), from171);
}

// qh's 16 trits (element 240 + j + 4n is trit n of qh[j]) as bytes offset by 128: dword n of
// the result holds qh times 3^n.
static inline __m128i tq1_qh_powers(const BlockTQ1_0& b) {
  int32_t qh;
  std::memcpy(&qh, b.qh, sizeof qh);
  __m128i h = _mm_xor_si128(_mm_set1_epi32(qh), _mm_set1_epi8(static_cast<char>(0x80)));
  h = _mm_add_epi8(h, _mm_and_si128(_mm_add_epi8(h, h), _mm_setr_epi32(0, -1, 0, -1)));  // 1, 3, 1, 3
  const __m128i nine = _mm_setr_epi32(0, 0, static_cast<int>(0xf8f8f8f8u), static_cast<int>(0xf8f8f8f8u));
  return _mm_add_epi8(h, _mm_and_si128(_mm_slli_epi16(h, 3), nine));  // 1, 3, 9, 27
}

static inline void tq1_codes(const BlockTQ1_0& b, __m256i (&u)[8]) {
  const __m256i offset = _mm256_set1_epi8(static_cast<char>(0x80));
  // qs[0..31]: elements m + 32n, trit n of byte m.
  __m256i q = _mm256_xor_si256(load_256(b.qs), offset);
  u[0] = tq_top_trit(q);
#pragma GCC unroll 4
  for (int n = 1; n < 5; ++n) {
    q = tq_times3(q);
    u[n] = tq_top_trit(q);
  }
  // qs[32..47]: elements 160 + m + 16n, so vector 5 is trits 0 | 1, 6 is 2 | 3 and 7's low
  // half trit 4 (128-bit halves), 7's high half qh's trits.
  __m256i t = _mm256_xor_si256(_mm256_broadcastsi128_si256(load_128(b.qs + 32)), offset);
  t = _mm256_add_epi8(t, _mm256_and_si256(_mm256_add_epi8(t, t), _mm256_setr_epi64x(0, 0, -1, -1)));
  u[5] = tq_top_trit(t);
  t = tq_times9(t);
  u[6] = tq_top_trit(t);
  u[7] = tq_top_trit(_mm256_inserti128_si256(tq_times9(t), tq1_qh_powers(b), 1));
}

// One (weight row, input row) pair's integer lanes over a super-block (see the header). In an
// anonymous namespace so a build with other instructions can never share its definition. The
// empty asm after each step keeps the sum a chain: without it GCC re-associates a tile's sums
// into trees and spills every product of the super-block to the stack.
namespace {
[[gnu::always_inline]] inline void tq_hold(__m256i& v) { asm("" : "+x"(v)); }

#if (defined(__AVX512VNNI__) && defined(__AVX512VL__)) || defined(__AVXVNNI__)
struct TqDot {
  __m256i dot = _mm256_setzero_si256();
  void add(__m256i u, __m256i x) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
    dot = _mm256_dpbusd_epi32(dot, u, x);
#else
    dot = _mm256_dpbusd_avx_epi32(dot, u, x);  // the AVX2 + AVX-VNNI table's build
#endif
    tq_hold(dot);
  }
  __m256i lanes(const int16_t* sum16) const {
    return _mm256_sub_epi32(dot, _mm256_madd_epi16(load_256(sum16), _mm256_set1_epi16(1)));
  }
};
#else
// Pairs u * x are at most 2 * 3 * 127 = 762, so a super-block's 8 of them less an activation
// sum per 16 (at most 16 * 127) stay within int16 (at most 8128).
struct TqDot {
  __m256i pairs = _mm256_setzero_si256();
  void add(__m256i u, __m256i x) {
    pairs = _mm256_add_epi16(pairs, _mm256_maddubs_epi16(u, x));
    tq_hold(pairs);
  }
  __m256i lanes(const int16_t* sum16) const {
    return _mm256_madd_epi16(_mm256_sub_epi16(pairs, load_256(sum16)), _mm256_set1_epi16(1));
  }
};
#endif
}  // namespace

// The lanes of decoded codes u against the super-block's activation codes x and sums sum16.
static inline __m256i tq_lanes(const __m256i (&u)[8], const int8_t* x, const int16_t* sum16) {
  TqDot dot;
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c) dot.add(u[c], load_256(x + 32 * c));
  return dot.lanes(sum16);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
