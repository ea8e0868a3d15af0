// AVX2 tiled paged attention. A tile is the query rows of one call (a prompt chunk of one
// sequence, or one decode row) times the query heads that share one kv head: its
// "row-heads". Each K/V block is converted to floats once per tile and used by every
// row-head, so a prompt chunk reads the cache once instead of once per row; the rows of the
// window after next are prefetched while this one is used.
//
// The cache is read in windows of whole blocks (kAttentionTileWindowKeys keys), three steps:
//   scores   S[t][j] for key t of the window and row-head j, each a chain of fused
//            multiply-adds over head_dim in index order (row-heads across the lanes when
//            the tile has at least 8 of them; else keys across the lanes, from a transposed
//            K window), then soft-capped one by one when the layer caps (Gemma 2);
//   softmax  per block of the window in order, per row-head (8 lanes at a time): block max
//            over the row's own keys, rescale, exponentials and the running sum in key order;
//   values   per row-head, per block: out = out * rescale, then one fused multiply-add per
//            key in key order, out held in registers across the window's blocks.
// A row-head's operations depend only on its own query, keys and token count, never on
// its tile-mates, the lane layout or the register blocking: attention_oracle.h writes them
// out, and the tests compare bytes. The AVX-512 build runs scores and values on 16 lanes
// (avx512_attention_tile.cc; the tile's layout is avx2_attention_tile.h), same bits.
// A decode row (one row, at most 8 query heads per kv head) runs avx2_attention_decode.cc
// instead: the same operations, with K/V converted in registers and wider AVX-512 lanes.
#include <cmath>
#include <cstdint>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_attention_decode.h"
#include "kernels/cpu/avx2_attention_tile.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/reference/reference.h"
#include "kernels/softcap.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

int row_tokens(const AttentionArgs& a, int r) { return a.row_tokens != nullptr ? a.row_tokens[r] : a.n_tokens; }

#if !defined(STRATA_KERNELS_AVX512)  // (the AVX-512 build scores 16 lanes: avx512_attention_tile.cc)
// Score accumulators: lane groups x keys per pass, 12 chains to hide the multiply-add
// latency in 16 registers.
constexpr int kLaneGroupsPerPass = 2;
template <int NG>
constexpr int kKeysPerPass = NG == 1 ? 8 : 6;

// Scores of NK keys (K rows at k, head_dim apart) for NG lane groups of row-heads; qt and s
// point at the first group's query rows and score row of the first key.
template <int NG, int NK>
void scores_query_lanes(const Tile& T, const float* qt, const float* k, float* s) {
  const int hd = T.a->head_dim;
  __m256 acc[NG][NK];
#pragma GCC unroll 16
  for (int g = 0; g < NG; ++g) {
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) acc[g][t] = _mm256_setzero_ps();
  }
  for (int i = 0; i < hd; ++i) {
    __m256 qv[NG];
#pragma GCC unroll 16
    for (int g = 0; g < NG; ++g) qv[g] = _mm256_loadu_ps(qt + static_cast<size_t>(g) * 8 * hd + 8 * i);
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) {
      const __m256 kb = _mm256_broadcast_ss(k + t * hd + i);
#pragma GCC unroll 16
      for (int g = 0; g < NG; ++g) acc[g][t] = _mm256_fmadd_ps(qv[g], kb, acc[g][t]);
    }
  }
  const __m256 scale = _mm256_set1_ps(T.a->scale);
#pragma GCC unroll 16
  for (int g = 0; g < NG; ++g) {
#pragma GCC unroll 16
    for (int t = 0; t < NK; ++t) {
      _mm256_storeu_ps(s + static_cast<size_t>(g) * 8 * T.w_pad + 8 * t, _mm256_mul_ps(acc[g][t], scale));
    }
  }
}

