// Small AVX2 helpers shared by the cpu/avx2_* files (and only them: everything here
// needs AVX2/FMA/F16C). `static inline` so no copy can leak into baseline code.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace strata::kernels::cpu::avx2 {

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

// Sum of u8 x s8 products over each group of 4 bytes: 8 int32 lanes. Exact while each
// adjacent pair of products fits int16 (no saturation): true for u <= 128, |s| <= 127,
// which every caller guarantees (activation codes are in [-127, 127]).
static inline __m256i dot_u8_s8(__m256i u, __m256i s) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), _mm256_set1_epi16(1));
}

}  // namespace strata::kernels::cpu::avx2
