// The float64 reference's gated delta-net layer (Qwen3.5's and Qwen3-Next's linear attention, as
// llama.cpp runs it), one position at a time. From the attention-normed input x:
//   q/k/v channels = attn_qkv x; z = attn_gate x; b = ssm_beta x; a = ssm_alpha x; Qwen3-Next's
//     files hold those matrices' rows interleaved per key head instead (ssm_in: each key head's
//     q, k, v and z rows; ssm_ba: its b and a rows), which the reference takes apart on load;
//   each channel: silu of ssm_conv1d's taps over its last conv_kernel inputs (oldest first,
//     zeros before the first position);
//   each value head h, reading key head h % n_k_heads (Qwen3-Next: h / (n_v_heads / n_k_heads)):
//     q, k divided by max(|.|, rms_eps);
//     g = exp(ssm_a[h] * softplus(a[h] + ssm_dt.bias[h])), beta = sigmoid(b[h]);
//     S = g S;  S += beta (v - S k) k^T;  o = S q / sqrt(dk);
//     o = rmsnorm(o) * ssm_norm * silu(z_h);
//   out = ssm_out o.
// Ling 3.0's Kimi Delta Attention (Hparams::ssm_kda) differs in: q, k, v from attn_q/_k/_v with a
// convolution each; one key head per value head; key channel j of head h decays by
// g_j = exp(kda.gate_lower_bound * sigmoid(ssm_a[h] (f_j + ssm_dt.bias_j))), f = ssm_f_a x
// (S = S diag(g) in place of g S); the output gate sigmoid(z) instead of silu(z); attn_output as ssm_out.
// Kimi Linear's: g_j = exp(ssm_a[h] softplus(f_j + ssm_dt.bias_j)) with f = ssm_f_b (ssm_f_a x), and z =
// ssm_g_b (ssm_g_a x) or attn_gate x.
// Plain loops in double, written from that math, not from delta_net.cc.
#include <algorithm>
#include <cmath>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

namespace {

double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_silu(double x) { return x * ref_sigmoid(x); }
double ref_softplus(double x) { return std::log1p(std::exp(x)); }

// x / max(|x|, eps), for n values from x.
Vec l2_normalised(const double* x, int n, double eps) {
  double sum_sq = 0;
  for (int i = 0; i < n; ++i) sum_sq += x[i] * x[i];
  const double length = std::max(std::sqrt(sum_sq), eps);
  Vec out(x, x + n);
  for (double& v : out) v /= length;
  return out;
}

// Appends rows [first, first + count) of matrix m (rows of n_in) to out.
void append_rows(const Vec& m, size_t n_in, size_t first, size_t count, Vec& out) {
  out.insert(out.end(), m.begin() + static_cast<std::ptrdiff_t>(first * n_in),
             m.begin() + static_cast<std::ptrdiff_t>((first + count) * n_in));
}

}  // namespace

// Qwen3-Next's fused matrices, taken apart into the four of Qwen3.5's layout: for key head g,
// ssm_in's rows are q_g, k_g, v_g, z_g (v and z: the r value heads g r .. g r + r - 1, r =
// n_v_heads / n_k_heads), ssm_ba's rows b_g then a_g.
Status ReferenceForward::decode_grouped_delta_inputs(const GgufFile& gguf, const std::string& p, Layer& l) const {
  Vec in, ba;
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_in.weight", true, &in));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_ba.weight", true, &ba));
  const size_t n_in = static_cast<size_t>(hp_.n_embd), dk = static_cast<size_t>(hp_.ssm_head_k_dim);
  const size_t n_k = static_cast<size_t>(hp_.ssm_n_k_heads);
  const size_t r = static_cast<size_t>(hp_.ssm_n_v_heads) / n_k;
  const size_t group_values = r * static_cast<size_t>(hp_.ssm_head_v_dim), group_rows = 2 * dk + 2 * group_values;
  Vec q, k, v;
  for (size_t g = 0; g < n_k; ++g) {
    append_rows(in, n_in, g * group_rows, dk, q);
    append_rows(in, n_in, g * group_rows + dk, dk, k);
    append_rows(in, n_in, g * group_rows + 2 * dk, group_values, v);
    append_rows(in, n_in, g * group_rows + 2 * dk + group_values, group_values, l.ssm_z);
    append_rows(ba, n_in, g * 2 * r, r, l.ssm_beta);
    append_rows(ba, n_in, g * 2 * r + r, r, l.ssm_alpha);
  }
  l.ssm_qkv = q;
  l.ssm_qkv.insert(l.ssm_qkv.end(), k.begin(), k.end());
  l.ssm_qkv.insert(l.ssm_qkv.end(), v.begin(), v.end());
  return Status::Ok();
}