template <int NG>
void scores_query_lanes_keys(const Tile& T, int lane_group, int n) {
  const float* qt = T.qt + qt_index(T, 0, 8 * lane_group);
  float* s = T.s + s_index(T, 0, 8 * lane_group);
  const int hd = T.a->head_dim;
  int t = 0;
  for (; t + kKeysPerPass<NG> <= n; t += kKeysPerPass<NG>) {
    scores_query_lanes<NG, kKeysPerPass<NG>>(T, qt, T.kf + t * hd, s + 8 * t);
  }
  if (kKeysPerPass<NG> > 4 && t + 4 <= n) {
    scores_query_lanes<NG, 4>(T, qt, T.kf + t * hd, s + 8 * t);
    t += 4;
  }
  for (; t < n; ++t) scores_query_lanes<NG, 1>(T, qt, T.kf + t * hd, s + 8 * t);
}

void scores_by_query_lanes(const Tile& T, int n) {
  const int n_groups = T.rh_pad / 8;
  int g = 0;
  for (; g + kLaneGroupsPerPass <= n_groups; g += kLaneGroupsPerPass) scores_query_lanes_keys<kLaneGroupsPerPass>(T, g, n);
  for (; g < n_groups; ++g) scores_query_lanes_keys<1>(T, g, n);
}
#endif

// Scores of one row-head for the keys of NV vectors of the transposed K block.
template <int NV>
void scores_key_lanes(const Tile& T, int j, int v0, int n) {
  const int hd = T.a->head_dim;
  const float* q = row_head_q(T, j);
  __m256 acc[NV];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) acc[v] = _mm256_setzero_ps();
  for (int i = 0; i < hd; ++i) {
    const __m256 qb = _mm256_broadcast_ss(q + i);
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) {
      acc[v] = _mm256_fmadd_ps(qb, _mm256_loadu_ps(T.kf + static_cast<size_t>(i) * T.w_pad + 8 * (v0 + v)), acc[v]);
    }
  }
  const __m256 scale = _mm256_set1_ps(T.a->scale);
  alignas(32) float lanes[8];
#pragma GCC unroll 16
  for (int v = 0; v < NV; ++v) {
    _mm256_store_ps(lanes, _mm256_mul_ps(acc[v], scale));
    for (int l = 0; l < 8 && 8 * (v0 + v) + l < n; ++l) T.s[s_index(T, 8 * (v0 + v) + l, j)] = lanes[l];
  }
}

void scores_by_key_lanes(const Tile& T, int n) {
  const int n_vec = (n + 7) / 8;
  for (int j = 0; j < T.n_rh; ++j) {
    int v = 0;
    for (; v + 2 <= n_vec; v += 2) scores_key_lanes<2>(T, j, v, n);
    for (; v < n_vec; ++v) scores_key_lanes<1>(T, j, v, n);
  }
}

// Row t of the window's keys (or values, at vb) whose first block is b0: key t of the window
// is token t % bt of block b0 + t / bt.
const std::byte* window_row(const Tile& T, const void* const* blocks, int b0, int t) {
  return static_cast<const std::byte*>(blocks[b0 + t / T.bt]) + T.head_offset + (t % T.bt) * T.a->token_stride_bytes;
}

// The window's first n keys and values as floats, in the layout the score step reads.
void convert_window(const Tile& T, int b0, int n) {
  const AttentionArgs& a = *T.a;
  const int hd = a.head_dim;
  for (int t = 0; t < n; ++t) load_kv(window_row(T, a.block_v, b0, t), hd, a.kv_type, T.vf + static_cast<size_t>(t) * hd);
  if (T.query_lanes) {
    for (int t = 0; t < n; ++t) load_kv(window_row(T, a.block_k, b0, t), hd, a.kv_type, T.kf + static_cast<size_t>(t) * hd);
    return;
  }
  // Transposed through a staging row (the scratch row after kf).
  float* row = T.kf + static_cast<size_t>(hd) * T.w_pad;
  for (int t = 0; t < T.w_pad; ++t) {
    if (t < n) {
      load_kv(window_row(T, a.block_k, b0, t), hd, a.kv_type, row);
      for (int i = 0; i < hd; ++i) T.kf[static_cast<size_t>(i) * T.w_pad + t] = row[i];
    } else {
      for (int i = 0; i < hd; ++i) T.kf[static_cast<size_t>(i) * T.w_pad + t] = 0.0f;
    }
  }
}

