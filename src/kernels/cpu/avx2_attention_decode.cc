// Decode-row attention (see avx2_attention_decode.h), for the (up to 8) query heads of one
// kv head, padded to 8 "heads" (the padding heads have zero queries and are never written
// out). Scores do not depend on the softmax, so they are computed for a window of whole
// K/V blocks at a time (kWindowKeys; more independent multiply-add chains per pass), then
// each block of the window takes its softmax and value steps in order:
//   K rows   converted to floats into kf (AVX2: one row per key; AVX-512: two keys' rows
//            interleaved, so one 64-bit broadcast gives a vector of 8 heads x 2 keys);
//   scores   a fused multiply-add chain per (head, key) over head_dim in index order, times
//            scale, stored as p[t][head] (AVX2: 12 keys per pass, AVX-512: 32);
//   softmax  per block, 8 heads per vector: block max, rescale, exponentials and the running
//            sum in key order;
//   values   per block, out = out * rescale, then one fused multiply-add per key in key
//            order, V rows converted in registers (AVX2: 4 heads x 24 dims per pass,
//            AVX-512: 8 heads x 32 dims), out held in registers across the window's blocks
//            (the softmax of every block of the window runs first, keeping each rescale).
// While a window's K rows convert, the next window's K and V rows are prefetched, a key per
// converted key.
// Every (head, key) and (head, dim) sees exactly the operations attention_oracle.h lists;
// the lane layout only decides which of them run side by side.
#include "kernels/cpu/avx2_attention_decode.h"

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as (maybe-)uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cmath>
#include <cstring>

#include "kernels/cpu/avx2_common.h"
#include "kernels/quant_blocks.h"
#include "tensor/block_layouts.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

constexpr int kHeads = 8;  // query heads per tile after padding: one 8-float row of p per key
#if defined(STRATA_KERNELS_AVX512)
constexpr int kKeysPerVec = 2;  // score lanes: head l / 2, key l % 2
constexpr int kDimStep = 16;    // head_dim must be a multiple of one 16-float vector
constexpr int kWindowKeys = 64;
#else
constexpr int kKeysPerVec = 1;
constexpr int kDimStep = 8;
constexpr int kWindowKeys = 48;
#endif
static_assert(kWindowKeys <= kAttentionDecodeWindowKeys, "attention_scratch_floats() sizes the window");
constexpr int kLanes = kHeads * kKeysPerVec;

// One kv head's decode tile and its scratch.
struct Decode {
  const AttentionArgs* a;
  int hd;
  int group;
  size_t head_offset;  // bytes from a token's K (or V) row to this kv head's
  float* qrep;         // [hd][kLanes]: lane l holds q[head l / kKeysPerVec][i], 0 past the group
  float* kf;           // the window's K as floats (layout: convert_k)
  float* p;            // [window keys][kHeads]: scores, then exponentials
  float* ob;           // [kHeads][hd]: running outputs
  const float* q;      // [group][hd]: this kv head's queries
  int window;          // keys kf and p have room for (a multiple of 8)
};

const std::byte* row_at(const void* block, const Decode& D, int t) {
  return static_cast<const std::byte*>(block) + D.head_offset + t * D.a->token_stride_bytes;
}

// This kv head's rows of consecutive keys, block by block, without a division per key (one
// per key cost about as much as converting the row).
class RowWalk {
 public:
  RowWalk(const Decode& D, const void* const* blocks, int first_key)
      : D_(D), blocks_(blocks), b_(first_key / D.a->block_tokens), t_(first_key % D.a->block_tokens) {}
  const std::byte* next() {
    const std::byte* row = row_at(blocks_[b_], D_, t_);
    if (++t_ == D_.a->block_tokens) t_ = 0, ++b_;
    return row;
  }

 private:
  const Decode& D_;
  const void* const* blocks_;
  int b_;
  int t_;
};

// The next window's K and V rows, one key per call of key(), pulled into the cache while
// this window's K rows convert: spread over the loop, the misses overlap the conversion
// instead of a burst of prefetches stalling on full miss buffers (and V comes from DRAM
// at long context: the weights streamed since the last layer evicted it).
class NextWindow {
 public:
  NextWindow(const Decode& D, int first_key, int n)
      : k_(D, D.a->block_k, first_key), v_(D, D.a->block_v, first_key), n_(n),
        row_bytes_(kv_head_bytes(D.a->kv_type, D.hd)) {}
  void key() {
    if (n_ == 0) return;
    --n_;
    lines(k_.next());
    lines(v_.next());
  }