// Ling 3.0's KDA layer: q, k and v (attn_q/_k/_v) as one matrix of their rows, their three
// convolutions as one of q's channels, then k's, then v's; the decay inputs ssm_f_a (or ssm_f) as
// ssm_alpha, the output gate ssm_g_a (or ssm_g) as ssm_z, attn_output as ssm_out.
Status ReferenceForward::decode_kda(const GgufFile& gguf, const std::string& p, Layer& l) const {
  for (const char* m : {"attn_q", "attn_k", "attn_v"}) {
    Vec rows;
    STRATA_RETURN_IF_ERROR(decode(gguf, p + m + ".weight", true, &rows));
    l.ssm_qkv.insert(l.ssm_qkv.end(), rows.begin(), rows.end());
  }
  for (const char* c : {"ssm_conv1d_q", "ssm_conv1d_k", "ssm_conv1d_v"}) {
    Vec taps;
    STRATA_RETURN_IF_ERROR(decode(gguf, p + c + ".weight", true, &taps));
    l.ssm_conv.insert(l.ssm_conv.end(), taps.begin(), taps.end());
  }
  const auto named = [&](const std::string& name) {
    return gguf.find_tensor(p + name + "_a.weight") != nullptr ? p + name + "_a.weight" : p + name + ".weight";
  };
  if (hp_.kda_rank > 0) {  // Kimi Linear: through the rank; the output gate maybe one attn_gate
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_f_a.weight", true, &l.ssm_alpha));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_f_b.weight", true, &l.ssm_alpha_b));
    const bool full_gate = gguf.find_tensor(p + "attn_gate.weight") != nullptr;
    STRATA_RETURN_IF_ERROR(decode(gguf, p + (full_gate ? "attn_gate.weight" : "ssm_g_a.weight"), true, &l.ssm_z));
    if (!full_gate) STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_g_b.weight", true, &l.ssm_z_b));
  } else {
    STRATA_RETURN_IF_ERROR(decode(gguf, named("ssm_f"), true, &l.ssm_alpha));
    STRATA_RETURN_IF_ERROR(decode(gguf, named("ssm_g"), true, &l.ssm_z));
  }
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_beta.weight", true, &l.ssm_beta));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_output.weight", true, &l.ssm_out));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_dt.bias", true, &l.ssm_dt_bias));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_a", true, &l.ssm_a));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_norm.weight", true, &l.ssm_norm));
  return Status::Ok();
}

Status ReferenceForward::decode_delta_net(const GgufFile& gguf, const std::string& p, Layer& l) const {
  if (hp_.ssm_kda) {
    STRATA_RETURN_IF_ERROR(decode_kda(gguf, p, l));
  } else if (hp_.ssm_grouped) {
    STRATA_RETURN_IF_ERROR(decode_grouped_delta_inputs(gguf, p, l));
  } else {
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_qkv.weight", true, &l.ssm_qkv));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "attn_gate.weight", true, &l.ssm_z));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_beta.weight", true, &l.ssm_beta));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_alpha.weight", true, &l.ssm_alpha));
  }
  if (!hp_.ssm_kda) {
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_out.weight", true, &l.ssm_out));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_conv1d.weight", true, &l.ssm_conv));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_dt.bias", true, &l.ssm_dt_bias));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_a", true, &l.ssm_a));
    STRATA_RETURN_IF_ERROR(decode(gguf, p + "ssm_norm.weight", true, &l.ssm_norm));
  }
  const size_t channels = l.ssm_qkv.size() / hp_.n_embd;
  l.conv_inputs.assign(static_cast<size_t>(hp_.ssm_conv_kernel - 1), Vec(channels, 0.0));
  l.delta_state.assign(static_cast<size_t>(hp_.ssm_n_v_heads),
                       Vec(static_cast<size_t>(hp_.ssm_head_v_dim) * hp_.ssm_head_k_dim, 0.0));
  return Status::Ok();
}

