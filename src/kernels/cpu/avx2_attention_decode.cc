// Decode-row attention (see avx2_attention_decode.h), for the (up to 8) query heads of one
// kv head, padded to 8 "heads" (the padding heads have zero queries and are never written
// out). Scores do not depend on the softmax, so they are computed for a window of whole
// K/V blocks at a time (kWindowKeys; more independent multiply-add chains per pass), then
// each block of the window takes its softmax and value steps in order:
//   K rows   converted to floats into kf, a score vector's keys interleaved so one broadcast
//            gives them (avx2_attention_decode_scores.h: 8 heads x 2 keys, on AVX2 as two
//            vectors; a group of up to 4 query heads takes 4 heads x 2 keys, x 4 on AVX-512);
//   scores   a fused multiply-add chain per (head, key) over head_dim in index order, times
//            scale, stored as p[t][head] (12 vectors per pass on AVX2, 16 on AVX-512);
//   softmax  per block, 8 heads per vector: block max, rescale, exponentials and the running
//            sum in key order;
//   values   per block, out = out * rescale, then one fused multiply-add per key in key
//            order, V rows converted in registers (AVX2: 4 heads x 24 dims per pass,
//            AVX-512: 8 heads x 32 dims, or 4 x 64 for a group of up to 4; the padding heads
//            past the group are skipped), out held in registers across the window's blocks
//            (the softmax of every block of the window runs first, keeping each rescale).
// The kv heads of a call (up to kAttentionDecodeMaxHeads) share one walk over the windows:
// within a window each head in turn converts its K part, scores, and folds its blocks and
// values, with its own replicated queries, running outputs, max and sum; a token's K/V rows
// are then read as one span of those heads instead of one strided pass per head.
// While a window's K rows convert, the next window's K and V rows (the span's part of each)
// are prefetched, a head's part per converted key. A kv head with one query head runs
// avx2_attention_decode_keys.cc instead.
// Every (head, key) and (head, dim) sees exactly the operations attention_oracle.h lists;
// the lane layout only decides which of them run side by side.
#include "kernels/cpu/avx2_attention_decode.h"

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as (maybe-)uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cmath>
#include <cstring>

#include "kernels/cpu/avx2_attention_decode_scores.h"
#include "kernels/cpu/avx2_attention_decode_tile.h"
#include "kernels/softcap.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

using namespace decode;

