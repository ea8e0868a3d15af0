// Small AVX2 helpers shared by the cpu/avx2_* files (and only them: everything here
// needs AVX2/FMA/F16C). `static inline` so no copy can leak into baseline code.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace strata::kernels::cpu::STRATA_SIMD {

// Sum of the 8 lanes in a fixed tree: (l0+l4, l1+l5, l2+l6, l3+l7), then pairs, then
// the last two. Every reduction in the AVX2 kernels ends with this, so a row's result
// depends only on its lane values.
static inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline float load_fp16(const void* p) {
  uint16_t h;
  std::memcpy(&h, p, sizeof h);
  return _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
}

static inline __m256i load_256(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
static inline __m128i load_128(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

// 16 packed nibble bytes -> 32 bytes: low nibbles in the low half, high nibbles in the high half.
static inline __m256i unpack_nibbles_16(const void* p) {
  const __m128i v = load_128(p);
  const __m256i both = _mm256_set_m128i(_mm_srli_epi16(v, 4), v);
  return _mm256_and_si256(both, _mm256_set1_epi8(0x0f));
}

// acc plus the sums of u8 x s8 products over each group of 4 bytes: 8 int32 lanes. Exact
// while each adjacent pair of products fits int16 (maddubs saturates there; VNNI does
// not): true for u <= 128, |s| <= 127, which every caller guarantees (activation codes
// are in [-127, 127]). So the VNNI build gets the same lanes, bit for bit.
static inline __m256i dot_u8_s8_add(__m256i acc, __m256i u, __m256i s) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(acc, u, s);
#else
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1)));
#endif
}

static inline __m256i dot_u8_s8(__m256i u, __m256i s) {
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
  return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
#endif
}

}  // namespace strata::kernels::cpu::STRATA_SIMD

namespace strata::kernels::cpu::STRATA_SIMD {

// Floats to int8 codes the way the scalar quantisers do it, bit for bit: per block
// d = amax / 127 and codes = round-to-nearest-even(x * (1 / d)) clamped to [-127, 127]
// (NaN inputs: skipped by amax, coded -127). Also the code sums of each 16 elements.
struct Codes32 {
  __m256i codes;
  int sum_lo, sum_hi;
};

static inline int hsum_epi32(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

// Largest |x| over n floats (n a multiple of 8); max is exact, so the order is free.
static inline float abs_max(const float* x, int n) {
  const __m256 sign = _mm256_set1_ps(-0.0f);
  __m256 amax = _mm256_setzero_ps();
  for (int i = 0; i < n; i += 8) amax = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x + i)), amax);
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(amax), _mm256_extractf128_ps(amax, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  m = _mm_max_ss(m, _mm_movehdup_ps(m));
  return _mm_cvtss_f32(m);
}

static inline float inverse_scale(float d) { return d != 0.0f ? 1.0f / d : 0.0f; }

// 32 floats times id, rounded to codes.
static inline Codes32 codes32(const float* x, float inv_d) {
  const __m256 id = _mm256_set1_ps(inv_d);
  __m256i q[4];
  for (int k = 0; k < 4; ++k) {
    const __m256 r = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + 8 * k), id),
                                     _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    q[k] = _mm256_cvtps_epi32(r);  // NaN -> INT_MIN, clamped to -127 below
  }
  __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
  bytes = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  Codes32 out;
  out.codes = _mm256_max_epi8(bytes, _mm256_set1_epi8(-127));
  const __m256i ones = _mm256_set1_epi16(1);
  out.sum_lo = hsum_epi32(_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_castsi256_si128(out.codes)), ones));
  out.sum_hi = hsum_epi32(_mm256_madd_epi16(_mm256_cvtepi8_epi16(_mm256_extracti128_si256(out.codes, 1)), ones));
  return out;
}

}  // namespace strata::kernels::cpu::STRATA_SIMD

namespace strata::kernels::cpu::STRATA_SIMD {

// e^x for 8 lanes, within 2 ulp of expf for x in [-87, 88] (inputs are clamped to that
// range). 2^n from round(x / ln 2), the remainder r (|r| <= ln2 / 2) from a two-part
// ln 2, then the degree-6 Taylor polynomial of e^r (truncation error < r^7 / 7! < 2^-24).
static inline __m256 exp_ps(__m256 x) {
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.0f / 720.0f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  // Scale by 2^n: n in [-126, 127] after the clamp, so adding it to the exponent is exact.
  const __m256i e = _mm256_slli_epi32(_mm256_cvtps_epi32(n), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), e));
}

// log x for 8 lanes of positive normal x. Writing x = m 2^e with m in [sqrt(1/2), sqrt(2)) is
// integer arithmetic on the bits: x's bits less sqrt(1/2)'s hold e in the exponent field and m's
// offset from sqrt(1/2) in the mantissa field (sqrt(2)'s bits are sqrt(1/2)'s plus exactly 2^23).
// Then log m = 2 atanh(s), s = (m - 1) / (m + 1) (m - 1 exact, |s| <= 3 - 2 sqrt(2) < 0.1716),
// from the odd series through s^9 (truncation < 2 |s|^11 / 11: 2^-28 of the value), and e ln 2
// with ln 2 in two parts as in exp_ps (e times the high part is exact). s carries 2 roundings,
// the sum 2 more: measured within 2 ulp of log over every
// positive normal float (the worst just above 1).
static inline __m256 log_ps(__m256 x) {
  const __m256i sqrt_half = _mm256_set1_epi32(0x3f3504f3);
  const __m256i d = _mm256_sub_epi32(_mm256_castps_si256(x), sqrt_half);
  const __m256 e = _mm256_cvtepi32_ps(_mm256_srai_epi32(d, 23));
  const __m256 m = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_and_si256(d, _mm256_set1_epi32(0x7fffff)), sqrt_half));
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 s = _mm256_div_ps(_mm256_sub_ps(m, one), _mm256_add_ps(m, one));
  const __m256 s2 = _mm256_mul_ps(s, s);
  __m256 p = _mm256_set1_ps(2.0f / 9.0f);
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.0f / 7.0f));
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.0f / 5.0f));
  p = _mm256_fmadd_ps(p, s2, _mm256_set1_ps(2.0f / 3.0f));
  const __m256 log_m = _mm256_fmadd_ps(_mm256_mul_ps(s, s2), p, _mm256_add_ps(s, s));
  const __m256 lo = _mm256_fmadd_ps(e, _mm256_set1_ps(-2.12194440e-4f), log_m);
  return _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), lo);
}

// A query head's softmax denominator: its keys' sum, plus exp(sink - max) when the layer
// has attention sinks (AttentionArgs::sinks), with exp_ps's bits.
static inline float sum_with_sink(const float* sinks, int head, float max, float sum) {
  if (sinks == nullptr) return sum;
  return sum + _mm256_cvtss_f32(exp_ps(_mm256_set1_ps(sinks[head] - max)));
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
