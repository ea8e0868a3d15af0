// The float64 reference's Mamba-2 layer (Granite 4.0-H's and Nemotron-H's recurrent layers, as
// llama.cpp runs them), one position at a time. From the attention-normed input x, with P values a
// head, N state values a group, head h reading group g = h / (heads / groups):
//   ssm_in x = z (heads P), then channels x (heads P), B (groups N), C (groups N), then dt (heads);
//   each channel: silu of ssm_conv1d's taps over its last conv_kernel inputs (oldest first, zeros
//     before the first position) plus ssm_conv1d.bias (0 when the file has none);
//   each head h: d = softplus(dt[h] + ssm_dt.bias[h]), decay = exp(d ssm_a[h]);
//     S_p = decay S_p + d x_p B_g;  y_p = S_p . C_g + ssm_d[h] x_p  (p < P);
//   y = y silu(z), RMS-normed group by group (heads P / groups values each) times ssm_norm;
//   out = ssm_out y.
// Plain loops in double, written from that math, not from mamba2.cc.
#include <cmath>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

namespace {

double gate_silu(double x) { return x / (1.0 + std::exp(-x)); }
double time_step_softplus(double x) { return std::log1p(std::exp(x)); }

}  // namespace

Status ReferenceForward::decode_mamba2(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_in.weight", true, &l.ssm_qkv));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_out.weight", true, &l.ssm_out));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_conv1d.weight", true, &l.ssm_conv));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_conv1d.bias", false, &l.ssm_conv_b));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_dt.bias", true, &l.ssm_dt_bias));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_a", true, &l.ssm_a));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_d", true, &l.ssm_d));
  // Falcon-H1's layers may go without the group norm.
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_norm.weight", !hp_.ssm_parallel_attention, &l.ssm_norm));
  const size_t channels = static_cast<size_t>(hp_.ssm_n_v_heads) * hp_.ssm_head_v_dim +
                          2 * static_cast<size_t>(hp_.ssm_n_k_heads) * hp_.ssm_head_k_dim;
  if (l.ssm_conv_b.empty()) l.ssm_conv_b.assign(channels, 0.0);  // no bias in the file: none
  l.conv_inputs.assign(static_cast<size_t>(hp_.ssm_conv_kernel - 1), Vec(channels, 0.0));
  l.delta_state.assign(static_cast<size_t>(hp_.ssm_n_v_heads),
                       Vec(static_cast<size_t>(hp_.ssm_head_v_dim) * hp_.ssm_head_k_dim, 0.0));
  return Status::Ok();
}

void ReferenceForward::mamba2(Layer& l, const Vec& x, Vec& out) const {
  const int P = hp_.ssm_head_v_dim, N = hp_.ssm_head_k_dim;
  const int heads = hp_.ssm_n_v_heads, groups = hp_.ssm_n_k_heads, taps = hp_.ssm_conv_kernel;
  const size_t values = static_cast<size_t>(heads) * P;
  const size_t channels = values + 2 * static_cast<size_t>(groups) * N;
  const Vec proj = matvec(l.ssm_qkv, x);
  const Vec z(proj.begin(), proj.begin() + static_cast<std::ptrdiff_t>(values));
  const Vec xbc(proj.begin() + static_cast<std::ptrdiff_t>(values),
                proj.begin() + static_cast<std::ptrdiff_t>(values + channels));
  const double* dt = proj.data() + values + channels;

  Vec conv(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double* w = l.ssm_conv.data() + c * taps;
    double sum = l.ssm_conv_b[c] + w[taps - 1] * xbc[c];
    for (int j = 0; j + 1 < taps; ++j) sum += w[j] * l.conv_inputs[static_cast<size_t>(j)][c];
    conv[c] = gate_silu(sum);
  }
  l.conv_inputs.erase(l.conv_inputs.begin());
  l.conv_inputs.push_back(xbc);

  Vec y(values);
  for (int h = 0; h < heads; ++h) {
    const int g = h / (heads / groups);
    const double* B = conv.data() + values + static_cast<size_t>(g) * N;
    const double* C = conv.data() + values + static_cast<size_t>(groups + g) * N;
    const double d = time_step_softplus(dt[h] + l.ssm_dt_bias[static_cast<size_t>(h)]);
    const double decay = std::exp(d * l.ssm_a[static_cast<size_t>(h)]);
    Vec& S = l.delta_state[static_cast<size_t>(h)];  // P rows of N: S[p * N + n]
    for (int p = 0; p < P; ++p) {
      const double xp = conv[static_cast<size_t>(h) * P + p];
      double sum = 0.0;
      for (int n = 0; n < N; ++n) {
        double& s = S[static_cast<size_t>(p) * N + n];
        s = decay * s + d * xp * B[n];
        sum += s * C[n];
      }
      y[static_cast<size_t>(h) * P + p] = sum + l.ssm_d[static_cast<size_t>(h)] * xp;
    }
  }
  for (size_t i = 0; i < values; ++i) y[i] *= gate_silu(z[i]);
  const size_t group_values = values / static_cast<size_t>(groups);
  for (int g = 0; g < groups && !l.ssm_norm.empty(); ++g) {
    double* part = y.data() + static_cast<size_t>(g) * group_values;
    double sum_sq = 0.0;
    for (size_t i = 0; i < group_values; ++i) sum_sq += part[i] * part[i];
    const double inv = 1.0 / std::sqrt(sum_sq / static_cast<double>(group_values) + hp_.rms_eps);
    for (size_t i = 0; i < group_values; ++i) part[i] *= inv * l.ssm_norm[static_cast<size_t>(g) * group_values + i];
  }
  out = matvec(l.ssm_out, y);
}

Status ReferenceForward::decode_falcon_h1(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(decode_mamba2(gguf, p, l));
  return decode_attention(gguf, p, l);
}

// Falcon-H1: the Mamba-2 mixer and attention over the same normed input, their outputs added.
void ReferenceForward::mamba2_beside_attention(Layer& l, const Vec& x, Vec& out) const {
  mamba2(l, x, out);
  Vec att;
  attention(l, x, att);
  add(out, att);
}

}  // namespace strata::testing
