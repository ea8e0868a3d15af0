// The AVX-512 table's 16-lane score and value steps of the prompt tile (avx2_attention.cc;
// layout in avx2_attention_tile.h). Built only into the AVX-512 table. Each row-head gets
// the float operations of attention_oracle.h, as on the 8-lane path, so both tables give
// the same bits:
//   softmax 16 row-heads across the lanes, exp_ps's operations on 16 lanes;
//   scores  16 row-heads across the lanes, each lane a chain of fused multiply-adds over
//           head_dim in index order, times scale;
//   values  16 dims per vector, 4 row-heads with the same keys per pass (16 chains, each V
//           vector loaded once for the 4), per block out * rescale then one multiply-add per
//           key.
#include <immintrin.h>

#include <cmath>

#include "kernels/cpu/avx2_attention_tile.h"

// GCC 12 reports its own AVX-512 intrinsics (their deliberately undefined pass-through
// operand) as (maybe-)uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace strata::kernels::cpu::avx512 {

namespace {

static_assert(kGroupLanes == 16, "built only into the AVX-512 table");

// Scores of NK keys (K rows at k, head_dim apart) for NG lane groups; qt and s point at the
// first group's query rows and at its score row of the first key.
template <int NG, int NK>
void scores_pass(const Tile& T, const float* qt, const float* k, float* s) {
  const int hd = T.a->head_dim;
  __m512 acc[NG][NK];
#pragma GCC unroll 16
  for (int g = 0; g < NG; ++g) {
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) acc[g][t] = _mm512_setzero_ps();
  }
  for (int i = 0; i < hd; ++i) {
    __m512 qv[NG];
#pragma GCC unroll 16
    for (int g = 0; g < NG; ++g) qv[g] = _mm512_loadu_ps(qt + static_cast<size_t>(g) * 16 * hd + 16 * i);
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) {
      const __m512 kb = _mm512_set1_ps(k[t * hd + i]);
#pragma GCC unroll 16
      for (int g = 0; g < NG; ++g) acc[g][t] = _mm512_fmadd_ps(qv[g], kb, acc[g][t]);
    }
  }
  const __m512 scale = _mm512_set1_ps(T.a->scale);
#pragma GCC unroll 16
  for (int g = 0; g < NG; ++g) {
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) {
      _mm512_storeu_ps(s + static_cast<size_t>(g) * 16 * T.w_pad + 16 * t, _mm512_mul_ps(acc[g][t], scale));
    }
  }
}

// NG lane groups from group g0 over the first n keys: 16 accumulators per pass, then 4
// keys, then single keys.
template <int NG>
void scores_groups(const Tile& T, int g0, int n) {
  constexpr int kKeys = 16 / NG;
  const int hd = T.a->head_dim;
  const float* qt = T.qt + qt_index(T, 0, 16 * g0);
  float* s = T.s + s_index(T, 0, 16 * g0);
  int t = 0;
  for (; t + kKeys <= n; t += kKeys) scores_pass<NG, kKeys>(T, qt, T.kf + t * hd, s + 16 * t);
  if (kKeys > 4 && t + 4 <= n) {
    scores_pass<NG, 4>(T, qt, T.kf + t * hd, s + 16 * t);
    t += 4;
  }
  for (; t < n; ++t) scores_pass<NG, 1>(T, qt, T.kf + t * hd, s + 16 * t);
}

// Row-heads j .. j + R - 1, dims [d0, d0 + 16 * ND), over the window's first n_blocks blocks
// (all R have the same key counts in each block).
template <int R, int ND>
void values_pass(const Tile& T, int j, int n_blocks, int d0) {
  const int hd = T.a->head_dim;
  float* o[R];
  __m512 acc[R][ND];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    o[r] = row_head_out(T, j + r) + d0;
#pragma GCC unroll 16
    for (int d = 0; d < ND; ++d) acc[r][d] = _mm512_loadu_ps(o[r] + 16 * d);
  }
  for (int bi = 0; bi < n_blocks; ++bi) {
    const size_t at = static_cast<size_t>(bi) * T.rh_pad + j;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 rescale = _mm512_set1_ps(T.rescale[at + r]);
#pragma GCC unroll 16
      for (int d = 0; d < ND; ++d) acc[r][d] = _mm512_mul_ps(acc[r][d], rescale);
    }
    const int n = static_cast<int>(T.n_keys[at]);
    const float* v = T.vf + static_cast<size_t>(bi) * T.bt * hd + d0;
    const float* p = T.s + s_index(T, bi * T.bt, j);  // key t's at p + 16 * t
    for (int t = 0; t < n; ++t, v += hd, p += 16) {
      __m512 vv[ND];
#pragma GCC unroll 16
      for (int d = 0; d < ND; ++d) vv[d] = _mm512_loadu_ps(v + 16 * d);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const __m512 pb = _mm512_set1_ps(p[r]);
#pragma GCC unroll 16
        for (int d = 0; d < ND; ++d) acc[r][d] = _mm512_fmadd_ps(pb, vv[d], acc[r][d]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int d = 0; d < ND; ++d) _mm512_storeu_ps(o[r] + 16 * d, acc[r][d]);
  }
}

