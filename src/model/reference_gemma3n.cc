// The float64 reference's Gemma 3n: AltUp's streams around each layer, the laurel branch, the
// sparse feed-forward gates and the streams' merge before the final norm, step by step as
// llama.cpp's gemma3n graph computes them (model/altup.cc states the formulas).
#include <cmath>

#include "model/reference_forward.h"
#include "model/reference_ops.h"

namespace strata::testing {

using namespace reference_ops;  // NOLINT: the reference's own vocabulary

namespace {

double magnitude(const Vec& x) {
  double sum = 0;
  for (double v : x) sum += v * v;
  return std::sqrt(sum);
}

void scale_to(Vec& x, double target) {
  const double own = magnitude(x);
  for (double& v : x) v *= target / own;
}

}  // namespace

Status ReferenceForward::decode_altup(const GgufFile& gguf, const std::string& p, Layer& l) const {
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "altup_router_norm.weight", true, &l.altup_router_norm));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "altup_router.weight", true, &l.altup_router));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "altup_predict_coef.weight", true, &l.altup_predict));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "altup_correct_coef.weight", true, &l.altup_correct));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "altup_correct_scale.weight", true, &l.altup_correct_scale));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "laurel_l.weight", true, &l.laurel_l));
  STRATA_RETURN_IF_ERROR(decode(gguf, p + "laurel_r.weight", true, &l.laurel_r));
  return decode(gguf, p + "laurel_post_norm.weight", true, &l.laurel_post_norm);
}

Status ReferenceForward::decode_altup_tables(const GgufFile& gguf) {
  STRATA_RETURN_IF_ERROR(decode(gguf, "altup_proj.weight", true, &altup_proj_));
  return decode(gguf, "altup_unembd_proj.weight", true, &altup_unembd_);
}

// tanh(router . (RMS-norm(x, router_norm) / n_embd)): the streams' mixing weights.
Vec ReferenceForward::altup_modalities(const Layer& l, const Vec& x) const {
  Vec in = rmsnorm(x.data(), l.altup_router_norm, hp_.n_embd, hp_.rms_eps);
  for (double& v : in) v /= hp_.n_embd;
  Vec m = matvec(l.altup_router, in);
  for (double& v : m) v = std::tanh(v);
  return m;
}

// GELU(gate) * up with the gate sparse in the layers activation_sparsity_scale names: only what
// exceeds the gate's mean plus that many standard deviations (n - 1 in the variance), less it.
Vec ReferenceForward::gemma3n_ffn(const Layer& l, const Vec& x) const {
  Vec gate = matvec(l.w_gate, x);
  const Vec up = matvec(l.w_up, x);
  if (hp_.ffn_sparse(l.index)) {
    double mean = 0, sq = 0;
    for (double g : gate) mean += g;
    mean /= static_cast<double>(gate.size());
    for (double g : gate) sq += (g - mean) * (g - mean);
    const double cutoff =
        mean + std::sqrt(sq / static_cast<double>(gate.size() - 1)) * hp_.ffn_sparsity_std[static_cast<size_t>(l.index)];
    for (double& g : gate) g = std::max(g - cutoff, 0.0);
  }
  for (size_t i = 0; i < gate.size(); ++i) gate[i] = gated(Gate::kGelu, gate[i], up[i]);
  const Vec y = matvec(l.w_down, gate);
  return rmsnorm(y.data(), l.ffn_post_norm, hp_.n_embd, hp_.rms_eps);
}

std::vector<double> ReferenceForward::altup_step(int32_t token) {
  const int n = hp_.n_embd, a = hp_.n_altup;
  Vec x(token_embd_.begin() + static_cast<size_t>(token) * n, token_embd_.begin() + static_cast<size_t>(token + 1) * n);
  for (double& v : x) v *= std::sqrt(static_cast<double>(n));
  const Vec inputs = per_layer_inputs(token, x);
  std::vector<Vec> streams(static_cast<size_t>(a));
  streams[0] = x;
  for (int k = 1; k < a; ++k) {
    streams[k] = matvec_rows(altup_proj_, static_cast<size_t>(k - 1) * n, static_cast<size_t>(n), x);
    scale_to(streams[k], magnitude(x));
  }
  for (Layer& l : layers_) {
    const Vec c = matvec(l.altup_predict, altup_modalities(l, streams[0]));
    std::vector<Vec> pred = streams;
    for (int j = 0; j < a; ++j) {
      for (int k = 0; k < a; ++k) {
        for (int i = 0; i < n; ++i) pred[j][i] += c[static_cast<size_t>(j * a + k)] * streams[k][i];
      }
    }
    Vec h = pred[0];
    const Vec normed = rmsnorm(h.data(), l.attn_norm, n, hp_.rms_eps);
    const Vec branch = matvec(l.laurel_r, matvec(l.laurel_l, normed));
    Vec laurel = rmsnorm(branch.data(), l.laurel_post_norm, n, hp_.rms_eps);
    add(laurel, normed);
    Vec att;
    attention(l, normed, att);
    add(h, att);
    for (int i = 0; i < n; ++i) h[i] = (h[i] + laurel[i]) / std::sqrt(2.0);
    add(h, gemma3n_ffn(l, rmsnorm(h.data(), l.ffn_norm, n, hp_.rms_eps)));
    const Vec d = matvec(l.altup_correct, altup_modalities(l, h));
    for (int j = 0; j < a; ++j) {
      for (int i = 0; i < n; ++i) streams[j][i] = pred[j][i] + (h[i] - pred[0][i]) * (d[j] + 1.0);
    }
    // The per-layer input block, gated by the corrected stream 0 times correct_scale, joins the others.
    Vec gate_in = streams[0];
    for (int i = 0; i < n; ++i) gate_in[i] *= l.altup_correct_scale[i];
    Vec gate = matvec(l.ple_gate, gate_in);
    const size_t per_layer = gate.size();
    for (size_t i = 0; i < per_layer; ++i) {
      gate[i] = gated(Gate::kGelu, gate[i], inputs[static_cast<size_t>(l.index) * per_layer + i]);
    }
    const Vec y = matvec(l.ple_proj, gate);
    const Vec block = rmsnorm(y.data(), l.ple_post_norm, n, hp_.rms_eps);
    for (int k = 1; k < a; ++k) add(streams[k], block);
  }
  ++n_tokens_;
  Vec merged = streams[0];
  for (int k = 1; k < a; ++k) {
    Vec u = matvec_rows(altup_unembd_, static_cast<size_t>(k - 1) * n, static_cast<size_t>(n), streams[k]);
    scale_to(u, magnitude(streams[0]));
    add(merged, u);
  }
  for (double& v : merged) v /= a;
  Vec logits = matvec(output_, rmsnorm(merged.data(), output_norm_, n, hp_.rms_eps));
  for (double& v : logits) v = hp_.final_softcap * std::tanh(v / hp_.final_softcap);
  return logits;
}

}  // namespace strata::testing