// Asks for block b's K and V rows of the tile's kv head (n tokens) ahead of use: a block
// is a page of the K/V pool the hardware prefetcher does not follow into, and converting
// it would otherwise wait on the cache misses. Into L2: a window's rows (32 KB of f16 at
// head_dim 128) would crowd the L1 cache the scores and values are working in.
void prefetch_block(const Tile& T, int b, int n) {
  const AttentionArgs& a = *T.a;
  const size_t head_bytes = kv_head_bytes(a.kv_type, a.head_dim);
  const size_t head_offset = static_cast<size_t>(T.kv) * head_bytes;
  for (const void* base : {a.block_k[b], a.block_v[b]}) {
    const char* row = static_cast<const char*>(base) + head_offset;
    for (int t = 0; t < n; ++t, row += a.token_stride_bytes) {
      // Each 64-byte line the row touches, once.
      const uintptr_t last = reinterpret_cast<uintptr_t>(row) + head_bytes - 1;
      for (uintptr_t line = reinterpret_cast<uintptr_t>(row) & ~uintptr_t{63}; line <= last; line += 64) {
        _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T1);
      }
    }
  }
}

#if !defined(STRATA_KERNELS_AVX512)  // (avx512_attention_tile.cc runs 16 lanes)
// Softmax step for the first n keys of block bi of the window, 8 row-heads at a time; each
// lane uses only its own keys (t < n_keys) and a lane with none keeps its state.
void softmax_block(const Tile& T, int bi, int n) {
  const int t0 = bi * T.bt;
  for (int j0 = 0; j0 < T.rh_pad; j0 += 8) {
    const __m256 n_keys = _mm256_loadu_ps(T.n_keys + static_cast<size_t>(bi) * T.rh_pad + j0);
    const __m256 active = _mm256_cmp_ps(n_keys, _mm256_setzero_ps(), _CMP_GT_OQ);
    const __m256 old_max = _mm256_loadu_ps(T.max + j0);
    // Every lane has all n keys (the rows of a prompt chunk far from its end): no masks.
    const bool full = _mm256_movemask_ps(_mm256_cmp_ps(n_keys, _mm256_set1_ps(static_cast<float>(n)), _CMP_EQ_OQ)) == 0xff;
    __m256 bm = _mm256_set1_ps(-INFINITY);
    for (int t = 0; t < n; ++t) {
      const __m256 st = _mm256_loadu_ps(T.s + s_index(T, t0 + t, j0));
      if (full) {
        bm = _mm256_max_ps(bm, st);
      } else {
        const __m256 valid = _mm256_cmp_ps(_mm256_set1_ps(static_cast<float>(t)), n_keys, _CMP_LT_OQ);
        bm = _mm256_blendv_ps(bm, _mm256_max_ps(bm, st), valid);
      }
    }
    const __m256 new_max = _mm256_max_ps(old_max, bm);
    const __m256 rescale = exp_ps(_mm256_sub_ps(old_max, new_max));
    const __m256 old_sum = _mm256_loadu_ps(T.sum + j0);
    __m256 sum = _mm256_mul_ps(old_sum, rescale);
    for (int t = 0; t < n; ++t) {
      float* st = T.s + s_index(T, t0 + t, j0);
      const __m256 p = exp_ps(_mm256_sub_ps(_mm256_loadu_ps(st), new_max));
      _mm256_storeu_ps(st, p);
      if (full) {
        sum = _mm256_add_ps(sum, p);
      } else {
        const __m256 valid = _mm256_cmp_ps(_mm256_set1_ps(static_cast<float>(t)), n_keys, _CMP_LT_OQ);
        sum = _mm256_blendv_ps(sum, _mm256_add_ps(sum, p), valid);
      }
    }
    _mm256_storeu_ps(T.max + j0, _mm256_blendv_ps(old_max, new_max, active));
    _mm256_storeu_ps(T.sum + j0, _mm256_blendv_ps(old_sum, sum, active));
    _mm256_storeu_ps(T.rescale + static_cast<size_t>(bi) * T.rh_pad + j0, rescale);
  }
}
#endif

