// AVX2 Mamba-2 state step (kernels.h): one position of one head, in lanes of 8 floats.
//
// Per state row s (n floats): s = fma(xdt, B, decay * s), read = s . C, one pass that reads and
// writes each row once: at Granite 4.0-H's and Nemotron-H's sizes (64 to 80 rows of 128 per head,
// heads of every Mamba-2 layer of every sequence) the states outgrow the caches, and their traffic
// is the kernel's cost.
//
// The dot product runs in two 8-lane accumulators, so consecutive FMAs do not wait on each other:
// 8-float block b of the row goes to accumulator b % 2, then hsum(a0 + a1). The last n % 8 floats
// are one more block, read and written with lane masks (never touching memory past the row), so
// every n takes the same path. That order depends only on n, never on p, on which rows share an
// iteration or on threads, so a row's bits depend only on that row, x[i], B, C and the scalars.
// Rows are taken four at a time so one load of B and C serves four rows; the last p % 4 rows run
// the same arithmetic one at a time.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

// What every row of one call shares: the vectors, the decay and the row length split into whole
// 8-float blocks and a masked tail.
struct SsmScanStep {
  const float* B;
  const float* C;
  float decay, dt;
  int n;
  int n_whole;        // floats in whole blocks: n rounded down to a multiple of 8
  bool has_tail;      // n % 8 != 0
  bool tail_odd;      // the tail is block number odd (it goes to accumulator 1)
  __m256i tail_mask;  // lanes [0, n % 8) set
};

SsmScanStep make_ssm_scan_step(const float* B, const float* C, float decay, float dt, int n) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return {B, C, decay, dt, n, n & ~7, (n & 7) != 0, ((n >> 3) & 1) != 0,
          _mm256_cmpgt_epi32(_mm256_set1_epi32(n & 7), lane)};
}

// R consecutive rows from `rows`: s_r = fma(dt * x[r], B, decay * s_r), out[r] = s_r . C.
template <int R>
void ssm_scan_rows(const SsmScanStep& st, float* rows, const float* x, float* out) {
  const __m256 decay = _mm256_set1_ps(st.decay);
  __m256 xdt[R], a0[R], a1[R];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
    xdt[r] = _mm256_set1_ps(st.dt * x[r]);
    a0[r] = a1[r] = _mm256_setzero_ps();
  }
  int j = 0;
  for (; j + 16 <= st.n_whole; j += 16) {
    const __m256 b0 = _mm256_loadu_ps(st.B + j), b1 = _mm256_loadu_ps(st.B + j + 8);
    const __m256 c0 = _mm256_loadu_ps(st.C + j), c1 = _mm256_loadu_ps(st.C + j + 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* s = rows + static_cast<size_t>(r) * st.n + j;
      const __m256 s0 = _mm256_fmadd_ps(xdt[r], b0, _mm256_mul_ps(_mm256_loadu_ps(s), decay));
      const __m256 s1 = _mm256_fmadd_ps(xdt[r], b1, _mm256_mul_ps(_mm256_loadu_ps(s + 8), decay));
      _mm256_storeu_ps(s, s0);
      _mm256_storeu_ps(s + 8, s1);
      a0[r] = _mm256_fmadd_ps(s0, c0, a0[r]);
      a1[r] = _mm256_fmadd_ps(s1, c1, a1[r]);
    }
  }
  if (j < st.n_whole) {
    const __m256 b0 = _mm256_loadu_ps(st.B + j), c0 = _mm256_loadu_ps(st.C + j);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* s = rows + static_cast<size_t>(r) * st.n + j;
      const __m256 s0 = _mm256_fmadd_ps(xdt[r], b0, _mm256_mul_ps(_mm256_loadu_ps(s), decay));
      _mm256_storeu_ps(s, s0);
      a0[r] = _mm256_fmadd_ps(s0, c0, a0[r]);
    }
  }
  if (st.has_tail) {
    const __m256 bt = _mm256_maskload_ps(st.B + st.n_whole, st.tail_mask);
    const __m256 ct = _mm256_maskload_ps(st.C + st.n_whole, st.tail_mask);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      float* s = rows + static_cast<size_t>(r) * st.n + st.n_whole;
      const __m256 s0 = _mm256_fmadd_ps(xdt[r], bt, _mm256_mul_ps(_mm256_maskload_ps(s, st.tail_mask), decay));
      _mm256_maskstore_ps(s, st.tail_mask, s0);
      if (st.tail_odd) {
        a1[r] = _mm256_fmadd_ps(s0, ct, a1[r]);
      } else {
        a0[r] = _mm256_fmadd_ps(s0, ct, a0[r]);
      }
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) out[r] = hsum(_mm256_add_ps(a0[r], a1[r]));
}

}  // namespace

void ssm_scan(float* state, const float* x, const float* B, const float* C, float decay, float dt, int n, int p,
              float* out) {
  if (n <= 0 || p <= 0) return;
  const SsmScanStep st = make_ssm_scan_step(B, C, decay, dt, n);
  int i = 0;
  for (; i + 4 <= p; i += 4) ssm_scan_rows<4>(st, state + static_cast<size_t>(i) * n, x + i, out + i);
  for (; i < p; ++i) ssm_scan_rows<1>(st, state + static_cast<size_t>(i) * n, x + i, out + i);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
