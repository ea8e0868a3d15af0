// AVX2 gated delta rule (kernels.h): one position of one value head, in lanes of 8 floats, with
// one decay for the whole state (delta_rule) or one per key (delta_rule_keys).
//
// Per state row s (dk floats), the reference's two passes, g the decay (a scalar, or a vector
// over the keys applied element-wise):
//   pass 1: recalled = s . (g k)                              (s is only read)
//   pass 2: s = fma(delta, k, g s), read = s . q              (s is read and written once)
// with delta = beta * (v - recalled) and out = read * scale. Pass 1 folds the decay into k
// instead of storing the decayed row (the reference's order of roundings differs, not its
// formula), so each row is stored once, not twice: at Qwen3.5's sizes the states outgrow the
// caches, and the state's traffic is the kernel's cost. A scalar decay multiplies the sum
// instead, decay * (s . k); a vector one is folded into a copy of k made once per call
// (g k on the stack, hence kMaxDeltaRuleKeys), and pass 2 loads its block of g where the scalar
// form broadcasts one value (a template parameter: the scalar form's instructions are as they
// were).
//
// Each dot product runs in two 8-lane accumulators, so consecutive FMAs do not wait on each
// other: 8-float block b of the row goes to accumulator b % 2, then hsum(a0 + a1). The last
// dk % 8 floats are one more block, read and written with lane masks (never touching memory
// past the row), so every dk takes the same path. That order depends only on dk, never on dv,
// on which rows share an iteration or on threads, so a row's bits depend only on that row, q,
// k, the decay, v[i] and the scalars. Rows are taken four at a time so one load of k and q
// serves four rows (two or eight at a time measured slower); the last dv % 4 rows run the same
// arithmetic one at a time.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

// What every row of one call shares: the vectors, the scalars and the row length split into
// whole 8-float blocks and a masked tail.
struct DeltaRuleStep {
  const float* q;
  const float* k;
  const float* recall_k;    // what pass 1 dots a row with: k, or g k with a decay per key
  const float* key_decay;   // the decay per key (pass 2), or nullptr
  float decay, beta, scale;  // decay: the scalar decay, 1 with a decay per key (1 x changes no bits)
  int dk;
  int n_whole;         // floats in whole blocks: dk rounded down to a multiple of 8
  bool has_tail;       // dk % 8 != 0
  bool tail_odd;       // the tail is block number odd (it goes to accumulator 1)
  __m256i tail_mask;   // lanes [0, dk % 8) set
};

DeltaRuleStep make_delta_rule_step(const float* q, const float* k, const float* recall_k, const float* key_decay,
                                   float decay, float beta, float scale, int dk) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return {q,  k, recall_k, key_decay, decay, beta, scale, dk, dk & ~7, (dk & 7) != 0, ((dk >> 3) & 1) != 0,
          _mm256_cmpgt_epi32(_mm256_set1_epi32(dk & 7), lane)};
}

// Adds the masked tail block's product to the accumulator its block number picks.
void delta_rule_add_tail(const DeltaRuleStep& st, __m256 x, __m256 y, __m256& a0, __m256& a1) {
  if (st.tail_odd) {
    a1 = _mm256_fmadd_ps(x, y, a1);
  } else {
    a0 = _mm256_fmadd_ps(x, y, a0);
  }
}

// Pass 1 over R consecutive state rows from `rows`: delta[r] = beta * (v[r] - decay * (s_r . recall_k)).
template <int R>
void delta_rule_recall(const DeltaRuleStep& st, const float* rows, const float* v, float* delta) {
  const float* k = st.recall_k;
  __m256 a0[R], a1[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) a0[r] = a1[r] = _mm256_setzero_ps();
  int j = 0;
  for (; j + 16 <= st.n_whole; j += 16) {
    const __m256 k0 = _mm256_loadu_ps(k + j), k1 = _mm256_loadu_ps(k + j + 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const float* s = rows + static_cast<size_t>(r) * st.dk + j;
      a0[r] = _mm256_fmadd_ps(_mm256_loadu_ps(s), k0, a0[r]);
      a1[r] = _mm256_fmadd_ps(_mm256_loadu_ps(s + 8), k1, a1[r]);
    }
  }
  if (j < st.n_whole) {
    const __m256 k0 = _mm256_loadu_ps(k + j);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      a0[r] = _mm256_fmadd_ps(_mm256_loadu_ps(rows + static_cast<size_t>(r) * st.dk + j), k0, a0[r]);
    }
  }
  if (st.has_tail) {
    const __m256 kt = _mm256_maskload_ps(k + st.n_whole, st.tail_mask);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const float* s = rows + static_cast<size_t>(r) * st.dk + st.n_whole;
      delta_rule_add_tail(st, _mm256_maskload_ps(s, st.tail_mask), kt, a0[r], a1[r]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    const float recalled = st.decay * hsum(_mm256_add_ps(a0[r], a1[r]));
    delta[r] = st.beta * (v[r] - recalled);
  }
}

// The decay of the 8 keys from j: their block of key_decay (kPerKey), else the scalar broadcast.
template <bool kPerKey>
__m256 decay_block(const DeltaRuleStep& st, __m256 broadcast, int j) {
  if constexpr (kPerKey) {
    return _mm256_loadu_ps(st.key_decay + j);
  } else {
    return broadcast;
  }
}

