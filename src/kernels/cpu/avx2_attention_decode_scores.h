// The K conversion and score passes of the padded decode path (avx2_attention_decode.cc), in
// its two lane layouts, chosen by the heads a group of score lanes holds (NH):
//   NH 8 (groups of 5-8 query heads): 8 heads x 2 keys (AVX-512: one vector; AVX2: two, heads
//        0-3 and 4-7, that share each broadcast of the keys' K values: one broadcast per two
//        multiply-adds instead of one each, 0.91-0.97x the time of the attention bench's walks
//        on a Zen 4);
//   NH 4 (groups of 3-4): 4 heads x keys_per_vec<4> keys (AVX2: 2, AVX-512: 4), so a group of
//        4 fills every lane instead of half of them (a group of 3: three quarters).
// K rows are converted into kf as groups of keys_per_vec<NH> rows interleaved dim by dim,
// kf[g][i][k] = K[g * kpv + k][i] (a missing row of the last group reads zeros), so one
// broadcast of kpv floats gives a score vector's keys at dim i; lane l holds head l / kpv,
// key l % kpv (qrep is laid out to match). Scores are stored back as p[t][kHeads] rows, heads
// past NH zero. Whatever the layout, each (head, key) score is one fused multiply-add chain
// over head_dim in index order from +0, times scale: attention_oracle.h's operations.
// Included only by avx2_attention_decode.cc.
#pragma once

#include <cstring>

#include "kernels/cpu/avx2_attention_decode_tile.h"

