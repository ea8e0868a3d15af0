// Decode-row attention with keys across the lanes, for a kv head with one query head
// (qwen2moe: 16 kv heads of one query head each; the code serves two as well, and
// kKeyLanesMaxGroup says which run here). Padding those to 8 heads, as
// avx2_attention_decode.cc does, would multiply the score, softmax and value work by 4-8 (the
// K/V reads alone would be the same), so here a vector holds 8 keys of one head: K is
// transposed per window, kf[i][t] = K[t][i] (row stride D.window), and p holds each head's
// scores in a row of key_row() floats. The kv heads of a call (up to kKeyLanesMaxHeads) share
// one walk over the keys, so each token's K/V row is read as one span of those heads: one
// head's 256 bytes of every 4 KB row, 16 times over, was a strided stream that DRAM served at
// half the speed. Every (head, key) and (head, dim) sees the operations attention_oracle.h
// lists, in its order. Both tables run it with 8-lane vectors (see kKeyLanesMaxGroup).
#include "kernels/cpu/avx2_attention_decode_tile.h"

#include <cmath>

#include "kernels/softcap.h"

namespace strata::kernels::cpu::STRATA_SIMD::decode {

namespace {
int key_row(const Decode& D) { return D.window + 8; }  // room for the last block's 8-key overrun

[[gnu::always_inline]] inline void transpose8(__m256* r) {
  __m256 t[8], s[8];
#pragma GCC unroll 8
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
#pragma GCC unroll 8
  for (int k = 0; k < 8; k += 4) {
    s[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
#pragma GCC unroll 8
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(s[k], s[k + 4], 0x20);
    r[k + 4] = _mm256_permute2f128_ps(s[k], s[k + 4], 0x31);
  }
}

// dst[i * stride + k] = row k's dim i, for 8 rows of hd dims.
template <DType T>
[[gnu::noinline]] void transpose_keys(const std::byte* const* r, int hd, float* dst, size_t stride) {
  for (int i = 0; i < hd; i += 8) {
    __m256 x[8];
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) x[k] = load8<T>(r[k], i);
    transpose8(x);
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) _mm256_storeu_ps(dst + static_cast<size_t>(i + k) * stride, x[k]);
  }
}

// kf[i][t] = K[t][i] for the window's n keys in groups of 8 (a missing key repeats the
// group's first: its score is never used).
template <DType T>
void convert_k_by_key(const Decode& D, int b0, int n, NextWindow& next) {
  RowWalk rows(D, D.a->block_k, b0 * D.a->block_tokens);
  for (int t0 = 0; t0 < n; t0 += 8) {
    const std::byte* r[8];
    for (int k = 0; k < 8; ++k) {
      if (t0 + k < n) next.key();
      r[k] = k == 0 || t0 + k < n ? rows.next() : r[0];
    }
    transpose_keys<T>(r, D.hd, D.kf + t0, static_cast<size_t>(D.window));
  }
}

// Head j's scores of keys [t0, t0 + 8 * NV): a fused multiply-add chain per key over head_dim.
template <int NV>
void scores_by_key(const Decode& D, int j, int t0) {
  __m256 acc[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) acc[v] = _mm256_setzero_ps();
  const float* qj = D.q + static_cast<size_t>(j) * D.hd;
  const float* k = D.kf + t0;
  for (int i = 0; i < D.hd; ++i) {
    const __m256 qv = _mm256_broadcast_ss(qj + i);
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[v] = _mm256_fmadd_ps(qv, _mm256_loadu_ps(k + static_cast<size_t>(i) * D.window + 8 * v), acc[v]);
  }
  const __m256 scale = _mm256_set1_ps(D.a->scale);
  float* p = D.p + static_cast<size_t>(j) * key_row(D) + t0;
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) _mm256_storeu_ps(p + 8 * v, _mm256_mul_ps(acc[v], scale));
}

