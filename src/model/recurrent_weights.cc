#include "model/recurrent_weights.h"

#include <algorithm>
#include <string>
#include <vector>

namespace strata {
namespace {

// Dims as written, or with one more trailing 1 (some converters keep PyTorch's 4-D shapes).
std::vector<uint64_t> with_trailing_one(WeightBinder& b, const std::string& name, std::vector<uint64_t> dims) {
  if (const GgufTensor* t = b.find_tensor(name); t != nullptr && t->dims.size() == dims.size() + 1) dims.push_back(1);
  return dims;
}

// A KDA layer's decay and output-gate inputs: Ling 3.0's per channel (ssm_f_a or ssm_f, ssm_g_a or
// ssm_g: converters write either name), Kimi Linear's through hp.kda_rank (ssm_f_a then ssm_f_b;
// ssm_g_a then ssm_g_b, or one full attn_gate).
void bind_kda_gates(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t values = static_cast<int64_t>(hp.ssm_n_v_heads) * hp.ssm_head_v_dim;
  if (hp.kda_rank == 0) {
    const auto either = [&](const std::string& name) { return b.has(p + name + "_a.weight") ? name + "_a" : name; };
    lw.ssm_alpha = b.matrix(p + either("ssm_f") + ".weight", hp.n_embd, values);
    lw.ssm_z = b.matrix(p + either("ssm_g") + ".weight", hp.n_embd, values);
    return;
  }
  lw.ssm_alpha = b.matrix(p + "ssm_f_a.weight", hp.n_embd, hp.kda_rank);
  lw.ssm_alpha_b = b.matrix(p + "ssm_f_b.weight", hp.kda_rank, values);
  if (b.has(p + "attn_gate.weight")) {
    lw.ssm_z = b.matrix(p + "attn_gate.weight", hp.n_embd, values);
    return;
  }
  lw.ssm_z = b.matrix(p + "ssm_g_a.weight", hp.n_embd, hp.kda_rank);
  lw.ssm_z_b = b.matrix(p + "ssm_g_b.weight", hp.kda_rank, values);
}

}  // namespace

// A gated delta-net layer's tensors (LayerWeights), with the names and shapes llama.cpp's
// converter gives Qwen3.5's and (Hparams::ssm_grouped) Qwen3-Next's.
void bind_delta_net(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t value_dim = static_cast<int64_t>(hp.ssm_n_v_heads) * hp.ssm_head_v_dim;
  if (hp.ssm_grouped) {
    lw.ssm_in = b.matrix(p + "ssm_in.weight", hp.n_embd, hp.ssm_conv_channels() + value_dim);
    lw.ssm_ba = b.matrix(p + "ssm_ba.weight", hp.n_embd, 2 * static_cast<int64_t>(hp.ssm_n_v_heads));
  } else {
    lw.ssm_qkv = b.matrix(p + "attn_qkv.weight", hp.n_embd, hp.ssm_conv_channels());
    lw.ssm_z = b.matrix(p + "attn_gate.weight", hp.n_embd, value_dim);
    lw.ssm_beta = b.matrix(p + "ssm_beta.weight", hp.n_embd, hp.ssm_n_v_heads);
    lw.ssm_alpha = b.matrix(p + "ssm_alpha.weight", hp.n_embd, hp.ssm_n_v_heads);
  }
  lw.ssm_out = b.matrix(p + "ssm_out.weight", value_dim, hp.n_embd);
  lw.ssm_conv = b.vectors(p + "ssm_conv1d.weight", hp.ssm_conv_kernel, hp.ssm_conv_channels(), true);
  lw.ssm_dt_bias = b.vector(p + "ssm_dt.bias", hp.ssm_n_v_heads, true);
  lw.ssm_a = b.vector(p + "ssm_a", hp.ssm_n_v_heads, true);
  lw.ssm_norm = b.vector(p + "ssm_norm.weight", hp.ssm_head_v_dim, true);
}

// A Mamba-2 layer's tensors, in the shapes llama.cpp's converter writes: ssm_a and ssm_d as
// {1, n_heads}, ssm_norm as {values per group, groups}; the convolution's bias when the file has
// one (every Granite 4.0-H and Nemotron-H file does), and for Falcon-H1 ssm_norm when the file has it.
void bind_mamba2(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t value_dim = static_cast<int64_t>(hp.ssm_n_v_heads) * hp.ssm_head_v_dim;
  const int64_t channels = hp.ssm_conv_channels();
  lw.ssm_in = b.matrix(p + "ssm_in.weight", hp.n_embd, value_dim + channels + hp.ssm_n_v_heads);
  lw.ssm_out = b.matrix(p + "ssm_out.weight", value_dim, hp.n_embd);
  lw.ssm_conv = b.vectors(p + "ssm_conv1d.weight", hp.ssm_conv_kernel, channels, true);
  lw.ssm_conv_b = b.vector(p + "ssm_conv1d.bias", channels, false);  // optional, as llama.cpp reads it
  lw.ssm_dt_bias = b.vector(p + "ssm_dt.bias", hp.ssm_n_v_heads, true);
  lw.ssm_a = b.vectors(p + "ssm_a", 1, hp.ssm_n_v_heads, true);
  lw.ssm_d = b.vectors(p + "ssm_d", 1, hp.ssm_n_v_heads, true);
  // Falcon-H1's files may go without (llama.cpp reads it as optional there).
  lw.ssm_norm = b.vectors(p + "ssm_norm.weight", value_dim / hp.ssm_n_k_heads, hp.ssm_n_k_heads,
                          !hp.ssm_parallel_attention);
}

// An LFM2 short-convolution layer's tensors: in_proj {n_embd, 3 n_embd} viewed as its B, C and x
// rows, the taps {l_cache, n_embd}, out_proj {n_embd, n_embd}.
void bind_short_conv(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t n = hp.n_embd;
  const kernels::WeightMatrix in = b.matrix(p + "shortconv.in_proj.weight", n, 3 * n);
  lw.conv_b = WeightBinder::rows(in, 0, n);
  lw.conv_c = WeightBinder::rows(in, n, n);
  lw.conv_x = WeightBinder::rows(in, 2 * n, n);
  lw.ssm_conv = b.vectors(p + "shortconv.conv.weight", hp.ssm_conv_kernel, n, true);
  lw.ssm_out = b.matrix(p + "shortconv.out_proj.weight", n, n);
}

// A Kimi Delta Attention layer's tensors (Hparams::ssm_kda), with the names and shapes llama.cpp's
// and ik_llama.cpp's converters give Ling 3.0's and Kimi Linear's: q, k and v in wq / wk / wv, each
// with its convolution (ssm_conv1d_q/_k/_v, [taps, 1, channels]: one buffer here, q's channels, then
// k's, then v's), the gates' inputs (bind_kda_gates), ssm_a per head ([1, heads]), ssm_dt.bias per
// channel, and attn_output as ssm_out.
void bind_kda(WeightBinder& b, const Hparams& hp, const std::string& p, LayerWeights& lw) {
  const int64_t values = static_cast<int64_t>(hp.ssm_n_v_heads) * hp.ssm_head_v_dim;
  lw.wq = b.matrix(p + "attn_q.weight", hp.n_embd, values);
  lw.wk = b.matrix(p + "attn_k.weight", hp.n_embd, values);
  lw.wv = b.matrix(p + "attn_v.weight", hp.n_embd, values);
  bind_kda_gates(b, hp, p, lw);
  lw.ssm_beta = b.matrix(p + "ssm_beta.weight", hp.n_embd, hp.ssm_n_v_heads);
  lw.ssm_out = b.matrix(p + "attn_output.weight", values, hp.n_embd);
  const auto taps = static_cast<uint64_t>(hp.ssm_conv_kernel);
  float* conv = b.owned(static_cast<size_t>(3 * values) * taps);
  for (int part = 0; part < 3; ++part) {
    const std::string name = p + "ssm_conv1d_" + "qkv"[part] + ".weight";
    const std::vector<float> taps_of =
        b.decoded(name, with_trailing_one(b, name, {taps, 1, static_cast<uint64_t>(values)}), true);
    if (taps_of.empty()) return;
    std::copy(taps_of.begin(), taps_of.end(), conv + static_cast<size_t>(part * values) * taps);
  }
  lw.ssm_conv = conv;
  lw.ssm_dt_bias = b.vector(p + "ssm_dt.bias", values, true);
  const GgufTensor* a_tensor = b.find_tensor(p + "ssm_a");
  if (a_tensor == nullptr || a_tensor->dims.size() != 4) {
    lw.ssm_a = b.vectors(p + "ssm_a", 1, hp.ssm_n_v_heads, true);
  } else {  // [1, heads, 1, 1]
    const std::vector<float> a = b.decoded(p + "ssm_a", {1, static_cast<uint64_t>(hp.ssm_n_v_heads), 1, 1}, true);
    if (a.empty()) return;
    float* rates = b.owned(a.size());
    std::copy(a.begin(), a.end(), rates);
    lw.ssm_a = rates;
  }
  lw.ssm_norm = b.vector(p + "ssm_norm.weight", hp.ssm_head_v_dim, true);
}

}  // namespace strata