#if defined(STRATA_KERNELS_AVX512)
// Heads [0, NJ), dims [d, d + 16 * ND) over the window's n keys (first block b0): per block,
// out = out * rescale[block][j], then one fused multiply-add per key; out stays in registers.
template <DType T, int NJ, int ND>
void values_dims(const Decode& D, int b0, int n, const float* rescale, int d) {
  const int bt = D.a->block_tokens;
  const size_t stride = D.a->token_stride_bytes;
  const int rest = dim_offset_rest<T>(d);
  __m512 acc[NJ][ND];
#pragma GCC unroll 16
  for (int j = 0; j < NJ; ++j) {
#pragma GCC unroll 4
    for (int c = 0; c < ND; ++c) acc[j][c] = _mm512_loadu_ps(D.ob + j * D.hd + d + 16 * c);
  }
  for (int t0 = 0, b = 0; t0 < n; t0 += bt, ++b) {
#pragma GCC unroll 16
    for (int j = 0; j < NJ; ++j) {
      const __m512 r = _mm512_set1_ps(rescale[b * kHeads + j]);
#pragma GCC unroll 4
      for (int c = 0; c < ND; ++c) acc[j][c] = _mm512_mul_ps(acc[j][c], r);
    }
    const float* p = D.p + t0 * kHeads;
    const int nb = n - t0 < bt ? n - t0 : bt;
    const std::byte* row = row_at(D.a->block_v[b0 + b], D, 0) + dim_offset_bytes<T>(d);
    for (int t = 0; t < nb; ++t, row += stride) {
      __m512 v[ND];
#pragma GCC unroll 4
      for (int c = 0; c < ND; ++c) v[c] = load16<T>(row, rest + 16 * c);
#pragma GCC unroll 16
      for (int j = 0; j < NJ; ++j) {
        const __m512 pj = _mm512_set1_ps(p[t * kHeads + j]);
#pragma GCC unroll 4
        for (int c = 0; c < ND; ++c) acc[j][c] = _mm512_fmadd_ps(pj, v[c], acc[j][c]);
      }
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < NJ; ++j) {
#pragma GCC unroll 4
    for (int c = 0; c < ND; ++c) _mm512_storeu_ps(D.ob + j * D.hd + d + 16 * c, acc[j][c]);
  }
}

// A group of up to 4 query heads leaves the padding heads out (their outputs are never
// read): 4 heads x 64 dims per pass, 16 accumulators either way.
template <DType T>
void values_window(const Decode& D, int b0, int n, const float* rescale) {
  int d = 0;
  if (D.group <= 4) {
    for (; d + 64 <= D.hd; d += 64) values_dims<T, 4, 4>(D, b0, n, rescale, d);
    if (d + 32 <= D.hd) values_dims<T, 4, 2>(D, b0, n, rescale, d), d += 32;
    if (d < D.hd) values_dims<T, 4, 1>(D, b0, n, rescale, d);
    return;
  }
  for (; d + 32 <= D.hd; d += 32) values_dims<T, kHeads, 2>(D, b0, n, rescale, d);
  if (d < D.hd) values_dims<T, kHeads, 1>(D, b0, n, rescale, d);
}
#else
// Heads [j0, j0 + 4), dims [d, d + 8 * NC), over the window's n keys (first block b0): per
// block, out = out * rescale[block][j], then one fused multiply-add per key; out stays in
// registers (12 accumulators when NC is 3: enough chains to hide the latency).
template <DType T, int NC>
void values_dims(const Decode& D, int b0, int n, const float* rescale, int j0, int d) {
  constexpr int kJ = 4;
  const int bt = D.a->block_tokens;
  const size_t stride = D.a->token_stride_bytes;
  const int rest = dim_offset_rest<T>(d);
  __m256 acc[kJ][NC];
#pragma GCC unroll 4
  for (int j = 0; j < kJ; ++j) {
#pragma GCC unroll 4
    for (int c = 0; c < NC; ++c) acc[j][c] = _mm256_loadu_ps(D.ob + (j0 + j) * D.hd + d + 8 * c);
  }
  for (int t0 = 0, b = 0; t0 < n; t0 += bt, ++b) {
#pragma GCC unroll 4
    for (int j = 0; j < kJ; ++j) {
      const __m256 r = _mm256_broadcast_ss(rescale + b * kHeads + j0 + j);
#pragma GCC unroll 4
      for (int c = 0; c < NC; ++c) acc[j][c] = _mm256_mul_ps(acc[j][c], r);
    }
    const float* p = D.p + t0 * kHeads + j0;
    const int nb = n - t0 < bt ? n - t0 : bt;
    const std::byte* row = row_at(D.a->block_v[b0 + b], D, 0) + dim_offset_bytes<T>(d);
    for (int t = 0; t < nb; ++t, row += stride) {
      __m256 v[NC];
#pragma GCC unroll 4
      for (int c = 0; c < NC; ++c) v[c] = load8<T>(row, rest + 8 * c);
#pragma GCC unroll 4
      for (int j = 0; j < kJ; ++j) {
        const __m256 pj = _mm256_broadcast_ss(p + t * kHeads + j);
#pragma GCC unroll 4
        for (int c = 0; c < NC; ++c) acc[j][c] = _mm256_fmadd_ps(pj, v[c], acc[j][c]);
      }
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < kJ; ++j) {
#pragma GCC unroll 4
    for (int c = 0; c < NC; ++c) _mm256_storeu_ps(D.ob + (j0 + j) * D.hd + d + 8 * c, acc[j][c]);
  }
}

// Heads 4 at a time, up to the group's last (the padding heads' outputs are never read).
template <DType T>
void values_window(const Decode& D, int b0, int n, const float* rescale) {
  for (int j0 = 0; j0 < D.group; j0 += 4) {
    int d = 0;
    for (; d + 24 <= D.hd; d += 24) values_dims<T, 3>(D, b0, n, rescale, j0, d);
    if (d + 16 <= D.hd) values_dims<T, 2>(D, b0, n, rescale, j0, d), d += 16;
    if (d < D.hd) values_dims<T, 1>(D, b0, n, rescale, j0, d);
  }
}
#endif

// The block's softmax step for its keys [k0, n) (8 heads per vector); returns the rescale.
// The k0 keys before them (a window starting inside the block) get p = 0, so the value step's
// multiply-adds leave the outputs, still +0 there, as they are: the operations of a block of
// the n - k0 keys alone.
__m256 softmax_block(float* p, int k0, int n, __m256* max, __m256* sum) {
  __m256 bm = _mm256_set1_ps(-INFINITY);
  for (int t = k0; t < n; ++t) bm = _mm256_max_ps(bm, _mm256_loadu_ps(p + t * kHeads));
  const __m256 new_max = _mm256_max_ps(*max, bm);
  const __m256 rescale = exp_ps(_mm256_sub_ps(*max, new_max));
  __m256 s = _mm256_mul_ps(*sum, rescale);
  for (int t = 0; t < k0; ++t) _mm256_storeu_ps(p + t * kHeads, _mm256_setzero_ps());
  for (int t = k0; t < n; ++t) {
    float* pt = p + t * kHeads;
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(pt), new_max));
    _mm256_storeu_ps(pt, e);
    s = _mm256_add_ps(s, e);
  }
  *max = new_max;
  *sum = s;
  return rescale;
}