// The same for the tail block; its lanes past dk are 0 and never stored.
template <bool kPerKey>
__m256 decay_tail(const DeltaRuleStep& st, __m256 broadcast) {
  if constexpr (kPerKey) {
    return _mm256_maskload_ps(st.key_decay + st.n_whole, st.tail_mask);
  } else {
    return broadcast;
  }
}

// Pass 2 over the same rows: s_r = fma(delta[r], k, g * s_r), out[r] = scale * (s_r . q), g the
// decay block (decay_block).
template <int R, bool kPerKey>
void delta_rule_write_read(const DeltaRuleStep& st, float* rows, const float* delta, float* out) {
  const float* k = st.k;
  const float* q = st.q;
  const __m256 decay = _mm256_set1_ps(st.decay);
  __m256 d[R], a0[R], a1[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    d[r] = _mm256_set1_ps(delta[r]);
    a0[r] = a1[r] = _mm256_setzero_ps();
  }
  int j = 0;
  for (; j + 16 <= st.n_whole; j += 16) {
    const __m256 k0 = _mm256_loadu_ps(k + j), k1 = _mm256_loadu_ps(k + j + 8);
    const __m256 q0 = _mm256_loadu_ps(q + j), q1 = _mm256_loadu_ps(q + j + 8);
    const __m256 g0 = decay_block<kPerKey>(st, decay, j), g1 = decay_block<kPerKey>(st, decay, j + 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* s = rows + static_cast<size_t>(r) * st.dk + j;
      const __m256 s0 = _mm256_fmadd_ps(d[r], k0, _mm256_mul_ps(_mm256_loadu_ps(s), g0));
      const __m256 s1 = _mm256_fmadd_ps(d[r], k1, _mm256_mul_ps(_mm256_loadu_ps(s + 8), g1));
      _mm256_storeu_ps(s, s0);
      _mm256_storeu_ps(s + 8, s1);
      a0[r] = _mm256_fmadd_ps(s0, q0, a0[r]);
      a1[r] = _mm256_fmadd_ps(s1, q1, a1[r]);
    }
  }
  if (j < st.n_whole) {
    const __m256 k0 = _mm256_loadu_ps(k + j), q0 = _mm256_loadu_ps(q + j);
    const __m256 g0 = decay_block<kPerKey>(st, decay, j);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* s = rows + static_cast<size_t>(r) * st.dk + j;
      const __m256 s0 = _mm256_fmadd_ps(d[r], k0, _mm256_mul_ps(_mm256_loadu_ps(s), g0));
      _mm256_storeu_ps(s, s0);
      a0[r] = _mm256_fmadd_ps(s0, q0, a0[r]);
    }
  }
  if (st.has_tail) {
    const __m256 kt = _mm256_maskload_ps(k + st.n_whole, st.tail_mask);
    const __m256 qt = _mm256_maskload_ps(q + st.n_whole, st.tail_mask);
    const __m256 gt = decay_tail<kPerKey>(st, decay);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* s = rows + static_cast<size_t>(r) * st.dk + st.n_whole;
      const __m256 s0 = _mm256_fmadd_ps(d[r], kt, _mm256_mul_ps(_mm256_maskload_ps(s, st.tail_mask), gt));
      _mm256_maskstore_ps(s, st.tail_mask, s0);
      delta_rule_add_tail(st, s0, qt, a0[r], a1[r]);
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) out[r] = hsum(_mm256_add_ps(a0[r], a1[r])) * st.scale;
}

// Both passes over R consecutive rows. Every per-row operation is the same whatever R is, so
// grouping changes no bits.
template <int R, bool kPerKey>
void delta_rule_row_group(const DeltaRuleStep& st, float* rows, const float* v, float* out) {
  float delta[R];
  delta_rule_recall<R>(st, rows, v, delta);
  delta_rule_write_read<R, kPerKey>(st, rows, delta, out);
}

// All dv rows: four at a time, then the rest one at a time.
template <bool kPerKey>
void delta_rule_rows(const DeltaRuleStep& st, float* state, const float* v, int dv, float* out) {
  const int dk = st.dk;
  int i = 0;
  for (; i + 4 <= dv; i += 4) {
    delta_rule_row_group<4, kPerKey>(st, state + static_cast<size_t>(i) * dk, v + i, out + i);
  }
  for (; i < dv; ++i) delta_rule_row_group<1, kPerKey>(st, state + static_cast<size_t>(i) * dk, v + i, out + i);
}

}  // namespace

void delta_rule(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                float scale, int dk, int dv, float* out) {
  if (dk <= 0 || dv <= 0) return;
  delta_rule_rows<false>(make_delta_rule_step(q, k, k, nullptr, decay, beta, scale, dk), state, v, dv, out);
}

void delta_rule_keys(float* state, const float* q, const float* k, const float* v, const float* decay, float beta,
                     float scale, int dk, int dv, float* out) {
  if (dk <= 0 || dv <= 0) return;
  if (dk > kMaxDeltaRuleKeys) {
    for (int i = 0; i < dv; ++i) out[i] = __builtin_nanf("");
    return;
  }
  // g k, rounded once per key: the same float for every row, so no row's bits depend on another's.
  alignas(32) float decayed_k[kMaxDeltaRuleKeys];
  for (int j = 0; j < dk; ++j) decayed_k[j] = decay[j] * k[j];
  delta_rule_rows<true>(make_delta_rule_step(q, k, decayed_k, decay, 1.0f, beta, scale, dk), state, v, dv, out);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
