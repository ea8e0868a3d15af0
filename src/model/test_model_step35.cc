// Step 3.5's parts in a test model (step35), with the keys and tensor names llama.cpp's converter
// writes: even layers attend over all keys with n_head heads, rotating half of each head by
// rope.freq_base with rope_freqs (a factor per rotated pair, padded with 1s to half a head, as
// the newer converter writes them); odd layers slide over sliding_window keys with half as many
// heads again, rotating all of each head by rope_freq_base. Every layer gates each head's output
// (attn_gate), has QK-norm, and clamps its SwiGLUs where the limits below say. One NextN block
// follows the layers (its values in the per-layer arrays too). Laguna (laguna) has the same
// attention tensors and layer kinds with its own keys: no pattern (the head counts tell), YaRN on
// the full layers, no limits, no NextN block, gates that go through softplus. MiMo-V2 (mimo2) has
// the same layer kinds with n_head query heads in both, n_head_kv K/V heads in the sliding ones and
// n_head_kv_full in the full ones, key heads of head_dim and value heads of 3/4 of it, a quarter of
// each head rotated (NeoX) on base 500000 in the full layers and rope_freq_base in the sliding ones,
// sinks in the sliding ones, v scaled by 0.707; n_dense_lead dense layers (no router), then experts
// by sigmoid gates with a selection bias, renormalised, no shared expert (test_model.cc).
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

GgufValue count(int x) { return GgufValue::U32(static_cast<uint32_t>(x)); }

// Limits that bite on unit-variance gate and up values: layer 0's dense feed-forward, layer 1's
// routed experts and layer 2's shared expert; the NextN block's are written and unused.
float routed_limit(int layer) { return layer == 1 ? 0.8f : 0.0f; }
float dense_limit(int layer) { return layer == 0 || layer == 2 ? 0.7f : 0.0f; }

}  // namespace

bool step35_layer_slides(int layer) { return layer % 2 != 0; }

int step35_heads(const TestModelSpec& s, int layer) { return step35_layer_slides(layer) ? s.n_head * 3 / 2 : s.n_head; }

void set_step35_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = "step35";
  const int n_blocks = layer_count(s) + 1;
  std::vector<GgufValue> pattern;
  std::vector<int32_t> heads;
  std::vector<float> routed, dense;
  for (int l = 0; l < n_blocks; ++l) {
    pattern.push_back(GgufValue::Bool(step35_layer_slides(l)));
    heads.push_back(step35_heads(s, l));
    routed.push_back(routed_limit(l));
    dense.push_back(dense_limit(l));
  }
  w.set(a + ".nextn_predict_layers", count(1));
  w.set(a + ".attention.sliding_window", count(s.sliding_window));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".attention.head_count", GgufValue::I32Array(heads));
  w.set(a + ".attention.key_length", count(head_dim(s)));
  w.set(a + ".attention.value_length", count(head_dim(s)));
  w.set(a + ".rope.freq_base", GgufValue::F32(500000.0f));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(s.rope_freq_base));
  w.set(a + ".swiglu_clamp_exp", GgufValue::F32Array(routed));
  w.set(a + ".swiglu_clamp_shexp", GgufValue::F32Array(dense));
  w.set(a + ".leading_dense_block_count", count(s.n_dense_lead));
  w.set(a + ".expert_shared_feed_forward_length", count(s.n_ff_shexp));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(true));
  w.set(a + ".expert_gating_func", count(2));
}

void add_step35_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int hd = head_dim(s);
  const int heads = step35_heads(s, layer);
  b.matrix(p + "attn_q.weight", s.n_embd, heads * hd);
  b.matrix(p + "attn_k.weight", s.n_embd, s.n_head_kv * hd);
  b.matrix(p + "attn_v.weight", s.n_embd, s.n_head_kv * hd);
  b.vector(p + "attn_q_norm.weight", hd, 1.0f, 0.3f);
  b.vector(p + "attn_k_norm.weight", hd, 1.0f, 0.3f);
  b.matrix(p + "attn_gate.weight", s.n_embd, heads);
  b.matrix(p + "attn_output.weight", heads * hd, s.n_embd);
}

