// Ling 3.0 (bailingmoe3) and Kimi Linear (kimi-linear) in a test model: DeepSeek's latent attention
// (Ling's with a gate per head) in every full_attn_interval-th layer (l + 1 a multiple of it), Kimi
// Delta Attention in the others, the keys and tensor names ik_llama.cpp (Ling) and llama.cpp (Kimi)
// read. The KDA values keep the recurrence alive over tens of
// positions: time-step biases near -3 and rates ssm_a in [0.5, 1.5] put sigmoid(a (f + bias)) near
// 0.05, so with the lower bound -5 a channel keeps about 0.8 of its state per position.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

GgufValue kda_count(int x) { return GgufValue::U32(static_cast<uint32_t>(x)); }

bool kda_layer(const TestModelSpec& s, int layer) { return (layer + 1) % s.full_attn_interval != 0; }

// A KDA layer's q, k and v and their convolutions (taps in [-0.5, 0.5] from rng), as [taps, 1,
// channels], or with four_d PyTorch's [taps, 1, channels, 1].
void add_kda_qkv(ModelBuilder& b, const TestModelSpec& s, const std::string& p, bool four_d, std::mt19937& rng) {
  const int values = s.n_head * s.ssm_head_k_dim;
  b.matrix(p + "attn_q.weight", s.n_embd, values);
  b.matrix(p + "attn_k.weight", s.n_embd, values);
  b.matrix(p + "attn_v.weight", s.n_embd, values);
  std::uniform_real_distribution<float> tap(-0.5f, 0.5f);
  std::vector<uint64_t> dims = {static_cast<uint64_t>(s.ssm_conv_kernel), 1, static_cast<uint64_t>(values)};
  if (four_d) dims.push_back(1);
  for (const char* part : {"q", "k", "v"}) {
    std::vector<float> conv(static_cast<size_t>(s.ssm_conv_kernel) * values);
    for (float& x : conv) x = tap(rng);
    b.values(p + "ssm_conv1d_" + part + ".weight", conv, dims);
  }
}

// One KDA layer: q, k, v and a convolution for each, the decay and gate inputs (named with the
// "_a" suffix in even layers and without it in odd ones: converters write either), beta, the
// per-head rates, the per-channel biases, the norm and the output.
void add_kda(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int values = s.n_head * s.ssm_head_k_dim;
  std::mt19937 rng(s.seed * 7919u + static_cast<uint32_t>(layer));
  add_kda_qkv(b, s, p, /*four_d=*/false, rng);
  std::uniform_real_distribution<float> rate(0.5f, 1.5f);
  const std::string suffix = layer % 2 == 0 ? "_a.weight" : ".weight";
  b.matrix(p + "ssm_f" + suffix, s.n_embd, values);
  b.matrix(p + "ssm_g" + suffix, s.n_embd, values);
  b.matrix(p + "ssm_beta.weight", s.n_embd, s.n_head);
  std::vector<float> a(static_cast<size_t>(s.n_head));
  for (float& x : a) x = rate(rng);
  b.values(p + "ssm_a", a, {1, static_cast<uint64_t>(s.n_head)});
  b.vector(p + "ssm_dt.bias", values, -3.0f, 1.0f);
  b.vector(p + "ssm_norm.weight", s.ssm_head_k_dim, 1.0f, 0.2f);
  b.matrix(p + "attn_output.weight", values, s.n_embd);
}

