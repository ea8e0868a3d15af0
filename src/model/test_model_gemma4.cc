// Gemma 4's attention layers in a test model (gemma4), with the keys and tensor names llama.cpp's
// converter writes: every third layer (l + 1 a multiple of 3) and the last attend over all keys with heads of
// head_dim_full, n_head_kv_full of them, rotating the first quarter of its pairs (rope_freqs:
// 1 for those, 1e30 for the rest, as the converter writes its "proportional" rope), without
// attn_v unless full_attn_v; the others slide over sliding_window keys with heads of head_dim,
// n_head_kv of them, all rotated. Each layer carries a layer_output_scale. gemma4-moe (written as
// gemma4): the dense feed-forward with experts beside it.
#include <cmath>
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

GgufValue gemma4_count(int x) { return GgufValue::U32(static_cast<uint32_t>(x)); }

}  // namespace

bool gemma4_layer_slides(const TestModelSpec& s, int layer) {
  return (layer + 1) % 3 != 0 && layer + 1 != layer_count(s);
}

void set_gemma4_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = "gemma4";
  const int n_layer = layer_count(s);
  std::vector<GgufValue> pattern;
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < n_layer; ++l) {
    pattern.push_back(GgufValue::Bool(gemma4_layer_slides(s, l)));
    kv_heads.push_back(gemma4_layer_slides(s, l) ? s.n_head_kv : s.n_head_kv_full);
  }
  w.set(a + ".attention.sliding_window", gemma4_count(s.sliding_window));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".attention.key_length", gemma4_count(s.head_dim_full));
  w.set(a + ".attention.value_length", gemma4_count(s.head_dim_full));
  w.set(a + ".attention.key_length_swa", gemma4_count(head_dim(s)));
  w.set(a + ".attention.value_length_swa", gemma4_count(head_dim(s)));
  w.set(a + ".rope.dimension_count", gemma4_count(s.head_dim_full));
  w.set(a + ".rope.dimension_count_swa", gemma4_count(head_dim(s)));
  w.set(a + ".rope.freq_base", GgufValue::F32(1000000.0f));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(s.rope_freq_base));
  w.set(a + ".final_logit_softcapping", GgufValue::F32(s.final_softcap));
  w.set(a + ".embedding_length_per_layer_input", gemma4_count(s.n_embd_per_layer));
  w.set(a + ".attention.shared_kv_layers", gemma4_count(s.n_shared_kv_layers));
  if (s.double_wide_shared) {
    std::vector<int32_t> widths;
    for (int l = 0; l < n_layer; ++l) widths.push_back(gemma4_ffn_width(s, l));
    w.set(a + ".feed_forward_length", GgufValue::I32Array(widths));
  }
}

void add_gemma4_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const bool slides = gemma4_layer_slides(s, layer);
  const int hd = slides ? head_dim(s) : s.head_dim_full;
  const int kv_dim = (slides ? s.n_head_kv : s.n_head_kv_full) * hd;
  const bool shared = layer >= layer_count(s) - s.n_shared_kv_layers;  // reads an earlier layer's K/V
  b.matrix(p + "attn_q.weight", s.n_embd, s.n_head * hd);
  if (!shared) b.matrix(p + "attn_k.weight", s.n_embd, kv_dim);
  if (!shared && (slides || s.full_attn_v)) b.matrix(p + "attn_v.weight", s.n_embd, kv_dim);
  // Scores are q . k unscaled: q norms of 0.25 keep them at a few units, as 1 / sqrt(head) would
  // (softmax over scores of tens would turn float rounding into errors past the tests' bounds).
  b.vector(p + "attn_q_norm.weight", hd, 0.25f, 0.1f);
  if (!shared) b.vector(p + "attn_k_norm.weight", hd, 1.0f, 0.3f);
  b.matrix(p + "attn_output.weight", s.n_head * hd, s.n_embd);
  b.vector(p + "layer_output_scale.weight", 1, 0.6f, 0.3f);
  if (s.n_embd_per_layer > 0) {
    b.matrix(p + "inp_gate.weight", s.n_embd, s.n_embd_per_layer);
    b.matrix(p + "proj.weight", s.n_embd_per_layer, s.n_embd);
    b.vector(p + "post_norm.weight", s.n_embd, 0.5f, 0.1f);
  }
}

void add_gemma4_moe_ffn(ModelBuilder& b, const TestModelSpec& s, const std::string& p) {
  b.matrix(p + "ffn_gate.weight", s.n_embd, s.n_ff);
  b.matrix(p + "ffn_up.weight", s.n_embd, s.n_ff);
  b.matrix(p + "ffn_down.weight", s.n_ff, s.n_embd);
  b.vector(p + "post_ffw_norm_1.weight", s.n_embd, 1.0f, 0.2f);
  b.vector(p + "pre_ffw_norm_2.weight", s.n_embd, 1.0f, 0.2f);
  // The router reads RMS-norm(x) times this scale over sqrt(n_embd): scale of about sqrt(n_embd)
  // gives logits of a few units, as the other MoE test models' routers do.
  const float scale = std::sqrt(static_cast<float>(s.n_embd)) * s.router_scale_factor;
  b.vector(p + "ffn_gate_inp.scale", s.n_embd, scale, 0.25f * scale);
  b.vector_matrix(p + "ffn_gate_inp.weight", s.n_embd, s.n_expert);
  b.matrix(p + "ffn_gate_up_exps.weight", s.n_embd, 2 * s.n_ff_exp, s.n_expert);
  b.matrix(p + "ffn_down_exps.weight", s.n_ff_exp, s.n_embd, s.n_expert);
  b.vector(p + "ffn_down_exps.scale", s.n_expert, 1.0f, 0.5f);
  b.vector(p + "post_ffw_norm_2.weight", s.n_embd, 1.0f, 0.2f);
}

int gemma4_ffn_width(const TestModelSpec& s, int layer) {
  const bool shared = layer >= layer_count(s) - s.n_shared_kv_layers;
  return s.double_wide_shared && shared ? 2 * s.n_ff : s.n_ff;
}

void add_gemma4_per_layer_tables(ModelBuilder& b, const TestModelSpec& s) {
  if (s.n_embd_per_layer == 0) return;
  const int width = s.n_embd_per_layer * layer_count(s);
  b.matrix("per_layer_token_embd.weight", width, s.n_vocab);
  b.matrix("per_layer_model_proj.weight", s.n_embd, width);
  b.vector("per_layer_proj_norm.weight", s.n_embd_per_layer, 1.0f, 0.2f);
}

std::vector<float> gemma4_rope_freqs(const TestModelSpec& s) {
  const int n_pairs = s.head_dim_full / 2;
  std::vector<float> factors(static_cast<size_t>(n_pairs), 1e30f);
  for (int i = 0; i < n_pairs / 4; ++i) factors[static_cast<size_t>(i)] = 1.0f;
  return factors;
}

}  // namespace strata::testing