 private:
  // Every cache line of the row (the last byte's line too when the row is not aligned).
  void lines(const std::byte* row) const {
    for (size_t o = 0; o < row_bytes_; o += 64) _mm_prefetch(reinterpret_cast<const char*>(row + o), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(row + row_bytes_ - 1), _MM_HINT_T0);
  }

  RowWalk k_, v_;
  int n_;
  size_t row_bytes_;
};

// Dims [i, i + 8) of a K/V row as floats, as load_kv converts them.
template <DType T>
__m256 load8(const std::byte* row, int i) {
  if constexpr (T == DType::kF16) {
    return _mm256_cvtph_ps(load_128(row + 2 * i));
  } else if constexpr (T == DType::kQ8_0) {
    const auto* b = reinterpret_cast<const BlockQ8_0*>(row) + i / kQK;
    const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b->qs + i % kQK)));
    return _mm256_mul_ps(_mm256_cvtepi32_ps(q), _mm256_set1_ps(load_fp16(&b->d)));
  } else {
    return _mm256_loadu_ps(reinterpret_cast<const float*>(row) + i);
  }
}

#if defined(STRATA_KERNELS_AVX512)
// Dims [i, i + 16) as floats.
template <DType T>
__m512 load16(const std::byte* row, int i) {
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

// kf[g][i][k] = K[2g + k][i]: pair g's rows interleaved (a missing second row reads zeros).
template <DType T>
void convert_k(const Decode& D, int b0, int n, NextWindow& next) {
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  RowWalk rows(D, D.a->block_k, b0 * D.a->block_tokens);
  for (int g = 0; 2 * g < n; ++g) {
    next.key();
    next.key();
    const std::byte* ka = rows.next();
    const std::byte* kc = 2 * g + 1 < n ? rows.next() : ka;
    float* dst = D.kf + static_cast<size_t>(g) * 2 * D.hd;
    for (int i = 0; i < D.hd; i += 16) {
      const __m512 x = load16<T>(ka, i);
      const __m512 y = 2 * g + 1 < n ? load16<T>(kc, i) : _mm512_setzero_ps();
      _mm512_storeu_ps(dst + 2 * i, _mm512_permutex2var_ps(x, lo, y));
      _mm512_storeu_ps(dst + 2 * i + 16, _mm512_permutex2var_ps(x, hi, y));
    }
  }
}

// Scores of key pairs [g0, g0 + NP): lanes 8 heads x 2 keys, stored back as p[t][head].
template <int NP>
void scores(const Decode& D, int g0) {
  const int hd = D.hd;
  __m512 acc[NP];
#pragma GCC unroll 16
  for (int g = 0; g < NP; ++g) acc[g] = _mm512_setzero_ps();
  const float* k = D.kf + static_cast<size_t>(g0) * 2 * hd;
  for (int i = 0; i < hd; ++i) {
    const __m512 qv = _mm512_loadu_ps(D.qrep + static_cast<size_t>(i) * kLanes);
#pragma GCC unroll 16
    for (int g = 0; g < NP; ++g) {
      double pair;  // keys 2g and 2g + 1 at dim i: one 64-bit broadcast
      std::memcpy(&pair, k + g * 2 * hd + 2 * i, sizeof pair);
      const __m512 kv = _mm512_castpd_ps(_mm512_set1_pd(pair));
      acc[g] = _mm512_fmadd_ps(qv, kv, acc[g]);
    }
  }
  const __m512 scale = _mm512_set1_ps(D.a->scale);
  const __m512i by_key = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
#pragma GCC unroll 16
  for (int g = 0; g < NP; ++g) {
    _mm512_storeu_ps(D.p + (g0 + g) * 2 * kHeads, _mm512_permutexvar_ps(by_key, _mm512_mul_ps(acc[g], scale)));
  }
}

void scores_window(const Decode& D, int n) {
  const int n_pairs = (n + 1) / 2;
  int g = 0;
  for (; g + 16 <= n_pairs; g += 16) scores<16>(D, g);
  if (g + 8 <= n_pairs) scores<8>(D, g), g += 8;
  if (g + 4 <= n_pairs) scores<4>(D, g), g += 4;
  if (g + 2 <= n_pairs) scores<2>(D, g), g += 2;
  if (g < n_pairs) scores<1>(D, g);
}

// out[j][d, d + 16 * ND) over the window's n keys (first block b0): per block, out = out *
// rescale[block][j], then one fused multiply-add per key; out stays in registers.
template <DType T, int ND>
void values_dims(const Decode& D, int b0, int n, const float* rescale, int d) {
  const int bt = D.a->block_tokens;
  __m512 acc[kHeads][ND];
#pragma GCC unroll 16
  for (int j = 0; j < kHeads; ++j) {
#pragma GCC unroll 4
    for (int c = 0; c < ND; ++c) acc[j][c] = _mm512_loadu_ps(D.ob + j * D.hd + d + 16 * c);
  }
  for (int t0 = 0, b = 0; t0 < n; t0 += bt, ++b) {
#pragma GCC unroll 16
    for (int j = 0; j < kHeads; ++j) {
      const __m512 r = _mm512_set1_ps(rescale[b * kHeads + j]);
#pragma GCC unroll 4
      for (int c = 0; c < ND; ++c) acc[j][c] = _mm512_mul_ps(acc[j][c], r);
    }
    const void* vb = D.a->block_v[b0 + b];
    const float* p = D.p + t0 * kHeads;
    const int nb = n - t0 < bt ? n - t0 : bt;
    for (int t = 0; t < nb; ++t) {
      const std::byte* row = row_at(vb, D, t);
      __m512 v[ND];
#pragma GCC unroll 4
      for (int c = 0; c < ND; ++c) v[c] = load16<T>(row, d + 16 * c);
#pragma GCC unroll 16
      for (int j = 0; j < kHeads; ++j) {
        const __m512 pj = _mm512_set1_ps(p[t * kHeads + j]);
#pragma GCC unroll 4
        for (int c = 0; c < ND; ++c) acc[j][c] = _mm512_fmadd_ps(pj, v[c], acc[j][c]);
      }
    }
  }
#pragma GCC unroll 16
  for (int j = 0; j < kHeads; ++j) {
#pragma GCC unroll 4
    for (int c = 0; c < ND; ++c) _mm512_storeu_ps(D.ob + j * D.hd + d + 16 * c, acc[j][c]);
  }
}

template <DType T>
void values_window(const Decode& D, int b0, int n, const float* rescale) {
  int d = 0;
  for (; d + 32 <= D.hd; d += 32) values_dims<T, 2>(D, b0, n, rescale, d);
  if (d < D.hd) values_dims<T, 1>(D, b0, n, rescale, d);
}
#else
// kf[t][i] = K[t][i].
template <DType T>
void convert_k(const Decode& D, int b0, int n, NextWindow& next) {
  RowWalk rows(D, D.a->block_k, b0 * D.a->block_tokens);
  for (int t = 0; t < n; ++t) {
    next.key();
    const std::byte* row = rows.next();
    float* dst = D.kf + static_cast<size_t>(t) * D.hd;
    for (int i = 0; i < D.hd; i += 8) _mm256_storeu_ps(dst + i, load8<T>(row, i));
  }
}

// Scores of keys [t0, t0 + NK): lanes are the 8 heads.
template <int NK>
void scores(const Decode& D, int t0) {
  const int hd = D.hd;
  __m256 acc[NK];
#pragma GCC unroll 16
  for (int t = 0; t < NK; ++t) acc[t] = _mm256_setzero_ps();
  const float* k = D.kf + static_cast<size_t>(t0) * hd;
  for (int i = 0; i < hd; ++i) {
    const __m256 qv = _mm256_loadu_ps(D.qrep + static_cast<size_t>(i) * kLanes);
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) acc[t] = _mm256_fmadd_ps(qv, _mm256_broadcast_ss(k + t * hd + i), acc[t]);
  }
  const __m256 scale = _mm256_set1_ps(D.a->scale);
#pragma GCC unroll 16
  for (int t = 0; t < NK; ++t) _mm256_storeu_ps(D.p + (t0 + t) * kHeads, _mm256_mul_ps(acc[t], scale));
}

