// The float64 reference's Gemma 4 parts: the 26B-A4B's experts beside the dense feed-forward, and
// the E2B / E4B's per-layer inputs (Hparams says what each computes).
#include <cmath>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

// Gemma 4: the dense feed-forward of ffn_norm(h), post-normed, plus the experts of
// pre_ffw_norm_2(h) routed on RMS-norm(h) times the input scale over sqrt(n_embd), post-normed;
// the sum post-normed again.
Vec ReferenceForward::moe_beside_dense(const Layer& l, const Vec& h) const {
  const int n = hp_.n_embd;
  const Vec normed = rmsnorm(h.data(), l.ffn_norm, n, hp_.rms_eps);
  Vec dense = swiglu(l.w_gate, l.w_up, l.w_down, 0, static_cast<size_t>(hp_.ffn_width(l.index)), normed, Gate::kGelu);
  dense = rmsnorm(dense.data(), l.ffn_post_norm_1, n, hp_.rms_eps);
  Vec router_x = rmsnorm(h.data(), Vec(static_cast<size_t>(n), 1.0), n, hp_.rms_eps);
  for (int i = 0; i < n; ++i) router_x[i] *= l.router_in_scale[static_cast<size_t>(i)] / std::sqrt(static_cast<double>(n));
  Vec experts = routed_experts(l, router_x, rmsnorm(h.data(), l.ffn_pre_norm_2, n, hp_.rms_eps));
  experts = rmsnorm(experts.data(), l.ffn_post_norm_2, n, hp_.rms_eps);
  add(experts, dense);
  return rmsnorm(experts.data(), l.ffn_post_norm, n, hp_.rms_eps);
}

// Gemma 4's MoE tensors: the norms, the router's input scale, the experts' output scales, and
// the experts' fused gate and up rows.
Status ReferenceForward::decode_moe_beside_dense(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "post_ffw_norm_1.weight", true, &l.ffn_post_norm_1));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "pre_ffw_norm_2.weight", true, &l.ffn_pre_norm_2));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "post_ffw_norm_2.weight", true, &l.ffn_post_norm_2));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_gate_inp.scale", true, &l.router_in_scale));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "ffn_down_exps.scale", false, &l.exp_out_scale));
  return decode_gate_up_exps(gguf, p, l);
}

Status ReferenceForward::decode_per_layer_inputs(const GgufFile& gguf) {
  STRATA_RETURN_IF_ERROR(decode(gguf, "per_layer_token_embd.weight", true, &ple_token_embd_));
  STRATA_RETURN_IF_ERROR(decode(gguf, "per_layer_model_proj.weight", true, &ple_model_proj_));
  return decode(gguf, "per_layer_proj_norm.weight", true, &ple_proj_norm_);
}

Vec ReferenceForward::per_layer_inputs(int32_t token, const Vec& x) const {
  const auto per_layer = static_cast<size_t>(hp_.n_embd_per_layer);
  const size_t width = per_layer * static_cast<size_t>(hp_.n_layer);
  Vec proj = matvec(ple_model_proj_, x);
  Vec out(width);
  for (size_t l = 0; l < static_cast<size_t>(hp_.n_layer); ++l) {
    double* part = proj.data() + l * per_layer;
    for (size_t i = 0; i < per_layer; ++i) part[i] /= std::sqrt(static_cast<double>(hp_.n_embd));
    const Vec normed = rmsnorm(part, ple_proj_norm_, static_cast<int>(per_layer), hp_.rms_eps);
    for (size_t i = 0; i < per_layer; ++i) {
      const double from_token = ple_token_embd_[static_cast<size_t>(token) * width + l * per_layer + i];
      out[l * per_layer + i] = (normed[i] + from_token * std::sqrt(static_cast<double>(per_layer))) / std::sqrt(2.0);
    }
  }
  return out;
}

// Adds layer l's per-layer input block to h: post_norm(proj . (GELU(inp_gate . h) * input)).
void ReferenceForward::add_per_layer_block(const Layer& l, const Vec& inputs, Vec& h) const {
  Vec gate = matvec(l.ple_gate, h);
  const size_t per_layer = gate.size();
  for (size_t i = 0; i < per_layer; ++i) {
    gate[i] = gated(Gate::kGelu, gate[i], inputs[static_cast<size_t>(l.index) * per_layer + i]);
  }
  const Vec y = matvec(l.ple_proj, gate);
  add(h, rmsnorm(y.data(), l.ple_post_norm, hp_.n_embd, hp_.rms_eps));
}

}  // namespace strata::testing
