// The prompt tile of cpu/avx2_attention.cc: one kv head's row-heads (the query rows of one
// call times the query heads sharing that kv head) and the scratch they use, shared with
// the AVX-512 table's 16-lane score and value steps (cpu/avx512_attention_tile.cc).
//
// Layout: the transposed queries (qt) and the scores (s) are stored by lane group of
// kGroupLanes row-heads, one vector wide (8 on the AVX2 build, 16 on the AVX-512 build):
// each group's rows are contiguous, so walking head_dim or keys touches consecutive lines
// rather than lines rh_pad floats apart (a 4 KB stride at 1024 row-heads, where every
// access maps to the same L1 set). Any 8 row-heads starting at a multiple of 8 are
// contiguous in s, so the 8-lane softmax reads either layout.
//
// Not thread-safe: a Tile describes one worker's scratch. Helpers are static inline so no
// copy leaks out of the SIMD objects (IsaIsolation).
#pragma once

#include <cstddef>

#include "kernels/cpu/avx2.h"

namespace strata::kernels::cpu::STRATA_SIMD {

#if defined(STRATA_KERNELS_AVX512)
inline constexpr int kGroupLanes = 16;
#else
inline constexpr int kGroupLanes = 8;
#endif

// One kv head's tile and its scratch (see attention_scratch_floats()).
struct Tile {
  const AttentionArgs* a;
  int kv;              // the kv head
  size_t head_offset;  // bytes from a token's K (or V) row to this kv head's
  int group;           // query heads per kv head
  int n_rh;            // row-heads: n_rows * group; row-head j is row j / group, head j % group
  int rh_pad;          // n_rh rounded up to whole lane groups
  int bt;              // block_tokens
  int window_blocks;   // whole blocks per window: scored together, their values in one pass
  int w_pad;           // window keys (window_blocks * bt) rounded up to whole 8-float vectors
  size_t stride;       // floats between rows of q and out
  bool query_lanes;    // scores with row-heads across lanes (else keys across lanes)
  const float* q;
  float* out;
  float* qt;       // query_lanes: qt[qt_index(i, j)] = q_j[i]
  float* kf;       // the window's keys, query_lanes: K[t][head_dim]; else transposed, [head_dim][w_pad]
  float* vf;       // the window's values, V[t][head_dim]
  float* s;        // S at s_index(t, j) (t: key of the window): scores, then the exponentials
  float* max;      // rh_pad running maxima
  float* sum;      // rh_pad running sums
  float* rescale;  // [window_blocks][rh_pad]: each block's rescale of each row-head's output
  float* n_keys;   // [window_blocks][rh_pad]: keys of each block a row-head attends to (whole floats)
};

static inline const float* row_head_q(const Tile& T, int j) {
  return T.q + (j / T.group) * T.stride + static_cast<size_t>(T.kv * T.group + j % T.group) * T.a->head_dim;
}
static inline float* row_head_out(const Tile& T, int j) {
  return T.out + (j / T.group) * T.stride + static_cast<size_t>(T.kv * T.group + j % T.group) * T.a->head_dim;
}
static inline size_t qt_index(const Tile& T, int i, int j) {
  return (static_cast<size_t>(j / kGroupLanes) * T.a->head_dim + i) * kGroupLanes + j % kGroupLanes;
}
static inline size_t s_index(const Tile& T, int t, int j) {
  return (static_cast<size_t>(j / kGroupLanes) * T.w_pad + t) * kGroupLanes + j % kGroupLanes;
}

#if defined(STRATA_KERNELS_AVX512)
// 16-lane steps of the AVX-512 build (cpu/avx512_attention_tile.cc), the same float
// operations per row-head as the 8-lane ones.
// Scores of the window's first n keys for every lane group (query_lanes tiles).
void tile_scores_query_lanes_512(const Tile& T, int n);
// Softmax step for the first n keys of block bi of the window, 16 row-heads at a time.
void tile_softmax_block_512(const Tile& T, int bi, int n);
// Values of the window's first n_blocks blocks for every row-head; head_dim % 16 == 0.
void tile_values_window_512(const Tile& T, int n_blocks);
#endif

}  // namespace strata::kernels::cpu::STRATA_SIMD