// Head h's replicated queries and running outputs in a span's scratch (make_decode).
float* qrep_of(const Decode& span, int h) { return span.qrep + static_cast<size_t>(h) * span.hd * kLanes; }
float* ob_of(const Decode& span, int h) { return span.ob + static_cast<size_t>(h) * kHeads * span.hd; }

// One head's part of a window: D's head_offset, qrep and ob are that head's, max and sum its
// softmax state (8 heads per vector). The operations of a walk of that head alone.
template <DType T, int NH>
[[gnu::always_inline]] inline void window_padded(const Decode& D, int b0, int n_window, NextWindow& next, __m256* max,
                                                 __m256* sum) {
  const int bt = D.a->block_tokens;
  alignas(32) float rescale[kWindowKeys * kHeads];  // per block of the window (<= kWindowKeys blocks)
  convert_k<T, NH>(D, b0, n_window, next);
  scores_window<NH>(D, n_window);
  if (D.a->softcap > 0.0f) {  // Gemma 2: each score capped as the oracle caps it
    for (int i = 0; i < n_window * kHeads; ++i) D.p[i] = softcap(D.p[i], D.a->softcap);
  }
  for (int t0 = 0, b = 0; t0 < n_window; t0 += bt, ++b) {
    const int n = n_window - t0 < bt ? n_window - t0 : bt;
    const int k0 = b0 + b == 0 ? D.first_key : 0;
    _mm256_store_ps(rescale + b * kHeads, softmax_block(D.p + t0 * kHeads, k0, n, max, sum));
  }
  values_window<T>(D, b0, n_window, rescale);
}

// The span's D.span_heads kv heads in one walk over the keys: window by window, each head
// converts its K part, scores, folds its blocks and values in turn, so each token's K/V rows
// are read as one span of those heads (the prefetcher asks for it in address order) instead
// of one strided pass over the cache per head.
template <DType T, int NH>
void attend(const Decode& span, int n_tokens) {
  const int n_kv = span.span_heads;
  const size_t head_bytes = kv_head_bytes(span.a->kv_type, span.hd);
  __m256 max[kAttentionDecodeMaxHeads], sum[kAttentionDecodeMaxHeads];
  for (int h = 0; h < n_kv; ++h) max[h] = _mm256_set1_ps(-INFINITY), sum[h] = _mm256_setzero_ps();
  Decode D = span;  // the head being walked
  for_each_window(span, n_tokens, [&](int b0, int n_window, NextWindow& next) [[gnu::always_inline]] {
    for (int h = 0; h < n_kv; ++h) {
      D.head_offset = span.head_offset + h * head_bytes;
      D.qrep = qrep_of(span, h);
      D.ob = ob_of(span, h);
      window_padded<T, NH>(D, b0, n_window, next, &max[h], &sum[h]);
    }
  });
  for (int h = 0; h < n_kv; ++h) {
    alignas(32) float sums[kHeads], maxes[kHeads];
    _mm256_store_ps(sums, sum[h]);
    _mm256_store_ps(maxes, max[h]);
    D.ob = ob_of(span, h);
    divide_by_sums(D, sums, maxes, (span.kv + h) * D.group, D.group);
  }
}

}  // namespace

bool attention_decode_fits(const AttentionArgs& a) {
  const int group = a.n_head / a.n_head_kv;
  const bool type_ok = a.kv_type == DType::kF16 || a.kv_type == DType::kQ8_0 || a.kv_type == DType::kF32;
  return a.n_rows == 1 && group <= kHeads && a.head_dim % kDimStep == 0 && type_ok;
}