void ReferenceForward::delta_net(Layer& l, const Vec& x, Vec& out) const {
  const int dk = hp_.ssm_head_k_dim, dv = hp_.ssm_head_v_dim, n_k = hp_.ssm_n_k_heads;
  const int taps = hp_.ssm_conv_kernel;
  const Vec qkv = matvec(l.ssm_qkv, x);
  const Vec z = l.ssm_z_b.empty() ? matvec(l.ssm_z, x) : matvec(l.ssm_z_b, matvec(l.ssm_z, x));
  const Vec b = matvec(l.ssm_beta, x);
  const Vec a = l.ssm_alpha_b.empty() ? matvec(l.ssm_alpha, x) : matvec(l.ssm_alpha_b, matvec(l.ssm_alpha, x));
  const size_t channels = qkv.size();

  Vec conv(channels);
  for (size_t c = 0; c < channels; ++c) {
    const double* w = l.ssm_conv.data() + c * taps;
    double y = w[taps - 1] * qkv[c];
    for (int j = 0; j + 1 < taps; ++j) y += w[j] * l.conv_inputs[static_cast<size_t>(j)][c];
    conv[c] = ref_silu(y);
  }
  l.conv_inputs.erase(l.conv_inputs.begin());
  l.conv_inputs.push_back(qkv);

  Vec o(static_cast<size_t>(hp_.ssm_n_v_heads) * dv);
  for (int h = 0; h < hp_.ssm_n_v_heads; ++h) {
    const int kh = hp_.ssm_grouped ? h / (hp_.ssm_n_v_heads / n_k) : h % n_k;
    const Vec q = l2_normalised(conv.data() + kh * dk, dk, hp_.rms_eps);
    const Vec k = l2_normalised(conv.data() + (n_k + kh) * dk, dk, hp_.rms_eps);
    const double* v = conv.data() + 2 * n_k * dk + h * dv;
    const double beta = ref_sigmoid(b[h]);
    Vec& S = l.delta_state[static_cast<size_t>(h)];  // dv rows of dk: S[i * dk + j]
    if (hp_.ssm_kda) {  // key channel j decays by exp(bound * sigmoid(A_h (f_j + dt_bias_j))), or
                        // Kimi Linear's exp(A_h softplus(f_j + dt_bias_j))
      for (int j = 0; j < dk; ++j) {
        const double f = a[h * dk + j] + l.ssm_dt_bias[h * dk + j];
        const double g = hp_.kda_softplus_gate ? std::exp(l.ssm_a[h] * ref_softplus(f))
                                               : std::exp(hp_.kda_gate_lower_bound * ref_sigmoid(l.ssm_a[h] * f));
        for (int i = 0; i < dv; ++i) S[i * dk + j] *= g;
      }
    } else {
      const double g = std::exp(l.ssm_a[h] * ref_softplus(a[h] + l.ssm_dt_bias[h]));
      for (double& s : S) s *= g;
    }
    Vec recalled(dv, 0.0);  // S k
    for (int i = 0; i < dv; ++i) {
      for (int j = 0; j < dk; ++j) recalled[i] += S[i * dk + j] * k[j];
    }
    for (int i = 0; i < dv; ++i) {
      for (int j = 0; j < dk; ++j) S[i * dk + j] += beta * (v[i] - recalled[i]) * k[j];
    }
    Vec head(dv, 0.0);  // S q / sqrt(dk)
    for (int i = 0; i < dv; ++i) {
      for (int j = 0; j < dk; ++j) head[i] += S[i * dk + j] * q[j];
      head[i] /= std::sqrt(static_cast<double>(dk));
    }
    const Vec normed = rmsnorm(head.data(), l.ssm_norm, dv, hp_.rms_eps);
    for (int i = 0; i < dv; ++i) {
      const double zi = z[h * dv + i];
      o[h * dv + i] = normed[i] * (hp_.ssm_kda ? ref_sigmoid(zi) : ref_silu(zi));
    }
  }
  out = matvec(l.ssm_out, o);
}

}  // namespace strata::testing