// Gemma 2's soft-capping of the window's first n scores of every row-head (padding lanes
// included, which nothing reads), the oracle's scalar operation on each before the softmax.
void softcap_scores(const Tile& T, int n) {
  const float cap = T.a->softcap;
  for (int t = 0; t < n; ++t) {
    for (int j = 0; j < T.rh_pad; ++j) {
      float& s = T.s[s_index(T, t, j)];
      s = softcap(s, cap);
    }
  }
}

// For dims [d0, d0 + 8 * NV) of row-head j, per block of the window it has keys in:
// out = out * rescale, then one multiply-add per key (p_t * v_t) in key order; out stays in
// registers across the window's blocks.
template <int NV>
void values_dims(const Tile& T, int j, int n_blocks, int d0) {
  const int hd = T.a->head_dim;
  float* o = row_head_out(T, j) + d0;
  __m256 acc[NV];
#pragma GCC unroll 16
  for (int d = 0; d < NV; ++d) acc[d] = _mm256_loadu_ps(o + 8 * d);
  for (int bi = 0; bi < n_blocks; ++bi) {
    const size_t at = static_cast<size_t>(bi) * T.rh_pad + j;
    const __m256 r = _mm256_set1_ps(T.rescale[at]);
#pragma GCC unroll 16
    for (int d = 0; d < NV; ++d) acc[d] = _mm256_mul_ps(acc[d], r);
    const int n = static_cast<int>(T.n_keys[at]);
    const float* v = T.vf + static_cast<size_t>(bi) * T.bt * hd + d0;
    const float* p = T.s + s_index(T, bi * T.bt, j);  // key t's at p + kGroupLanes * t
    for (int t = 0; t < n; ++t, v += hd, p += kGroupLanes) {
      const __m256 pb = _mm256_broadcast_ss(p);
#pragma GCC unroll 16
      for (int d = 0; d < NV; ++d) acc[d] = _mm256_fmadd_ps(pb, _mm256_loadu_ps(v + 8 * d), acc[d]);
    }
  }
#pragma GCC unroll 16
  for (int d = 0; d < NV; ++d) _mm256_storeu_ps(o + 8 * d, acc[d]);
}

// values_dims for R row-heads j .. j + R - 1 with the same key counts in every block, each
// V vector used by all R (more independent chains than one row-head's 8).
template <int R, int NV>
void values_heads_together(const Tile& T, int j, int n_blocks, int d0) {
  const int hd = T.a->head_dim;
  float* o[R];
  __m256 acc[R][NV];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    o[r] = row_head_out(T, j + r) + d0;
#pragma GCC unroll 16
    for (int d = 0; d < NV; ++d) acc[r][d] = _mm256_loadu_ps(o[r] + 8 * d);
  }
  for (int bi = 0; bi < n_blocks; ++bi) {
    const size_t at = static_cast<size_t>(bi) * T.rh_pad + j;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 rescale = _mm256_set1_ps(T.rescale[at + r]);
#pragma GCC unroll 16
      for (int d = 0; d < NV; ++d) acc[r][d] = _mm256_mul_ps(acc[r][d], rescale);
    }
    const int n = static_cast<int>(T.n_keys[at]);
    const float* v = T.vf + static_cast<size_t>(bi) * T.bt * hd + d0;
    const float* p = T.s + s_index(T, bi * T.bt, j);
    for (int t = 0; t < n; ++t, v += hd, p += kGroupLanes) {
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const __m256 pb = _mm256_broadcast_ss(p + r);
#pragma GCC unroll 16
        for (int d = 0; d < NV; ++d) acc[r][d] = _mm256_fmadd_ps(pb, _mm256_loadu_ps(v + 8 * d), acc[r][d]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int d = 0; d < NV; ++d) _mm256_storeu_ps(o[r] + 8 * d, acc[r][d]);
  }
}

