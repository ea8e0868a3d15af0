// AVX2 RMS norm, the feed-forward gates (SiLU, GELU, gpt-oss's clamped SwiGLU), the sigmoid gate
// and Kimi Delta Attention's per-key decays (Ling 3.0's bounded sigmoid, Kimi Linear's softplus).
#include <cmath>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"

namespace strata::kernels::cpu::STRATA_SIMD {

// Sum of squares in four 8-lane accumulators over 32-element steps, combined as
// (a0 + a1) + (a2 + a3), the 8-lane tree, then the leftover elements in index order:
// the order depends only on n.
void rmsnorm(const float* x, const float* weight, int n, float eps, float* out) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 v0 = _mm256_loadu_ps(x + i), v1 = _mm256_loadu_ps(x + i + 8);
    const __m256 v2 = _mm256_loadu_ps(x + i + 16), v3 = _mm256_loadu_ps(x + i + 24);
    a0 = _mm256_fmadd_ps(v0, v0, a0);
    a1 = _mm256_fmadd_ps(v1, v1, a1);
    a2 = _mm256_fmadd_ps(v2, v2, a2);
    a3 = _mm256_fmadd_ps(v3, v3, a3);
  }
  float sum = hsum(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)));
  for (; i < n; ++i) sum += x[i] * x[i];
  const float scale = 1.0f / std::sqrt(sum / static_cast<float>(n) + eps);
  const __m256 vs = _mm256_set1_ps(scale);
  i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), vs);
    _mm256_storeu_ps(out + i, _mm256_mul_ps(v, _mm256_loadu_ps(weight + i)));
  }
  for (; i < n; ++i) out[i] = (x[i] * scale) * weight[i];
}

void silu_mul(float* gate, const float* up, int n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 sign = _mm256_set1_ps(-0.0f);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 g = _mm256_loadu_ps(gate + i);
    const __m256 silu = _mm256_div_ps(g, _mm256_add_ps(one, exp_ps(_mm256_xor_ps(g, sign))));
    _mm256_storeu_ps(gate + i, _mm256_mul_ps(silu, _mm256_loadu_ps(up + i)));
  }
  for (; i < n; ++i) gate[i] = gate[i] / (1.0f + std::exp(-gate[i])) * up[i];
}

// GELU's tanh form through 1 + tanh(u) = 2 / (1 + e^-2u): gelu(g) = g / (1 + e^-z) with
// z = 2 sqrt(2 / pi) (g + 0.044715 g^3), SiLU's shape with one more polynomial.
void gelu_mul(float* gate, const float* up, int n) {
  constexpr float kTwoSqrt2OverPi = 1.5957691216057308f;
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 c3 = _mm256_set1_ps(0.044715f);
  const __m256 neg_c = _mm256_set1_ps(-kTwoSqrt2OverPi);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 g = _mm256_loadu_ps(gate + i);
    const __m256 g3 = _mm256_mul_ps(_mm256_mul_ps(g, g), g);
    const __m256 neg_z = _mm256_mul_ps(_mm256_fmadd_ps(c3, g3, g), neg_c);
    const __m256 gelu = _mm256_div_ps(g, _mm256_add_ps(one, exp_ps(neg_z)));
    _mm256_storeu_ps(gate + i, _mm256_mul_ps(gelu, _mm256_loadu_ps(up + i)));
  }
  for (; i < n; ++i) {
    const float g = gate[i];
    gate[i] = g / (1.0f + std::exp(-kTwoSqrt2OverPi * (g + 0.044715f * g * g * g))) * up[i];
  }
}

// gpt-oss's clamped SwiGLU in the scalar form's order: g / (1 + e^(-1.702 g)) * (u + 1). min and
// max return their second operand when the first is NaN, as fmin / fmax return the number.
void swiglu_oai(float* gate, const float* up, int n) {
  constexpr float kAlpha = 1.702f;
  constexpr float kLimit = 7.0f;
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 limit = _mm256_set1_ps(kLimit), neg_limit = _mm256_set1_ps(-kLimit);
  const __m256 neg_alpha = _mm256_set1_ps(-kAlpha);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 g = _mm256_min_ps(_mm256_loadu_ps(gate + i), limit);
    const __m256 u = _mm256_max_ps(_mm256_min_ps(_mm256_loadu_ps(up + i), limit), neg_limit);
    const __m256 glu = _mm256_div_ps(g, _mm256_add_ps(one, exp_ps(_mm256_mul_ps(neg_alpha, g))));
    _mm256_storeu_ps(gate + i, _mm256_mul_ps(glu, _mm256_add_ps(u, one)));
  }
  for (; i < n; ++i) {
    const float g = std::fmin(gate[i], kLimit);
    const float u = std::fmax(std::fmin(up[i], kLimit), -kLimit);
    gate[i] = g / (1.0f + std::exp(-kAlpha * g)) * (u + 1.0f);
  }
}