void scores_window_by_key(const Decode& D, int j, int n) {
  const int nv = (n + 7) / 8;
  int v = 0;
  for (; v + 8 <= nv; v += 8) scores_by_key<8>(D, j, 8 * v);
  if (v + 6 <= nv) scores_by_key<6>(D, j, 8 * v), v += 6;
  if (v + 4 <= nv) scores_by_key<4>(D, j, 8 * v), v += 4;
  if (v + 2 <= nv) scores_by_key<2>(D, j, 8 * v), v += 2;
  if (v < nv) scores_by_key<1>(D, j, 8 * v);
}

// One head's softmax step for a block's scores p of keys [k0, n) (exponentials on return, and
// p = 0 for the k0 keys before them, as in softmax_block); returns the rescale. Max and sum run
// in key order; the exponentials 8 keys at a time.
float softmax_block_by_key(float* p, int k0, int n, float* max, float* sum) {
  float bm = -INFINITY;
  for (int t = k0; t < n; ++t) bm = bm > p[t] ? bm : p[t];
  const float new_max = *max > bm ? *max : bm;
  alignas(32) float e[8];
  _mm256_store_ps(e, exp_ps(_mm256_set1_ps(*max - new_max)));
  const float rescale = e[0];
  float s = *sum * rescale;
  const __m256 m = _mm256_set1_ps(new_max);
  for (int t = 0; t < k0; ++t) p[t] = 0.0f;
  for (int t = k0 / 8 * 8; t < n; t += 8) {
    _mm256_store_ps(e, exp_ps(_mm256_sub_ps(_mm256_loadu_ps(p + t), m)));
    for (int k = t < k0 ? k0 - t : 0; k < 8 && t + k < n; ++k) p[t + k] = e[k], s += e[k];
  }
  *max = new_max;
  *sum = s;
  return rescale;
}

// Heads [0, NJ), dims [d, d + 8 * NC) over the window's n keys: per block, out = out *
// rescale, then one fused multiply-add per key; out stays in registers.
template <DType T, int NJ, int NC>
void values_by_key(const Decode& D, int b0, int n, const float* rescale, int d) {
  const int bt = D.a->block_tokens;
  const size_t stride = D.a->token_stride_bytes;
  const int rest = dim_offset_rest<T>(d);
  __m256 acc[NJ][NC];
  for (int j = 0; j < NJ; ++j) {
#pragma GCC unroll 8
    for (int c = 0; c < NC; ++c) acc[j][c] = _mm256_loadu_ps(D.ob + j * D.hd + d + 8 * c);
  }
  for (int t0 = 0, b = 0; t0 < n; t0 += bt, ++b) {
    for (int j = 0; j < NJ; ++j) {
      const __m256 r = _mm256_broadcast_ss(rescale + b * kHeads + j);
#pragma GCC unroll 8
      for (int c = 0; c < NC; ++c) acc[j][c] = _mm256_mul_ps(acc[j][c], r);
    }
    const float* p = D.p + t0;
    const int nb = n - t0 < bt ? n - t0 : bt;
    const std::byte* row = row_at(D.a->block_v[b0 + b], D, 0) + dim_offset_bytes<T>(d);
    for (int t = 0; t < nb; ++t, row += stride) {
      __m256 v[NC];
#pragma GCC unroll 8
      for (int c = 0; c < NC; ++c) v[c] = load8<T>(row, rest + 8 * c);
      for (int j = 0; j < NJ; ++j) {
        const __m256 pj = _mm256_broadcast_ss(p + j * key_row(D) + t);
#pragma GCC unroll 8
        for (int c = 0; c < NC; ++c) acc[j][c] = _mm256_fmadd_ps(pj, v[c], acc[j][c]);
      }
    }
  }
  for (int j = 0; j < NJ; ++j) {
#pragma GCC unroll 8
    for (int c = 0; c < NC; ++c) _mm256_storeu_ps(D.ob + j * D.hd + d + 8 * c, acc[j][c]);
  }
}