// Values of the window's first n_blocks blocks; a row-head's keys are a prefix of the
// window, so it skips the blocks after its last key (as the oracle does). Three row-heads
// with the same keys go together (12 chains of 32 dims: measured 3-4% faster than one
// row-head's 8 chains of 64 dims; two row-heads were no faster).
void values_window(const Tile& T, int n_blocks) {
  const int hd = T.a->head_dim;
  constexpr int kR = 3;
  for (int j = 0; j < T.n_rh;) {
    // The R row-heads' p must sit side by side in s: within one lane group.
    bool same = j + kR <= T.n_rh && (j % kGroupLanes) + kR <= kGroupLanes;
    for (int bi = 0; same && bi < n_blocks; ++bi) {
      const float* n_keys = T.n_keys + static_cast<size_t>(bi) * T.rh_pad + j;
      for (int r = 1; r < kR; ++r) same = same && n_keys[r] == n_keys[0];
    }
    int nb = 0;
    while (nb < n_blocks && T.n_keys[static_cast<size_t>(nb) * T.rh_pad + j] > 0.0f) ++nb;
    if (same && hd % 32 == 0) {
      for (int d = 0; nb > 0 && d < hd; d += 32) values_heads_together<kR, 4>(T, j, nb, d);
      j += kR;
      continue;
    }
    if (nb > 0) {
      int d = 0;
      for (; d + 64 <= hd; d += 64) values_dims<8>(T, j, nb, d);
      for (; d < hd; d += 8) values_dims<1>(T, j, nb, d);
    }
    ++j;
  }
}

// Per-block key counts of the window starting at token w0 (block b0) for every row-head;
// returns the window's blocks with keys, and in *n_window its keys (the rows' longest
// reach: whole blocks, then maybe a partial one).
int window_key_counts(const Tile& T, int w0, int* n_window) {
  const AttentionArgs& a = *T.a;
  int n_blocks = 0;
  *n_window = 0;
  for (int bi = 0; bi < T.window_blocks; ++bi) {
    float* n_keys = T.n_keys + static_cast<size_t>(bi) * T.rh_pad;
    const int t0 = w0 + bi * T.bt;
    int n = 0;
    for (int r = 0, j = 0; r < a.n_rows; ++r) {
      const int left = row_tokens(a, r) - t0;
      const int keys = left < 0 ? 0 : left < T.bt ? left : T.bt;
      for (int h = 0; h < T.group; ++h, ++j) n_keys[j] = static_cast<float>(keys);
      n = keys > n ? keys : n;
    }
    for (int j = T.n_rh; j < T.rh_pad; ++j) n_keys[j] = 0.0f;
    if (n == 0) break;
    ++n_blocks;
    *n_window = bi * T.bt + n;
  }
  return n_blocks;
}

