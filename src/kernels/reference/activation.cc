// Scalar gates: SwiGLU silu(g) * u with silu(g) = g / (1 + e^-g), GELU (tanh form) g * u,
// gpt-oss's and Step 3.5's clamped SwiGLUs, the sigmoid gate sigmoid(g) * u and Kimi Delta
// Attention's per-key decay.
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void silu_mul(float* gate, const float* up, int n) {
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

// Step 3.5's: the silu clamped from above only, the linear part on both sides.
void silu_mul_clamped(float* gate, const float* up, int n, float limit) {
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    const float u = std::fmax(std::fmin(up[i], limit), -limit);
    gate[i] = std::fmin(g / (1.0f + std::exp(-g)), limit) * u;
  }
}

// The tanh form of GELU, as written.
void gelu_mul(float* gate, const float* up, int n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  for (int i = 0; i < n; ++i) {
    const float g = gate[i];
    gate[i] = 0.5f * g * (1.0f + std::tanh(kSqrt2OverPi * (g + 0.044715f * g * g * g))) * up[i];
  }
}

// The gate is clamped from above only and the linear part on both sides (gpt-oss's
// alpha 1.702 and limit 7, constants of the architecture: its files carry no key for them).
void swiglu_oai(float* gate, const float* up, int n) {
  constexpr float kAlpha = 1.702f;
  constexpr float kLimit = 7.0f;
  for (int i = 0; i < n; ++i) {
    const float g = std::fmin(gate[i], kLimit);
    const float u = std::fmax(std::fmin(up[i], kLimit), -kLimit);
    gate[i] = g / (1.0f + std::exp(-kAlpha * g)) * (u + 1.0f);
  }
}

// sigmoid(g) * u as u / (1 + e^-g): one rounding fewer than forming the sigmoid first. A gate
// below about -88 makes e^-g infinite and the result 0 (of the sign of u), its limit.
void sigmoid_mul(float* gate, const float* up, int n) {
  for (int i = 0; i < n; ++i) gate[i] = up[i] / (1.0f + std::exp(-gate[i]));
}

// exp(bound * sigmoid(x)) with bound * sigmoid(x) formed as bound / (1 + e^-x), x = rate (f + bias).
void kda_decay(const float* f, const float* bias, float rate, float bound, int n, float* decay) {
  for (int j = 0; j < n; ++j) {
    const float x = rate * (f[j] + bias[j]);
    decay[j] = std::exp(bound / (1.0f + std::exp(-x)));
  }
}

// exp(rate softplus(x)), x = f + bias, with Kimi Linear's softplus as the model had it in scalar
// code (model/recurrent_rows.h's ssm_softplus): x itself past 20, where log1p(e^x) rounds to x.
void kda_softplus_decay(const float* f, const float* bias, float rate, int n, float* decay) {
  for (int j = 0; j < n; ++j) {
    const float x = f[j] + bias[j];
    decay[j] = std::exp(rate * (x > 20.0f ? x : std::log1p(std::exp(x))));
  }
}

}  // namespace strata::kernels::reference
