// Qwen3.5's and Qwen3-Next's hybrid layers in a test model (qwen35, qwen35moe, qwen3next), with the
// tensor names, shapes and keys llama.cpp's converter writes: every full_attn_interval-th layer (l
// + 1 a multiple of it) attends, with q and an output gate interleaved per head in attn_q; the
// others are gated delta-net layers. The values keep activations O(1) and the recurrence alive over
// tens of positions: decay rates -exp(u) with u in [-2, 0.5] and time-step biases in [-2, 0] give
// per-position decays from about 0.2 to 0.99.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

GgufValue count_value(int x) { return GgufValue::U32(static_cast<uint32_t>(x)); }

// A gated delta-net layer's tensors. ssm_a holds -exp(u) (the file's form of -exp(A_log)),
// drawn from the spec's seed and the layer so each layer decays at its own rates.
void add_delta_net(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int key_dim = s.ssm_n_k_heads * s.ssm_head_k_dim;
  const int value_dim = s.ssm_n_v_heads * s.ssm_head_v_dim;
  const int channels = 2 * key_dim + value_dim;
  const bool grouped = s.arch == "qwen3next";  // q, k, v, z (and b, a) rows per key head
  if (grouped) {
    b.matrix(p + "ssm_in.weight", s.n_embd, channels + value_dim);
  } else {
    b.matrix(p + "attn_qkv.weight", s.n_embd, channels);
    b.matrix(p + "attn_gate.weight", s.n_embd, value_dim);
  }
  // Taps of half-width 0.5: four of them keep a channel's convolution near unit variance.
  b.vectors(p + "ssm_conv1d.weight", s.ssm_conv_kernel, channels, 0.5f);
  b.vector(p + "ssm_dt.bias", s.ssm_n_v_heads, -1.0f, 1.0f);
  std::mt19937 rng(s.seed * 104729u + static_cast<uint32_t>(layer));
  std::uniform_real_distribution<float> log_rate(-2.0f, 0.5f);
  std::vector<float> a(static_cast<size_t>(s.ssm_n_v_heads));
  for (float& x : a) x = -std::exp(log_rate(rng));
  b.values(p + "ssm_a", a);
  if (grouped) {
    b.matrix(p + "ssm_ba.weight", s.n_embd, 2 * s.ssm_n_v_heads);
  } else {
    b.matrix(p + "ssm_beta.weight", s.n_embd, s.ssm_n_v_heads);
    b.matrix(p + "ssm_alpha.weight", s.n_embd, s.ssm_n_v_heads);
  }
  b.vector(p + "ssm_norm.weight", s.ssm_head_v_dim, 1.0f, 0.2f);
  b.matrix(p + "ssm_out.weight", value_dim, s.n_embd);
}

// A gated attention layer's tensors: attn_q gives each head's q, then its gate.
void add_gated_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& p) {
  const int hd = head_dim(s);
  const int q_dim = s.n_head * hd;
  b.matrix(p + "attn_q.weight", s.n_embd, 2 * q_dim);
  b.matrix(p + "attn_k.weight", s.n_embd, s.n_head_kv * hd);
  b.matrix(p + "attn_v.weight", s.n_embd, s.n_head_kv * hd);
  b.vector(p + "attn_q_norm.weight", hd, 1.0f, 0.3f);
  b.vector(p + "attn_k_norm.weight", hd, 1.0f, 0.3f);
  b.matrix(p + "attn_output.weight", q_dim, s.n_embd);
}

}  // namespace

void set_hybrid_metadata(const TestModelSpec& s, GgufWriter& w) {
  auto set = [&](const std::string& key, int value) {
    if (std::find(s.skip_hybrid_keys.begin(), s.skip_hybrid_keys.end(), key) == s.skip_hybrid_keys.end()) {
      w.set(s.arch + "." + key, count_value(value));
    }
  };
  if (s.arch != "qwen3next" || s.full_attn_interval != 4) set("full_attention_interval", s.full_attn_interval);
  set("ssm.conv_kernel", s.ssm_conv_kernel);
  set("ssm.state_size", s.ssm_head_k_dim);
  set("ssm.group_count", s.ssm_n_k_heads);
  set("ssm.time_step_rank", s.ssm_n_v_heads);
  set("ssm.inner_size", s.ssm_n_v_heads * s.ssm_head_v_dim);
  // Qwen3.5 rotates a quarter of each head (64 of 256).
  if (s.n_rot == 0) set("rope.dimension_count", head_dim(s) / 4);
}

void add_hybrid_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer) {
  if ((layer + 1) % s.full_attn_interval == 0) {
    add_gated_attention(b, s, prefix);
  } else {
    add_delta_net(b, s, prefix, layer);
  }
}

}  // namespace strata::testing