template <int R>
void values_rows(const Tile& T, int j, int n_blocks) {
  const int hd = T.a->head_dim;
  int d = 0;
  for (; d + 64 <= hd; d += 64) values_pass<R, 4>(T, j, n_blocks, d);
  for (; d < hd; d += 16) values_pass<R, 1>(T, j, n_blocks, d);
}

// exp_ps of avx2_common.h on 16 lanes: the same operations in the same order, so each
// lane's bits are exp_ps's.
__m512 exp16(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.0f / 720.0f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  const __m512i e = _mm512_slli_epi32(_mm512_cvtps_epi32(n), 23);
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), e));
}

// Blocks of the window row-head j has keys in (its keys are a prefix of the window).
int row_head_blocks(const Tile& T, int j, int n_blocks) {
  int nb = 0;
  while (nb < n_blocks && T.n_keys[static_cast<size_t>(nb) * T.rh_pad + j] > 0.0f) ++nb;
  return nb;
}

}  // namespace

void tile_softmax_block_512(const Tile& T, int bi, int n) {
  const int t0 = bi * T.bt;
  for (int j0 = 0; j0 < T.rh_pad; j0 += 16) {
    const __m512 n_keys = _mm512_loadu_ps(T.n_keys + static_cast<size_t>(bi) * T.rh_pad + j0);
    const __mmask16 active = _mm512_cmp_ps_mask(n_keys, _mm512_setzero_ps(), _CMP_GT_OQ);
    const __m512 old_max = _mm512_loadu_ps(T.max + j0);
    // Every lane has all n keys: every key's mask would be all ones.
    const bool full = _mm512_cmp_ps_mask(n_keys, _mm512_set1_ps(static_cast<float>(n)), _CMP_EQ_OQ) == 0xffff;
    __m512 bm = _mm512_set1_ps(-INFINITY);
    for (int t = 0; t < n; ++t) {
      const __m512 st = _mm512_loadu_ps(T.s + s_index(T, t0 + t, j0));
      const __mmask16 valid =
          full ? __mmask16{0xffff} : _mm512_cmp_ps_mask(_mm512_set1_ps(static_cast<float>(t)), n_keys, _CMP_LT_OQ);
      bm = _mm512_mask_max_ps(bm, valid, bm, st);
    }
    const __m512 new_max = _mm512_max_ps(old_max, bm);
    const __m512 rescale = exp16(_mm512_sub_ps(old_max, new_max));
    const __m512 old_sum = _mm512_loadu_ps(T.sum + j0);
    __m512 sum = _mm512_mul_ps(old_sum, rescale);
    for (int t = 0; t < n; ++t) {
      float* st = T.s + s_index(T, t0 + t, j0);
      const __m512 p = exp16(_mm512_sub_ps(_mm512_loadu_ps(st), new_max));
      _mm512_storeu_ps(st, p);
      const __mmask16 valid =
          full ? __mmask16{0xffff} : _mm512_cmp_ps_mask(_mm512_set1_ps(static_cast<float>(t)), n_keys, _CMP_LT_OQ);
      sum = _mm512_mask_add_ps(sum, valid, sum, p);
    }
    _mm512_storeu_ps(T.max + j0, _mm512_mask_blend_ps(active, old_max, new_max));
    _mm512_storeu_ps(T.sum + j0, _mm512_mask_blend_ps(active, old_sum, sum));
    _mm512_storeu_ps(T.rescale + static_cast<size_t>(bi) * T.rh_pad + j0, rescale);
  }
}

void tile_scores_query_lanes_512(const Tile& T, int n) {
  const int n_groups = T.rh_pad / 16;
  int g = 0;
  for (; g + 4 <= n_groups; g += 4) scores_groups<4>(T, g, n);
  for (; g + 2 <= n_groups; g += 2) scores_groups<2>(T, g, n);
  for (; g < n_groups; ++g) scores_groups<1>(T, g, n);
}

void tile_values_window_512(const Tile& T, int n_blocks) {
  constexpr int kRows = 4;  // a multiple of 4 row-heads: their p sit side by side in s
  for (int j = 0; j < T.n_rh; j += kRows) {
    // Four row-heads together when they have the same keys in every block (heads of one
    // row always; heads of different rows except near the chunk's end).
    bool same = j + kRows <= T.n_rh;
    for (int bi = 0; same && bi < n_blocks; ++bi) {
      const float* n_keys = T.n_keys + static_cast<size_t>(bi) * T.rh_pad + j;
      for (int r = 1; r < kRows; ++r) same = same && n_keys[r] == n_keys[0];
    }
    if (same) {
      const int nb = row_head_blocks(T, j, n_blocks);
      if (nb > 0) values_rows<kRows>(T, j, nb);
      continue;
    }
    for (int r = j; r < j + kRows && r < T.n_rh; ++r) {
      const int nb = row_head_blocks(T, r, n_blocks);
      if (nb > 0) values_rows<1>(T, r, nb);
    }
  }
}

}  // namespace strata::kernels::cpu::avx512