// One Kimi Linear KDA layer: q, k, v with their convolutions, the decay input through a rank of
// ssm_head_k_dim (ssm_f_a, ssm_f_b), the output gate through the same rank (ssm_g_a, ssm_g_b) in even
// layers and as one attn_gate in odd ones, beta, the rates -exp(u) with u in [-2, 0.5], the biases,
// the norm and the output. Odd layers write the convolutions and rates in PyTorch's 4-D shapes.
void add_kimi_kda(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int values = s.n_head * s.ssm_head_k_dim, rank = s.ssm_head_k_dim;
  const bool odd = layer % 2 == 1;
  std::mt19937 rng(s.seed * 7919u + static_cast<uint32_t>(layer));
  add_kda_qkv(b, s, p, /*four_d=*/odd, rng);
  std::uniform_real_distribution<float> log_rate(-2.0f, 0.5f);
  b.matrix(p + "ssm_f_a.weight", s.n_embd, rank);
  b.matrix(p + "ssm_f_b.weight", rank, values);
  if (odd) {
    b.matrix(p + "attn_gate.weight", s.n_embd, values);
  } else {
    b.matrix(p + "ssm_g_a.weight", s.n_embd, rank);
    b.matrix(p + "ssm_g_b.weight", rank, values);
  }
  b.matrix(p + "ssm_beta.weight", s.n_embd, s.n_head);
  std::vector<float> a(static_cast<size_t>(s.n_head));
  for (float& x : a) x = -std::exp(log_rate(rng));
  std::vector<uint64_t> a_dims = {1, static_cast<uint64_t>(s.n_head)};
  if (odd) a_dims = {1, static_cast<uint64_t>(s.n_head), 1, 1};
  b.values(p + "ssm_a", a, a_dims);
  b.vector(p + "ssm_dt.bias", values, -1.0f, 1.0f);
  b.vector(p + "ssm_norm.weight", s.ssm_head_k_dim, 1.0f, 0.2f);
  b.matrix(p + "attn_output.weight", values, s.n_embd);
}

}  // namespace

void set_kimi_linear_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = s.arch;
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < layer_count(s); ++l) kv_heads.push_back(kda_layer(s, l) ? 0 : (s.mla_split ? 1 : s.n_head));
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".ssm.conv_kernel", kda_count(s.ssm_conv_kernel));
  w.set(a + ".kda.head_dim", kda_count(s.ssm_head_k_dim));
  // As llama.cpp's converter writes Kimi's files: no value_length, no gating function (sigmoid) and
  // no weights-norm key (renormalised).
  for (const char* key : {".attention.value_length", ".expert_gating_func", ".expert_weights_norm"}) w.erase(a + key);
}

void set_bailingmoe3_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = s.arch;
  const int n_blocks = layer_count(s) + 1;  // a NextN block last
  std::vector<int32_t> kv_heads;
  std::vector<float> routed, dense;
  for (int l = 0; l < n_blocks; ++l) {
    kv_heads.push_back(kda_layer(s, l) ? 0 : (s.mla_split ? 1 : s.n_head));
    routed.push_back(l == 2 ? 0.8f : 0.0f);  // a limit that bites in one MoE layer, and the dense one's
    dense.push_back(l == 0 || l == 3 ? 0.7f : 0.0f);
  }
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".nextn_predict_layers", kda_count(1));
  w.set(a + ".ssm.conv_kernel", kda_count(s.ssm_conv_kernel));
  w.set(a + ".kda.head_dim", kda_count(s.ssm_head_k_dim));
  w.set(a + ".kda.safe_gate", GgufValue::Bool(true));
  w.set(a + ".kda.gate_lower_bound", GgufValue::F32(-5.0f));
  w.set(a + ".swiglu_clamp_exp", GgufValue::F32Array(routed));
  w.set(a + ".swiglu_clamp_shexp", GgufValue::F32Array(dense));
  w.set(a + ".expert_shared_feed_forward_length", kda_count(s.n_ff_exp));
  w.set(a + ".expert_group_count", kda_count(4));
  w.set(a + ".expert_group_used_count", kda_count(2));
}

void add_kda_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer) {
  const bool kimi = s.arch == "kimi-linear";
  if (kda_layer(s, layer)) {
    if (kimi) {
      add_kimi_kda(b, s, prefix, layer);
    } else {
      add_kda(b, s, prefix, layer);
    }
    return;
  }
  add_mla_attention(b, s, prefix);
  if (!kimi) b.matrix(prefix + "attn_gate.weight", s.n_embd, s.n_head);
  if (kimi && s.kimi_latent_gate) b.matrix(prefix + "attn_gate.weight", s.n_embd, s.n_head * s.mla_v);
}

}  // namespace strata::testing