void set_laguna_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = "laguna";
  std::vector<int32_t> heads;
  for (int l = 0; l < layer_count(s); ++l) heads.push_back(step35_heads(s, l));
  // No sliding_window_pattern: the head counts tell the layers apart, as llama.cpp's converter has it.
  w.set(a + ".attention.sliding_window", count(s.sliding_window));
  w.set(a + ".attention.head_count", GgufValue::I32Array(heads));
  w.set(a + ".attention.key_length", count(head_dim(s)));
  w.set(a + ".attention.value_length", count(head_dim(s)));
  w.set(a + ".rope.dimension_count", count(head_dim(s) / 2));
  w.set(a + ".rope.dimension_count_swa", count(head_dim(s)));
  w.set(a + ".rope.freq_base", GgufValue::F32(500000.0f));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(s.rope_freq_base));
  // YaRN on the full layers, over an original context the test prompts pass.
  w.set(a + ".rope.scaling.type", GgufValue::String("yarn"));
  w.set(a + ".rope.scaling.factor", GgufValue::F32(8.0f));
  w.set(a + ".rope.scaling.original_context_length", count(16));
  w.set(a + ".rope.scaling.yarn_ext_factor", GgufValue::F32(1.0f));
  w.set(a + ".rope.scaling.yarn_attn_factor", GgufValue::F32(1.0f));
  w.set(a + ".rope.scaling.yarn_beta_fast", GgufValue::F32(32.0f));
  w.set(a + ".rope.scaling.yarn_beta_slow", GgufValue::F32(1.0f));
  w.set(a + ".leading_dense_block_count", count(s.n_dense_lead));
  w.set(a + ".expert_shared_feed_forward_length", count(s.n_ff_shexp));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(true));
  w.set(a + ".expert_gating_func", count(2));
}

int mimo2_v_head_dim(const TestModelSpec& s) { return head_dim(s) * 3 / 4; }

int mimo2_kv_heads(const TestModelSpec& s, int layer) {
  return step35_layer_slides(layer) ? s.n_head_kv : s.n_head_kv_full;
}

void set_mimo2_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = "mimo2";
  std::vector<GgufValue> pattern;
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < layer_count(s); ++l) {
    pattern.push_back(GgufValue::Bool(step35_layer_slides(l)));
    kv_heads.push_back(mimo2_kv_heads(s, l));
  }
  w.set(a + ".attention.sliding_window", count(s.sliding_window));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".attention.key_length", count(head_dim(s)));
  w.set(a + ".attention.value_length", count(mimo2_v_head_dim(s)));
  w.set(a + ".rope.dimension_count", count(head_dim(s) / 4));
  w.set(a + ".rope.freq_base", GgufValue::F32(500000.0f));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(s.rope_freq_base));
  w.set(a + ".attention.value_scale", GgufValue::F32(0.707f));
}

void add_mimo2_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int hd = head_dim(s);
  const int kv_heads = mimo2_kv_heads(s, layer);
  b.matrix(p + "attn_q.weight", s.n_embd, s.n_head * hd);
  b.matrix(p + "attn_k.weight", s.n_embd, kv_heads * hd);
  b.matrix(p + "attn_v.weight", s.n_embd, kv_heads * mimo2_v_head_dim(s));
  b.matrix(p + "attn_output.weight", s.n_head * mimo2_v_head_dim(s), s.n_embd);
  if (step35_layer_slides(layer)) b.vector(p + "attn_sinks.weight", s.n_head, 0.0f, 3.0f);
}

std::vector<float> step35_rope_freqs(const TestModelSpec& s) {
  const int n_pairs = head_dim(s) / 4;  // a full layer rotates half of each head
  std::vector<float> factors(static_cast<size_t>(head_dim(s) / 2), 1.0f);
  for (int i = 0; i < n_pairs; ++i) factors[static_cast<size_t>(i)] = 1.0f + 0.25f * static_cast<float>(i % 5);
  return factors;
}

}  // namespace strata::testing
