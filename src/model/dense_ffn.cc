// The dense feed-forward blocks (model/dense_ffn.h).
#include "model/dense_ffn.h"

#include <cmath>

#include "model/forward_matmul.h"
#include "model/row_loop.h"

namespace strata {
namespace {

// Layer l's xIELU (Hparams::ffn_xielu) over n values in place.
void xielu_row(const Hparams& hp, int layer, float* x, int n) {
  const auto l = static_cast<size_t>(layer);
  const float alpha_n = hp.xielu_alpha_n[l], alpha_p = hp.xielu_alpha_p[l], beta = hp.xielu_beta[l];
  const float eps = hp.xielu_eps[l];
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    x[i] = v > 0.0f ? alpha_p * v * v + beta * v : (std::expm1(std::fmin(v, eps)) - v) * alpha_n + beta * v;
  }
}

// BitNet's gate: relu(g)^2 times u, n values in place of g.
void relu_sq_mul(float* g, const float* u, int n) {
  for (int i = 0; i < n; ++i) {
    const float r = g[i] > 0.0f ? g[i] : 0.0f;
    g[i] = r * r * u[i];
  }
}

// Gemma 3n's sparse gate: of n values, only what exceeds their mean plus std_mul standard
// deviations (n - 1 in the variance's denominator), less that cutoff; the rest 0.
void sparsify_gate(float* g, int n, float std_mul) {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += g[i];
  const float mean = sum / static_cast<float>(n);
  float sq = 0.0f;
  for (int i = 0; i < n; ++i) sq += (g[i] - mean) * (g[i] - mean);
  const float cutoff = mean + std::sqrt(sq / static_cast<float>(n - 1)) * std_mul;
  for (int i = 0; i < n; ++i) {
    const float d = g[i] - cutoff;
    g[i] = d > 0.0f ? d : 0.0f;
  }
}

// A feed-forward without a gate: down(act(up x)), s.gate() holding the middle; act is Nemotron-H's and
// Arcee's relu(.)^2 (Hparams::ffn_relu_sq) or Apertus's xIELU.
void gateless_ffn(const Hparams& hp, const LayerWeights& lw, int layer, int n, ForwardScratch& s, ThreadPool& pool) {
  matmul(lw.w_up, s.normed(), n, s.gate(), s, pool);
  const auto n_ff = static_cast<int>(lw.w_up.n_out);
  {
    ProfileTimer timer(s.profile(), StepPart::kFfnActivation);
    for_each_row(pool, n, n_ff, [&](int r) {
      float* x = s.gate() + static_cast<size_t>(r) * n_ff;
      if (hp.ffn_xielu) {
        xielu_row(hp, layer, x, n_ff);
        return;
      }
      for (int i = 0; i < n_ff; ++i) x[i] = x[i] > 0.0f ? x[i] * x[i] : 0.0f;
    });
  }
  matmul(lw.w_down, s.gate(), n, s.proj(), s, pool);
}

// s.proj()[r] = the SiLU- (GELU-, or clamped SwiGLU-) gated feed-forward of s.normed()[r], of
// the layer's width (Gemma 4 E2B's double-wide layers'), or Nemotron-H's gate-less one.
}  // namespace

void dense_ffn(const Hparams& hp, const LayerWeights& lw, int layer, int n, ForwardScratch& s, ThreadPool& pool) {
  if (hp.ffn_relu_sq || hp.ffn_xielu) {
    gateless_ffn(hp, lw, layer, n, s, pool);
    return;
  }
  const kernels::MatmulJob gate_up[] = {{&lw.w_gate, s.normed(), n, s.gate()}, {&lw.w_up, s.normed(), n, s.up()}};
  matmul_same_input(gate_up, s, pool);
  const auto n_ff = static_cast<int>(lw.w_gate.n_out);
  const float limit = hp.ffn_limit(layer, false);  // Step 3.5's clamped layers
  const bool sparse = hp.ffn_sparse(layer);  // Gemma 3n's first layers
  {
    ProfileTimer timer(s.profile(), StepPart::kFfnActivation);
    for_each_row(pool, n, n_ff, [&](int r) {
      const size_t at = static_cast<size_t>(r) * n_ff;
      if (lw.scales.gate != 1.0f) scale_row(s.gate() + at, lw.scales.gate, n_ff);
      if (lw.scales.up != 1.0f) scale_row(s.up() + at, lw.scales.up, n_ff);
      if (hp.ffn_relu_sq_gated) {
        relu_sq_mul(s.gate() + at, s.up() + at, n_ff);
      } else if (limit > 0.0f) {
        kernels::silu_mul_clamped(s.gate() + at, s.up() + at, n_ff, limit);
      } else if (hp.ffn_gelu) {
        if (sparse) sparsify_gate(s.gate() + at, n_ff, hp.ffn_sparsity_std[static_cast<size_t>(layer)]);
        kernels::gelu_mul(s.gate() + at, s.up() + at, n_ff);
      } else if (hp.swiglu_oai) {
        kernels::swiglu_oai(s.gate() + at, s.up() + at, n_ff);
      } else {
        kernels::silu_mul(s.gate() + at, s.up() + at, n_ff);
      }
      if (lw.ffn_sub_norm != nullptr) kernels::rmsnorm(s.gate() + at, lw.ffn_sub_norm, n_ff, hp.rms_eps, s.gate() + at);
    });
  }
  matmul(lw.w_down, s.gate(), n, s.proj(), s, pool);
  scale_rows(s.proj(), lw.scales.down, n, hp.n_embd, pool);
}

}  // namespace strata
