// Gemma 3n in a test model (gemma3n), with the keys and tensor names llama.cpp's converter writes:
// Gemma 4's sliding pattern (every third layer and the last full), per-layer inputs and shared
// K/V (the last n_shared_kv_layers layers, which still carry attn_k / attn_v as real files do),
// four AltUp streams, a laurel branch of kLaurelRank, and sparse gates in the first two layers.
// The router's weights are large enough (its input is divided by n_embd) that the streams mix
// visibly, and the coefficient maps small enough that they stay of the embedding's size.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

constexpr int kAltupStreams = 4;
constexpr int kLaurelRank = 32;
constexpr int kSparseLayers = 2;
constexpr float kSparsityStd = 1.6448533535003662f;  // the converter's icdf(0.95)

GgufValue gemma3n_count(int x) { return GgufValue::U32(static_cast<uint32_t>(x)); }

}  // namespace

void set_gemma3n_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = "gemma3n";
  const int n_layer = layer_count(s);
  std::vector<GgufValue> pattern;
  std::vector<float> sparsity;
  for (int l = 0; l < n_layer; ++l) {
    pattern.push_back(GgufValue::Bool(gemma4_layer_slides(s, l)));
    sparsity.push_back(l < kSparseLayers ? kSparsityStd : -std::numeric_limits<float>::infinity());
  }
  w.set(a + ".attention.sliding_window", gemma3n_count(s.sliding_window));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".activation_sparsity_scale", GgufValue::F32Array(sparsity));
  w.set(a + ".altup.num_inputs", gemma3n_count(kAltupStreams));
  w.set(a + ".altup.active_idx", gemma3n_count(0));
  w.set(a + ".embedding_length_per_layer_input", gemma3n_count(s.n_embd_per_layer));
  w.set(a + ".attention.shared_kv_layers", gemma3n_count(s.n_shared_kv_layers));
  w.set(a + ".final_logit_softcapping", GgufValue::F32(s.final_softcap));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(10000.0f));
}

void add_gemma3n_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& p) {
  const int hd = head_dim(s), n = s.n_embd, a = kAltupStreams;
  b.vector(p + "attn_norm.weight", n, 1.0f, 0.2f);
  b.matrix(p + "attn_q.weight", n, s.n_head * hd);
  b.matrix(p + "attn_k.weight", n, s.n_head_kv * hd);
  b.matrix(p + "attn_v.weight", n, s.n_head_kv * hd);
  // Scores are q . k unscaled: q norms of 0.25 keep them at a few units (test_model_gemma4.cc).
  b.vector(p + "attn_q_norm.weight", hd, 0.25f, 0.1f);
  b.vector(p + "attn_k_norm.weight", hd, 1.0f, 0.3f);
  b.matrix(p + "attn_output.weight", s.n_head * hd, n);
  b.vector(p + "post_attention_norm.weight", n, 1.0f, 0.2f);
  b.vector(p + "ffn_norm.weight", n, 1.0f, 0.2f);
  b.matrix(p + "ffn_gate.weight", n, s.n_ff);
  b.matrix(p + "ffn_up.weight", n, s.n_ff);
  b.matrix(p + "ffn_down.weight", s.n_ff, n);
  b.vector(p + "post_ffw_norm.weight", n, 1.0f, 0.2f);
  b.matrix(p + "inp_gate.weight", n, s.n_embd_per_layer);
  b.matrix(p + "proj.weight", s.n_embd_per_layer, n);
  b.vector(p + "post_norm.weight", n, 0.5f, 0.1f);
  b.vectors(p + "altup_correct_coef.weight", a, a, 0.3f);
  b.vector(p + "altup_correct_scale.weight", n, 1.0f, 0.3f);
  b.vectors(p + "altup_predict_coef.weight", a, a * a, 0.15f);
  // Router outputs of about one unit from an input of RMS 1 / n_embd.
  b.vectors(p + "altup_router.weight", n, a, std::sqrt(3.0f * static_cast<float>(n)));
  b.vector(p + "altup_router_norm.weight", n, 1.0f, 0.2f);
  b.matrix(p + "laurel_l.weight", n, kLaurelRank);
  b.matrix(p + "laurel_r.weight", kLaurelRank, n);
  b.vector(p + "laurel_post_norm.weight", n, 1.0f, 0.2f);
}

void add_gemma3n_tables(ModelBuilder& b, const TestModelSpec& s) {
  b.matrix("altup_proj.weight", s.n_embd, s.n_embd, kAltupStreams - 1);
  b.matrix("altup_unembd_proj.weight", s.n_embd, s.n_embd, kAltupStreams - 1);
  add_gemma4_per_layer_tables(b, s);
}

}  // namespace strata::testing