void scores_window(const Decode& D, int n) {
  int t = 0;
  for (; t + 12 <= n; t += 12) scores<12>(D, t);
  if (t + 8 <= n) scores<8>(D, t), t += 8;
  if (t + 4 <= n) scores<4>(D, t), t += 4;
  if (t + 2 <= n) scores<2>(D, t), t += 2;
  if (t < n) scores<1>(D, t);
}

// Heads [j0, j0 + 4), dims [d, d + 8 * NC), over the window's n keys (first block b0): per
// block, out = out * rescale[block][j], then one fused multiply-add per key; out stays in
// registers (12 accumulators when NC is 3: enough chains to hide the latency).
template <DType T, int NC>
void values_dims(const Decode& D, int b0, int n, const float* rescale, int j0, int d) {
  constexpr int kJ = 4;
  const int bt = D.a->block_tokens;
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
    const void* vb = D.a->block_v[b0 + b];
    const float* p = D.p + t0 * kHeads + j0;
    const int nb = n - t0 < bt ? n - t0 : bt;
    for (int t = 0; t < nb; ++t) {
      const std::byte* row = row_at(vb, D, t);
      __m256 v[NC];
#pragma GCC unroll 4
      for (int c = 0; c < NC; ++c) v[c] = load8<T>(row, d + 8 * c);
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

template <DType T>
void values_window(const Decode& D, int b0, int n, const float* rescale) {
  for (int j0 = 0; j0 < kHeads; j0 += 4) {
    int d = 0;
    for (; d + 24 <= D.hd; d += 24) values_dims<T, 3>(D, b0, n, rescale, j0, d);
    if (d + 16 <= D.hd) values_dims<T, 2>(D, b0, n, rescale, j0, d), d += 16;
    if (d < D.hd) values_dims<T, 1>(D, b0, n, rescale, j0, d);
  }
}
#endif

// The block's softmax step for its n keys (8 heads per vector); returns the rescale.
__m256 softmax_block(float* p, int n, __m256* max, __m256* sum) {
  __m256 bm = _mm256_set1_ps(-INFINITY);
  for (int t = 0; t < n; ++t) bm = _mm256_max_ps(bm, _mm256_loadu_ps(p + t * kHeads));
  const __m256 new_max = _mm256_max_ps(*max, bm);
  const __m256 rescale = exp_ps(_mm256_sub_ps(*max, new_max));
  __m256 s = _mm256_mul_ps(*sum, rescale);
  for (int t = 0; t < n; ++t) {
    float* pt = p + t * kHeads;
    const __m256 e = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(pt), new_max));
    _mm256_storeu_ps(pt, e);
    s = _mm256_add_ps(s, e);
  }
  *max = new_max;
  *sum = s;
  return rescale;
}