namespace strata::kernels::cpu::STRATA_SIMD::decode {
// Internal linkage: a template instance defined in a SIMD object must not be a symbol the
// linker can merge (isa_isolation_test.cc), and only one file includes this.
namespace {

// Heads per score vector for groups of up to 4 query heads.
constexpr int kQuadHeads = 4;

// Keys per group of score lanes when it holds NH heads (AVX2: 8-float vectors of 4 heads x 2
// keys; 8 heads take two of them).
#if defined(STRATA_KERNELS_AVX512)
template <int NH>
constexpr int keys_per_vec = kLanes / NH;
#else
template <int NH>
constexpr int keys_per_vec = 2;
#endif
static_assert(keys_per_vec<kHeads> == kKeysPerVec);

#if defined(STRATA_KERNELS_AVX512)
// Dims [i, i + 16) as floats.
template <DType T>
inline __m512 load16(const std::byte* row, int i) {
  if constexpr (T == DType::kF16) {
    return _mm512_cvtph_ps(load_256(row + 2 * i));
  } else if constexpr (T == DType::kQ8_0) {
    const auto* b = reinterpret_cast<const BlockQ8_0*>(row) + i / kQK;
    const __m512i q = _mm512_cvtepi8_epi32(load_128(b->qs + i % kQK));
    return _mm512_mul_ps(_mm512_cvtepi32_ps(q), _mm512_set1_ps(load_fp16(&b->d)));
  } else {
    return _mm512_loadu_ps(reinterpret_cast<const float*>(row) + i);
  }
}

// Dims [i, i + 16) of the next row of rows, or zeros when it is past the window's n keys.
template <DType T>
inline __m512 load16_or_zero(const std::byte* row, bool present, int i) {
  return present ? load16<T>(row, i) : _mm512_setzero_ps();
}

// kf for the window's n keys (first block b0), pairs (NH 8) or quads (NH 4) of rows interleaved.
template <DType T, int NH>
void convert_k(const Decode& D, int b0, int n, NextWindow& next) {
  constexpr int kpv = keys_per_vec<NH>;
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  const __m512i pairs_lo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
  const __m512i pairs_hi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  RowWalk rows(D, D.a->block_k, b0 * D.a->block_tokens);
  for (int g = 0; kpv * g < n; ++g) {
    const std::byte* r[kpv];
    bool present[kpv];
#pragma GCC unroll 4
    for (int k = 0; k < kpv; ++k) {
      present[k] = kpv * g + k < n;
      if (present[k]) next.key();
      r[k] = present[k] ? rows.next() : r[0];
    }
    float* dst = D.kf + static_cast<size_t>(g) * kpv * D.hd;
    for (int i = 0; i < D.hd; i += 16) {
      const __m512 a = load16<T>(r[0], i);
      const __m512 b = load16_or_zero<T>(r[1], present[1], i);
      const __m512 ab_lo = _mm512_permutex2var_ps(a, lo, b);  // a0 b0 a1 b1 ... a7 b7
      const __m512 ab_hi = _mm512_permutex2var_ps(a, hi, b);
      if constexpr (kpv == 2) {
        _mm512_storeu_ps(dst + 2 * i, ab_lo);
        _mm512_storeu_ps(dst + 2 * i + 16, ab_hi);
      } else {
        const __m512 c = load16_or_zero<T>(r[2], present[2], i);
        const __m512 d = load16_or_zero<T>(r[3], present[3], i);
        const __m512d cd_lo = _mm512_castps_pd(_mm512_permutex2var_ps(c, lo, d));
        const __m512d cd_hi = _mm512_castps_pd(_mm512_permutex2var_ps(c, hi, d));
        const __m512d ab_lo_d = _mm512_castps_pd(ab_lo), ab_hi_d = _mm512_castps_pd(ab_hi);
        _mm512_storeu_pd(dst + 4 * i, _mm512_permutex2var_pd(ab_lo_d, pairs_lo, cd_lo));  // a0 b0 c0 d0 a1 ...
        _mm512_storeu_pd(dst + 4 * i + 16, _mm512_permutex2var_pd(ab_lo_d, pairs_hi, cd_lo));
        _mm512_storeu_pd(dst + 4 * i + 32, _mm512_permutex2var_pd(ab_hi_d, pairs_lo, cd_hi));
        _mm512_storeu_pd(dst + 4 * i + 48, _mm512_permutex2var_pd(ab_hi_d, pairs_hi, cd_hi));
      }
    }
  }
}

// Key groups [g0, g0 + NP) of the window: one fused multiply-add chain per lane.
template <int NH, int NP>
void scores(const Decode& D, int g0) {
  constexpr int kpv = keys_per_vec<NH>;
  const int hd = D.hd;
  __m512 acc[NP];
#pragma GCC unroll 16
  for (int g = 0; g < NP; ++g) acc[g] = _mm512_setzero_ps();
  const float* k = D.kf + static_cast<size_t>(g0) * kpv * hd;
  for (int i = 0; i < hd; ++i) {
    const __m512 qv = _mm512_loadu_ps(D.qrep + static_cast<size_t>(i) * kLanes);
#pragma GCC unroll 16
    for (int g = 0; g < NP; ++g) {
      __m512 kv;
      if constexpr (kpv == 2) {
        double pair;  // keys 2g and 2g + 1 at dim i: one 64-bit broadcast
        std::memcpy(&pair, k + g * 2 * hd + 2 * i, sizeof pair);
        kv = _mm512_castpd_ps(_mm512_set1_pd(pair));
      } else {
        kv = _mm512_broadcast_f32x4(_mm_loadu_ps(k + g * 4 * hd + 4 * i));
      }
      acc[g] = _mm512_fmadd_ps(qv, kv, acc[g]);
    }
  }
  const __m512 scale = _mm512_set1_ps(D.a->scale);
  float* p = D.p + static_cast<size_t>(g0) * kpv * kHeads;
  if constexpr (kpv == 2) {
    const __m512i by_key = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
#pragma GCC unroll 16
    for (int g = 0; g < NP; ++g) _mm512_storeu_ps(p + g * 2 * kHeads, _mm512_permutexvar_ps(by_key, _mm512_mul_ps(acc[g], scale)));
  } else {
    // Rows of keys 4g, 4g + 1 (then 4g + 2, 4g + 3): heads 0-3, zeros for heads 4-7.
    const __m512i keys01 = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 1, 5, 9, 13, 0, 0, 0, 0);
    const __m512i keys23 = _mm512_setr_epi32(2, 6, 10, 14, 0, 0, 0, 0, 3, 7, 11, 15, 0, 0, 0, 0);
#pragma GCC unroll 16
    for (int g = 0; g < NP; ++g) {
      const __m512 s = _mm512_mul_ps(acc[g], scale);
      _mm512_storeu_ps(p + g * 4 * kHeads, _mm512_maskz_permutexvar_ps(0x0F0F, keys01, s));
      _mm512_storeu_ps(p + g * 4 * kHeads + 2 * kHeads, _mm512_maskz_permutexvar_ps(0x0F0F, keys23, s));
    }
  }
}
#else
// kf for the window's n keys (first block b0): pairs of rows interleaved.
template <DType T, int NH>
void convert_k(const Decode& D, int b0, int n, NextWindow& next) {
  RowWalk rows(D, D.a->block_k, b0 * D.a->block_tokens);
  for (int g = 0; 2 * g < n; ++g) {
    const bool second = 2 * g + 1 < n;
    next.key();
    if (second) next.key();
    const std::byte* ka = rows.next();
    const std::byte* kc = second ? rows.next() : ka;
    float* dst = D.kf + static_cast<size_t>(g) * 2 * D.hd;
    for (int i = 0; i < D.hd; i += 8) {
      const __m256 x = load8<T>(ka, i);
      const __m256 y = second ? load8<T>(kc, i) : _mm256_setzero_ps();
      const __m256 lo = _mm256_unpacklo_ps(x, y);  // x0 y0 x1 y1 | x4 y4 x5 y5
      const __m256 hi = _mm256_unpackhi_ps(x, y);  // x2 y2 x3 y3 | x6 y6 x7 y7
      _mm256_storeu_ps(dst + 2 * i, _mm256_permute2f128_ps(lo, hi, 0x20));
      _mm256_storeu_ps(dst + 2 * i + 8, _mm256_permute2f128_ps(lo, hi, 0x31));
    }
  }
}

// Key pairs [g0, g0 + NP) of the window: one fused multiply-add chain per lane, NV vectors of
// 4 heads x 2 keys per pair (NH 8: heads 0-3, then 4-7, both from one broadcast of the pair).
template <int NH, int NP>
void scores(const Decode& D, int g0) {
  constexpr int NV = NH / 4;
  const int hd = D.hd;
  __m256 acc[NP][NV];
#pragma GCC unroll 16
  for (int g = 0; g < NP; ++g) {
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) acc[g][v] = _mm256_setzero_ps();
  }
  const float* k = D.kf + static_cast<size_t>(g0) * 2 * hd;
  for (int i = 0; i < hd; ++i) {
    __m256 qv[NV];
#pragma GCC unroll 2
    for (int v = 0; v < NV; ++v) qv[v] = _mm256_loadu_ps(D.qrep + static_cast<size_t>(i) * kLanes + 8 * v);
#pragma GCC unroll 16
    for (int g = 0; g < NP; ++g) {
      const __m256 kv = _mm256_castpd_ps(_mm256_broadcast_sd(reinterpret_cast<const double*>(k + g * 2 * hd + 2 * i)));
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[g][v] = _mm256_fmadd_ps(qv[v], kv, acc[g][v]);
    }
  }
  const __m256 scale = _mm256_set1_ps(D.a->scale);
  const __m256i by_key = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  float* p = D.p + static_cast<size_t>(g0) * 2 * kHeads;
#pragma GCC unroll 16
  for (int g = 0; g < NP; ++g) {
    // Lanes (head, key) to key 0's heads then key 1's, per vector of 4 heads.
    const __m256 a = _mm256_permutevar8x32_ps(_mm256_mul_ps(acc[g][0], scale), by_key);
    __m256 b = _mm256_setzero_ps();  // heads 4-7 of a group of up to 4: zeros
    if constexpr (NV == 2) b = _mm256_permutevar8x32_ps(_mm256_mul_ps(acc[g][1], scale), by_key);
    _mm256_storeu_ps(p + g * 2 * kHeads, _mm256_permute2f128_ps(a, b, 0x20));
    _mm256_storeu_ps(p + g * 2 * kHeads + kHeads, _mm256_permute2f128_ps(a, b, 0x31));
  }
}
#endif

// Scores of the window's n keys, as p[t][kHeads] rows (the last group's missing keys too).
template <int NH>
void scores_window(const Decode& D, int n) {
  constexpr int kpv = keys_per_vec<NH>;
#if defined(STRATA_KERNELS_AVX512)
  constexpr int kMaxPass = 16;  // accumulators per pass, within the registers
#else
  constexpr int kMaxPass = NH == kHeads ? 6 : 12;  // 12 accumulators: 2 per key pair for 8 heads
#endif
  const int n_groups = (n + kpv - 1) / kpv;
  int g = 0;
  for (; g + kMaxPass <= n_groups; g += kMaxPass) scores<NH, kMaxPass>(D, g);
  if constexpr (kMaxPass > 8) {
    if (g + 8 <= n_groups) scores<NH, 8>(D, g), g += 8;
  }
  if (g + 4 <= n_groups) scores<NH, 4>(D, g), g += 4;
  if (g + 2 <= n_groups) scores<NH, 2>(D, g), g += 2;
  if (g < n_groups) scores<NH, 1>(D, g);
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD::decode