namespace {

// D for kv heads from kv (its queries for the first), on scratch: n_padded heads' replicated
// queries and running outputs (none for the key lanes, whose outputs are out's rows), then
// the shared window of converted K rows and scores.
Decode make_decode(const AttentionArgs& a, const float* q, float* scratch, int kv, int n_padded) {
  Decode D;
  D.a = &a;
  D.hd = a.head_dim;
  D.group = a.n_head / a.n_head_kv;
  D.head_offset = static_cast<size_t>(kv) * kv_head_bytes(a.kv_type, a.head_dim);
  D.kv = kv;
  D.span_heads = 1;
  const size_t hd = static_cast<size_t>(a.head_dim);
  const size_t t_pad = (static_cast<size_t>(a.block_tokens) + 7) / 8 * 8;
  const size_t window = t_pad > kAttentionDecodeWindowKeys ? t_pad : kAttentionDecodeWindowKeys;
  D.qrep = scratch;
  D.ob = D.qrep + n_padded * hd * kLanes;
  D.kf = D.ob + n_padded * kHeads * hd;
  D.p = D.kf + hd * window;
  D.window = static_cast<int>(window);
  D.q = q + static_cast<size_t>(kv) * D.group * hd;
  D.first_key = 0;
  return D;
}

// Query heads padded to 8 across the lanes, for the n_kv <= kAttentionDecodeMaxHeads kv heads
// from first_kv in one walk.
void attend_padded(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv, int n_kv,
                   int first_key) {
  Decode D = make_decode(a, q, scratch, first_kv, n_kv);
  D.span_heads = n_kv;
  const size_t hd = static_cast<size_t>(a.head_dim);
  const size_t head_floats = static_cast<size_t>(D.group) * hd;
  const bool quad = D.group <= kQuadHeads;  // the 4-head layout (avx2_attention_decode_scores.h)
  const int kpv = quad ? keys_per_vec<kQuadHeads> : keys_per_vec<kHeads>;
  for (int h = 0; h < n_kv; ++h) {
    const float* qh = D.q + h * head_floats;
    float* qrep = qrep_of(D, h);
    for (size_t i = 0; i < hd; ++i) {
      for (int l = 0; l < kLanes; ++l) {
        const int j = l / kpv;
        qrep[i * kLanes + l] = j < D.group ? qh[j * hd + i] : 0.0f;
      }
    }
    float* ob = ob_of(D, h);
    for (size_t i = 0; i < kHeads * hd; ++i) ob[i] = 0.0f;
  }
  const int n_tokens = a.n_tokens;
  D.first_key = first_key;
  switch (a.kv_type) {
    case DType::kF16: quad ? attend<DType::kF16, kQuadHeads>(D, n_tokens) : attend<DType::kF16, kHeads>(D, n_tokens); break;
    case DType::kQ8_0: quad ? attend<DType::kQ8_0, kQuadHeads>(D, n_tokens) : attend<DType::kQ8_0, kHeads>(D, n_tokens); break;
    default: quad ? attend<DType::kF32, kQuadHeads>(D, n_tokens) : attend<DType::kF32, kHeads>(D, n_tokens); break;
  }
  float* out0 = out + static_cast<size_t>(first_kv) * head_floats;
  for (int h = 0; h < n_kv; ++h) {
    const float* ob = ob_of(D, h);
    for (size_t i = 0; i < head_floats; ++i) out0[h * head_floats + i] = ob[i];
  }
}

}  // namespace

void attention_decode(const AttentionArgs& args, const float* q, float* out, float* scratch, int first_kv,
                      int n_kv) {
  // The walk starts at the block holding the row's first key: block tables from there, and
  // that block's keys before it masked (Decode::first_key).
  AttentionArgs a = args;
  const int b_first = args.first_token / args.block_tokens;
  a.n_tokens = (args.row_tokens != nullptr ? args.row_tokens[0] : args.n_tokens) - b_first * args.block_tokens;
  a.row_tokens = nullptr;
  a.block_k = args.block_k + b_first;
  a.block_v = args.block_v + b_first;
  a.first_token = 0;
  const int first_key = args.first_token - b_first * args.block_tokens;
  if (a.n_head / a.n_head_kv <= kKeyLanesMaxGroup) {
    for (int kv = first_kv; kv < first_kv + n_kv; kv += kKeyLanesMaxHeads) {
      const int n = first_kv + n_kv - kv < kKeyLanesMaxHeads ? first_kv + n_kv - kv : kKeyLanesMaxHeads;
      Decode D = make_decode(a, q, scratch, kv, 0);
      D.span_heads = n;
      D.first_key = first_key;
      attend_by_key(D, q, out, kv, a.n_tokens);
    }
    return;
  }
  for (int kv = first_kv; kv < first_kv + n_kv; kv += kAttentionDecodeMaxHeads) {
    const int n = first_kv + n_kv - kv < kAttentionDecodeMaxHeads ? first_kv + n_kv - kv : kAttentionDecodeMaxHeads;
    attend_padded(a, q, out, scratch, kv, n, first_key);
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