template <DType T>
void attend(const Decode& D, int n_tokens) {
  const AttentionArgs& a = *D.a;
  const int bt = a.block_tokens;
  const int window_blocks = bt < kWindowKeys ? kWindowKeys / bt : 1;
  __m256 max = _mm256_set1_ps(-INFINITY);
  __m256 sum = _mm256_setzero_ps();
  alignas(32) float rescale[kWindowKeys * kHeads];  // per block of the window (<= kWindowKeys blocks)
  {
    // The first window has nothing to overlap its misses with: ask for all its lines at once.
    const int n_first = n_tokens < window_blocks * bt ? n_tokens : window_blocks * bt;
    NextWindow first(D, 0, n_first);
    for (int t = 0; t < n_first; ++t) first.key();
  }
  for (int b0 = 0; b0 * bt < n_tokens; b0 += window_blocks) {
    const int w0 = b0 * bt;
    const int n_window = n_tokens - w0 < window_blocks * bt ? n_tokens - w0 : window_blocks * bt;
    const int n_next = n_tokens - w0 - n_window < window_blocks * bt ? n_tokens - w0 - n_window : window_blocks * bt;
    NextWindow next(D, w0 + n_window, n_next);
    convert_k<T>(D, b0, n_window, next);
    scores_window(D, n_window);
    for (int t0 = 0, b = 0; t0 < n_window; t0 += bt, ++b) {
      const int n = n_window - t0 < bt ? n_window - t0 : bt;
      _mm256_store_ps(rescale + b * kHeads, softmax_block(D.p + t0 * kHeads, n, &max, &sum));
    }
    values_window<T>(D, b0, n_window, rescale);
  }
  _mm256_store_ps(rescale, sum);
  for (int j = 0; j < kHeads; ++j) {
    const __m256 inv = _mm256_set1_ps(rescale[j] > 0.0f ? 1.0f / rescale[j] : 0.0f);
    float* o = D.ob + j * D.hd;
    for (int i = 0; i < D.hd; i += 8) _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(o + i), inv));
  }
}