void attend_tile(const Tile& T) {
  const AttentionArgs& a = *T.a;
  const int hd = a.head_dim;
  int n_tokens = 0;
  for (int r = 0; r < a.n_rows; ++r) n_tokens = row_tokens(a, r) > n_tokens ? row_tokens(a, r) : n_tokens;
  for (int j = 0; j < T.rh_pad; ++j) {
    T.max[j] = -INFINITY;
    T.sum[j] = 0.0f;
    if (j < T.n_rh) {
      float* o = row_head_out(T, j);
      const float* q = row_head_q(T, j);
      for (int i = 0; i < hd; ++i) o[i] = 0.0f;
      if (T.query_lanes) {
        for (int i = 0; i < hd; ++i) T.qt[qt_index(T, i, j)] = q[i];
      }
    } else if (T.query_lanes) {
      for (int i = 0; i < hd; ++i) T.qt[qt_index(T, i, j)] = 0.0f;
    }
  }
  const int window_tokens = T.window_blocks * T.bt;
  for (int w0 = 0, b0 = 0; w0 < n_tokens; w0 += window_tokens, b0 += T.window_blocks) {
    int n = 0;
    const int n_blocks = window_key_counts(T, w0, &n);
    convert_window(T, b0, n);
    // The window after next (and, from the first, the next one too): one window ahead, the
    // rows were still on their way when converted.
    for (int ahead = w0 == 0 ? 1 : 2; ahead <= 2; ++ahead) {
      for (int bi = 0; bi < T.window_blocks; ++bi) {
        const int t0 = w0 + ahead * window_tokens + bi * T.bt;  // the block's first token
        if (t0 >= n_tokens) break;
        prefetch_block(T, b0 + ahead * T.window_blocks + bi, n_tokens - t0 < T.bt ? n_tokens - t0 : T.bt);
      }
    }
    if (T.query_lanes) {
#if defined(STRATA_KERNELS_AVX512)
      tile_scores_query_lanes_512(T, n);
#else
      scores_by_query_lanes(T, n);
#endif
    } else {
      scores_by_key_lanes(T, n);
    }
    if (a.softcap > 0.0f) softcap_scores(T, n);
    for (int bi = 0; bi < n_blocks; ++bi) {
#if defined(STRATA_KERNELS_AVX512)
      tile_softmax_block_512(T, bi, bi + 1 < n_blocks ? T.bt : n - bi * T.bt);
#else
      softmax_block(T, bi, bi + 1 < n_blocks ? T.bt : n - bi * T.bt);
#endif
    }
#if defined(STRATA_KERNELS_AVX512)
    if (hd % 16 == 0) {
      tile_values_window_512(T, n_blocks);
      continue;
    }
#endif
    values_window(T, n_blocks);
  }
  for (int j = 0; j < T.n_rh; ++j) {
    const float sum = sum_with_sink(a.sinks, T.kv * T.group + j % T.group, T.max[j], T.sum[j]);
    const __m256 inv = _mm256_set1_ps(sum > 0.0f ? 1.0f / sum : 0.0f);
    float* o = row_head_out(T, j);
    for (int i = 0; i < hd; i += 8) _mm256_storeu_ps(o + i, _mm256_mul_ps(_mm256_loadu_ps(o + i), inv));
  }
}

}  // namespace

void attention(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
               int n_kv_heads) {
  // The tile walks every row's keys from position 0: a row starting past it (a sliding
  // window) runs on the decode path, or on the reference where that path does not fit.
  if (a.head_dim % 8 != 0 || (a.first_token > 0 && !attention_decode_fits(a))) {
    reference::attention(a, q, out, scratch, first_kv_head, n_kv_heads);
    return;
  }
  Tile T;
  T.a = &a;
  T.group = a.n_head / a.n_head_kv;
  T.n_rh = a.n_rows * T.group;
  T.rh_pad = (T.n_rh + kGroupLanes - 1) / kGroupLanes * kGroupLanes;
  T.bt = a.block_tokens;
  T.window_blocks = a.block_tokens < kAttentionTileWindowKeys ? kAttentionTileWindowKeys / a.block_tokens : 1;
  T.w_pad = (T.window_blocks * T.bt + 7) / 8 * 8;
  T.stride = a.row_stride_floats != 0 ? a.row_stride_floats : static_cast<size_t>(a.n_head) * a.head_dim;
  T.query_lanes = T.n_rh >= 8;
  T.q = q;
  T.out = out;
  const size_t hd = static_cast<size_t>(a.head_dim);
  // Cache-line aligned (the size leaves room): vector loads then never split across lines.
  T.qt = reinterpret_cast<float*>((reinterpret_cast<uintptr_t>(scratch) + 63) & ~uintptr_t{63});
  T.kf = T.qt + hd * T.rh_pad;
  T.vf = T.kf + hd * T.w_pad + hd;  // one spare row after K: the transpose's staging row
  T.s = T.vf + hd * T.w_pad;
  T.max = T.s + static_cast<size_t>(T.w_pad) * T.rh_pad;
  T.sum = T.max + T.rh_pad;
  T.rescale = T.sum + T.rh_pad;
  T.n_keys = T.rescale + static_cast<size_t>(T.window_blocks) * T.rh_pad;
  if (attention_decode_fits(a)) {
    attention_decode(a, q, out, scratch, first_kv_head, n_kv_heads);
    return;
  }
  for (int kv = first_kv_head; kv < first_kv_head + n_kv_heads; ++kv) {
    T.kv = kv;
    T.head_offset = static_cast<size_t>(kv) * kv_head_bytes(a.kv_type, a.head_dim);
    attend_tile(T);
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
