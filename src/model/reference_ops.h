// The float64 reference's arithmetic (reference_forward.cc, reference_mla.cc,
// reference_delta_net.cc, reference_gemma4.cc): decoding tensors to doubles, RMS-norm,
// matrix-vector products, gated feed-forwards. Test support; plain loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "model/hparams.h"
#include "tensor/quantize.h"

namespace strata::testing::reference_ops {

using Vec = std::vector<double>;

// Decodes a whole tensor (all rows) into doubles; empty when absent and optional.
inline Status decode(const GgufFile& gguf, const std::string& name, bool required, Vec* out) {
  const GgufTensor* t = gguf.find_tensor(name);
  if (t == nullptr) {
    return required ? Status::NotFound("reference: missing tensor " + name) : Status::Ok();
  }
  std::vector<float> f(t->n_elements);
  const size_t n_in = t->dims[0];
  const size_t row_bytes = *dtype_row_bytes(t->type, n_in);
  for (size_t r = 0; r < t->n_elements / n_in; ++r) {
    STRATA_RETURN_IF_ERROR(dequantize_row(t->type, t->data + r * row_bytes, f.data() + r * n_in, n_in));
  }
  out->assign(f.begin(), f.end());
  return Status::Ok();
}

inline Vec rmsnorm(const double* x, const Vec& w, int n, double eps) {
  double ss = 0;
  for (int i = 0; i < n; ++i) ss += x[i] * x[i];
  const double scale = 1.0 / std::sqrt(ss / n + eps);
  Vec out(n);
  for (int i = 0; i < n; ++i) out[i] = x[i] * scale * w[i];
  return out;
}

// Cohere's layer norm: (x - mean) / sqrt(variance + eps) * w.
inline Vec layernorm(const double* x, const Vec& w, int n, double eps) {
  double mean = 0;
  for (int i = 0; i < n; ++i) mean += x[i];
  mean /= n;
  double var = 0;
  for (int i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  const double scale = 1.0 / std::sqrt(var / n + eps);
  Vec out(n);
  for (int i = 0; i < n; ++i) out[i] = (x[i] - mean) * scale * w[i];
  return out;
}

inline Vec matvec(const Vec& m, const Vec& x) {
  const size_t n_in = x.size();
  Vec y(m.size() / n_in, 0.0);
  for (size_t o = 0; o < y.size(); ++o) {
    for (size_t i = 0; i < n_in; ++i) y[o] += m[o * n_in + i] * x[i];
  }
  return y;
}

inline void add(Vec& x, const Vec& y) {
  for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

// Rows [first_row, first_row + n_out) of m (n_in = x.size() wide) times x: one expert's slice.
inline Vec matvec_rows(const Vec& m, size_t first_row, size_t n_out, const Vec& x) {
  const size_t n_in = x.size();
  Vec y(n_out, 0.0);
  for (size_t o = 0; o < n_out; ++o) {
    for (size_t i = 0; i < n_in; ++i) y[o] += m[(first_row + o) * n_in + i] * x[i];
  }
  return y;
}

// The feed-forward gates: SiLU, GELU (tanh form), gpt-oss's clamped SwiGLU.
enum class Gate { kSilu, kGelu, kSwigluOai };

inline Gate gate_of(const Hparams& hp) {
  if (hp.ffn_gelu) return Gate::kGelu;
  return hp.swiglu_oai ? Gate::kSwigluOai : Gate::kSilu;
}

inline double gated(Gate kind, double g, double u) {
  switch (kind) {
    case Gate::kGelu: return 0.5 * g * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (g + 0.044715 * g * g * g))) * u;
    case Gate::kSwigluOai: {
      // gpt-oss: the gate clamped above at 7, the linear part to [-7, 7], sigmoid(1.702 g).
      g = std::min(g, 7.0);
      return g / (1.0 + std::exp(-1.702 * g)) * (std::clamp(u, -7.0, 7.0) + 1.0);
    }
    case Gate::kSilu: break;
  }
  return g / (1.0 + std::exp(-g)) * u;
}

// The element at e * n + i of a per-expert bias, or 0 when there is none.
inline double bias_at(const Vec& b, size_t e, size_t n, size_t i) { return b.empty() ? 0.0 : b[e * n + i]; }

// The gated feed-forward with rows [e * n_ff, (e + 1) * n_ff) of gate/up and the e-th
// n_embd-row slice of down, plus expert e's biases when given (gpt-oss); with limit > 0 (Step
// 3.5's), min(silu(g), limit) * clamp(u, -limit, limit).
inline Vec swiglu(const Vec& gate_m, const Vec& up_m, const Vec& down_m, size_t e, size_t n_ff, const Vec& x, Gate kind,
                  const Vec& gate_b = {}, const Vec& up_b = {}, const Vec& down_b = {}, double limit = 0.0) {
  Vec gate = matvec_rows(gate_m, e * n_ff, n_ff, x), up = matvec_rows(up_m, e * n_ff, n_ff, x);
  for (size_t i = 0; i < n_ff; ++i) {
    const double g = gate[i] + bias_at(gate_b, e, n_ff, i), u = up[i] + bias_at(up_b, e, n_ff, i);
    gate[i] = limit > 0.0 ? std::min(g / (1.0 + std::exp(-g)), limit) * std::clamp(u, -limit, limit) : gated(kind, g, u);
  }
  Vec y = matvec_rows(down_m, e * x.size(), x.size(), gate);
  for (size_t i = 0; i < y.size(); ++i) y[i] += bias_at(down_b, e, y.size(), i);
  return y;
}

// Nemotron-H's feed-forward without a gate: rows [e * n_ff, (e + 1) * n_ff) of up, relu(.)^2, then
// the e-th n_embd-row slice of down.
inline Vec relu_sq_ffn(const Vec& up_m, const Vec& down_m, size_t e, size_t n_ff, const Vec& x) {
  Vec up = matvec_rows(up_m, e * n_ff, n_ff, x);
  for (double& u : up) u = u > 0.0 ? u * u : 0.0;
  return matvec_rows(down_m, e * x.size(), x.size(), up);
}

}  // namespace strata::testing::reference_ops