// Key lanes: a kv head with one or two query heads. Padding those to 8 heads would multiply
// the score, softmax and value work by 4-8 (K/V reads alone would be the same), so here a
// vector holds 8 keys of one head instead: K is transposed per window, kf[i][t] = K[t][i]
// (row stride D.window), p holds each head's scores in a row of key_row() floats.
// AVX-512 keeps its 8 heads x 2 keys layout: its 16-lane scores and values beat these 8-lane
// ones on a 16 x 128 layer (390 against 500 us in the attention bench).
#if defined(STRATA_KERNELS_AVX512)
constexpr int kKeyLanesMaxGroup = 0;
#else
constexpr int kKeyLanesMaxGroup = 2;
#endif
int key_row(const Decode& D) { return D.window + 8; }  // room for the last block's 8-key overrun

void transpose8(__m256* r) {
  __m256 t[8], s[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    s[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    s[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    s[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    s[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(s[k], s[k + 4], 0x20);
    r[k + 4] = _mm256_permute2f128_ps(s[k], s[k + 4], 0x31);
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
    for (int i = 0; i < D.hd; i += 8) {
      __m256 x[8];
      for (int k = 0; k < 8; ++k) x[k] = load8<T>(r[k], i);
      transpose8(x);
      for (int k = 0; k < 8; ++k) _mm256_storeu_ps(D.kf + static_cast<size_t>(i + k) * D.window + t0, x[k]);
    }
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

// One head's softmax step for a block's n scores p (exponentials on return); returns the
// rescale. Max and sum run in key order; the exponentials 8 keys at a time.
float softmax_block_by_key(float* p, int n, float* max, float* sum) {
  float bm = -INFINITY;
  for (int t = 0; t < n; ++t) bm = bm > p[t] ? bm : p[t];
  const float new_max = *max > bm ? *max : bm;
  alignas(32) float e[8];
  _mm256_store_ps(e, exp_ps(_mm256_set1_ps(*max - new_max)));
  const float rescale = e[0];
  float s = *sum * rescale;
  const __m256 m = _mm256_set1_ps(new_max);
  for (int t = 0; t < n; t += 8) {
    _mm256_store_ps(e, exp_ps(_mm256_sub_ps(_mm256_loadu_ps(p + t), m)));
    for (int k = 0; k < 8 && t + k < n; ++k) p[t + k] = e[k], s += e[k];
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
    const void* vb = D.a->block_v[b0 + b];
    const float* p = D.p + t0;
    const int nb = n - t0 < bt ? n - t0 : bt;
    for (int t = 0; t < nb; ++t) {
      const std::byte* row = row_at(vb, D, t);
      __m256 v[NC];
#pragma GCC unroll 8
      for (int c = 0; c < NC; ++c) v[c] = load8<T>(row, d + 8 * c);
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

template <DType T>
void attend_by_key(const Decode& D, int n_tokens) {
  const int bt = D.a->block_tokens;
  const int window_blocks = bt < kWindowKeys ? kWindowKeys / bt : 1;
  float max[2] = {-INFINITY, -INFINITY};  // per query head (at most 2)
  float sum[2] = {0.0f, 0.0f};
  alignas(32) float rescale[kWindowKeys * kHeads];  // [block of the window][head]
  {
    const int n_first = n_tokens < window_blocks * bt ? n_tokens : window_blocks * bt;
    NextWindow first(D, 0, n_first);
    for (int t = 0; t < n_first; ++t) first.key();
  }
  for (int b0 = 0; b0 * bt < n_tokens; b0 += window_blocks) {
    const int w0 = b0 * bt;
    const int n_window = n_tokens - w0 < window_blocks * bt ? n_tokens - w0 : window_blocks * bt;
    const int n_next = n_tokens - w0 - n_window < window_blocks * bt ? n_tokens - w0 - n_window : window_blocks * bt;
    NextWindow next(D, w0 + n_window, n_next);
    convert_k_by_key<T>(D, b0, n_window, next);
    for (int j = 0; j < D.group; ++j) scores_window_by_key(D, j, n_window);
    for (int t0 = 0, b = 0; t0 < n_window; t0 += bt, ++b) {
      const int n = n_window - t0 < bt ? n_window - t0 : bt;
      for (int j = 0; j < D.group; ++j) {
        rescale[b * kHeads + j] = softmax_block_by_key(D.p + j * key_row(D) + t0, n, &max[j], &sum[j]);
      }
    }
    if (D.group == 1) values_window_by_key<T, 1>(D, b0, n_window, rescale);
    else values_window_by_key<T, 2>(D, b0, n_window, rescale);
  }
  for (int j = 0; j < D.group; ++j) {
    const __m256 inv = _mm256_set1_ps(sum[j] > 0.0f ? 1.0f / sum[j] : 0.0f);
    float* o = D.ob + j * D.hd;
    for (int i = 0; i < D.hd; i += 8) _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(o + i), inv));
  }
}

}  // namespace

bool attention_decode_fits(const AttentionArgs& a) {
  const int group = a.n_head / a.n_head_kv;
  const bool type_ok = a.kv_type == DType::kF16 || a.kv_type == DType::kQ8_0 || a.kv_type == DType::kF32;
  return a.n_rows == 1 && group <= kHeads && a.head_dim % kDimStep == 0 && type_ok;
}

void attention_decode(const AttentionArgs& a, const float* q, float* out, float* scratch, int kv) {
  Decode D;
  D.a = &a;
  D.hd = a.head_dim;
  D.group = a.n_head / a.n_head_kv;
  D.head_offset = static_cast<size_t>(kv) * kv_head_bytes(a.kv_type, a.head_dim);
  const size_t hd = static_cast<size_t>(a.head_dim);
  const size_t t_pad = (static_cast<size_t>(a.block_tokens) + 7) / 8 * 8;
  const size_t window = t_pad > kAttentionDecodeWindowKeys ? t_pad : kAttentionDecodeWindowKeys;
  D.qrep = scratch;
  D.kf = D.qrep + hd * kLanes;
  D.p = D.kf + hd * window;
  D.ob = D.p + window * kHeads;
  D.window = static_cast<int>(window);
  const float* q_kv = q + static_cast<size_t>(kv) * D.group * hd;
  D.q = q_kv;
  for (size_t i = 0; i < hd; ++i) {
    for (int l = 0; l < kLanes; ++l) {
      const int j = l / kKeysPerVec;
      D.qrep[i * kLanes + l] = j < D.group ? q_kv[j * hd + i] : 0.0f;
    }
  }
  for (size_t i = 0; i < kHeads * hd; ++i) D.ob[i] = 0.0f;
  const int n_tokens = a.row_tokens != nullptr ? a.row_tokens[0] : a.n_tokens;
  if (D.group <= kKeyLanesMaxGroup) {
    switch (a.kv_type) {
      case DType::kF16: attend_by_key<DType::kF16>(D, n_tokens); break;
      case DType::kQ8_0: attend_by_key<DType::kQ8_0>(D, n_tokens); break;
      default: attend_by_key<DType::kF32>(D, n_tokens); break;
    }
  } else {
    switch (a.kv_type) {
      case DType::kF16: attend<DType::kF16>(D, n_tokens); break;
      case DType::kQ8_0: attend<DType::kQ8_0>(D, n_tokens); break;
      default: attend<DType::kF32>(D, n_tokens); break;
    }
  }
  float* out_kv = out + static_cast<size_t>(kv) * D.group * hd;
  for (size_t i = 0; i < static_cast<size_t>(D.group) * hd; ++i) out_kv[i] = D.ob[i];
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