namespace {

// Lanes [0, n) set, n in [1, 8).
__m256i first_lanes(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// u / (1 + e^-g): the reference's form with exp_ps for e^x.
__m256 sigmoid_mul8(__m256 g, __m256 u) {
  const __m256 neg_g = _mm256_xor_ps(g, _mm256_set1_ps(-0.0f));
  return _mm256_div_ps(u, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_ps(neg_g)));
}

// exp(bound / (1 + e^-x)), x = rate (f + bias): the reference's form with exp_ps for e^x.
__m256 kda_decay8(__m256 f, __m256 bias, __m256 rate, __m256 bound) {
  const __m256 neg_x = _mm256_xor_ps(_mm256_mul_ps(rate, _mm256_add_ps(f, bias)), _mm256_set1_ps(-0.0f));
  return exp_ps(_mm256_div_ps(bound, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_ps(neg_x))));
}

// softplus(x) = log1p(e^x) as ssm_softplus (model/recurrent_rows.h): x itself past 20. log1p(u)
// is log(w) u / (w - 1), w = 1 + u rounded (w - 1 is exact), which cancels w's rounding to first
// order where log(w) alone would lose u's low bits; where w rounds to 1, log1p(u) is u to within
// u^2 / 2. Within about 6 ulp of the float64 softplus for x in [-87, 20] (exp_ps's clamp: below
// it the result is e^-87 rather than e^x, under 1.7e-38).
__m256 softplus8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 u = exp_ps(x);
  const __m256 w = _mm256_add_ps(one, u);
  const __m256 log1p_u = _mm256_mul_ps(log_ps(w), _mm256_div_ps(u, _mm256_sub_ps(w, one)));
  const __m256 small = _mm256_blendv_ps(log1p_u, u, _mm256_cmp_ps(w, one, _CMP_EQ_OQ));
  return _mm256_blendv_ps(small, x, _mm256_cmp_ps(x, _mm256_set1_ps(20.0f), _CMP_GT_OQ));
}

// exp(rate softplus(f + bias)): Kimi Linear's decay with the reference's order of operations.
__m256 kda_softplus_decay8(__m256 f, __m256 bias, __m256 rate) {
  return exp_ps(_mm256_mul_ps(rate, softplus8(_mm256_add_ps(f, bias))));
}

// out[i] = op(a[i], b[i]) for i < n, 8 lanes at a time. The last n % 8 elements are one more
// block read and written with lane masks, so an element gets the same bits wherever it sits (the
// sigmoid gate and the decays are per element). out may be a (each block is read before it is
// written).
template <class Op>
void map_pairs8(const float* a, const float* b, int n, float* out, Op op) {
  int i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, op(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  if (i < n) {
    const __m256i m = first_lanes(n - i);
    _mm256_maskstore_ps(out + i, m, op(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m)));
  }
}

}  // namespace

void sigmoid_mul(float* gate, const float* up, int n) { map_pairs8(gate, up, n, gate, sigmoid_mul8); }

void kda_decay(const float* f, const float* bias, float rate, float bound, int n, float* decay) {
  const __m256 vrate = _mm256_set1_ps(rate), vbound = _mm256_set1_ps(bound);
  map_pairs8(f, bias, n, decay, [&](__m256 fv, __m256 bv) { return kda_decay8(fv, bv, vrate, vbound); });
}

void kda_softplus_decay(const float* f, const float* bias, float rate, int n, float* decay) {
  const __m256 vrate = _mm256_set1_ps(rate);
  map_pairs8(f, bias, n, decay, [&](__m256 fv, __m256 bv) { return kda_softplus_decay8(fv, bv, vrate); });
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