// 8 accumulators per pass (enough chains to hide the multiply-add latency).
template <DType T, int NJ>
void values_window_by_key(const Decode& D, int b0, int n, const float* rescale) {
  constexpr int kC = 8 / NJ;
  int d = 0;
  for (; d + 8 * kC <= D.hd; d += 8 * kC) values_by_key<T, NJ, kC>(D, b0, n, rescale, d);
  if (d + 32 <= D.hd) values_by_key<T, NJ, 4>(D, b0, n, rescale, d), d += 32;
  if (d + 16 <= D.hd) values_by_key<T, NJ, 2>(D, b0, n, rescale, d), d += 16;
  if (d < D.hd) values_by_key<T, NJ, 1>(D, b0, n, rescale, d);
}

// One head's part of a window: D's head_offset, q and ob are that head's; max and sum its
// query heads' softmax state.
template <DType T>
[[gnu::always_inline]] inline void window_by_key(const Decode& D, int b0, int n_window, NextWindow& next, float* max,
                                                 float* sum) {
  const int bt = D.a->block_tokens;
  alignas(32) float rescale[kWindowKeys * kHeads];  // [block of the window][head]
  convert_k_by_key<T>(D, b0, n_window, next);
  for (int j = 0; j < D.group; ++j) scores_window_by_key(D, j, n_window);
  if (D.a->softcap > 0.0f) {  // Gemma 2: each score capped as the oracle caps it
    for (int j = 0; j < D.group; ++j) {
      float* p = D.p + static_cast<size_t>(j) * key_row(D);
      for (int t = 0; t < n_window; ++t) p[t] = softcap(p[t], D.a->softcap);
    }
  }
  for (int t0 = 0, b = 0; t0 < n_window; t0 += bt, ++b) {
    const int n = n_window - t0 < bt ? n_window - t0 : bt;
    const int k0 = b0 + b == 0 ? D.first_key : 0;
    for (int j = 0; j < D.group; ++j) {
      rescale[b * kHeads + j] = softmax_block_by_key(D.p + j * key_row(D) + t0, k0, n, &max[j], &sum[j]);
    }
  }
  if (D.group == 1) values_window_by_key<T, 1>(D, b0, n_window, rescale);
  else values_window_by_key<T, 2>(D, b0, n_window, rescale);
}

template <DType T>
void attend_keys(const Decode& span, const float* q, float* out, int first_kv, int n_tokens) {
  const int n_kv = span.span_heads;
  const size_t head_bytes = kv_head_bytes(span.a->kv_type, span.hd);
  const size_t head_floats = static_cast<size_t>(span.group) * span.hd;
  float max[kKeyLanesMaxHeads][2];  // per kv head, per query head (at most 2)
  float sum[kKeyLanesMaxHeads][2];
  for (int h = 0; h < n_kv; ++h) {
    max[h][0] = max[h][1] = -INFINITY;
    sum[h][0] = sum[h][1] = 0.0f;
  }
  float* out0 = out + static_cast<size_t>(first_kv) * head_floats;
  for (size_t i = 0; i < n_kv * head_floats; ++i) out0[i] = 0.0f;
  Decode D = span;  // the head being walked
  for_each_window(span, n_tokens, [&](int b0, int n_window, NextWindow& next) [[gnu::always_inline]] {
    for (int h = 0; h < n_kv; ++h) {
      D.head_offset = span.head_offset + h * head_bytes;
      D.q = q + (first_kv + h) * head_floats;
      D.ob = out0 + h * head_floats;
      window_by_key<T>(D, b0, n_window, next, max[h], sum[h]);
    }
  });
  for (int h = 0; h < n_kv; ++h) {
    D.ob = out0 + h * head_floats;
    divide_by_sums(D, sum[h], max[h], (first_kv + h) * D.group, D.group);
  }
}

}  // namespace

void attend_by_key(const Decode& D, const float* q, float* out, int first_kv, int n_tokens) {
  switch (D.a->kv_type) {
    case DType::kF16: attend_keys<DType::kF16>(D, q, out, first_kv, n_tokens); break;
    case DType::kQ8_0: attend_keys<DType::kQ8_0>(D, q, out, first_kv, n_tokens); break;
    default: attend_keys<DType::kF32>(D, q, out, first_kv, n_tokens); break;
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD::decode
