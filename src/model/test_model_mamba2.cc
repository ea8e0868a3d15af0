// The Mamba-2 hybrids' layers in a test model, with the tensor names, shapes and keys llama.cpp's
// converter writes. Granite 4.0-H (granitehybrid, granitehybrid-dense): layer l attends when l %
// full_attn_interval == full_attn_interval / 2 (head_count_kv n_head_kv there, 0 elsewhere), with
// plain q/k/v and no rope (rope.scaling.finetuned false); the others are Mamba-2 layers of
// ssm_n_v_heads heads of ssm_head_v_dim values over ssm_n_k_heads groups of ssm_head_k_dim state
// values. Nemotron-H (nemotron_h): layer l is, by l % 5, Mamba-2, a squared-ReLU feed-forward,
// attention, Mamba-2, a feed-forward, each with one norm (attn_norm); Nemotron 3 (nemotron_h_moe)
// has squared-ReLU experts (sigmoid routing with a selection bias) and a shared expert there.
// Falcon-H1 (falcon-h1): every layer Mamba-2 and attention (no q/k norms, NeoX rope) side by side
// under one attn_norm, then ffn_norm (named without .weight) and a SwiGLU feed-forward.
// LFM2 (lfm2, lfm2moe): short convolutions of ssm_conv_kernel - 1 taps (3 by default, LFM2's) where
// l % 3 != 2, attention with QK-norm and NeoX rope where it is 2. The values keep activations O(1) and the recurrence alive over tens of positions: A =
// -exp(u) with u in [-2, 0.5] and time-step biases in [-2, 0] give per-position decays from
// about 0.2 to 0.99.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/test_model_builder.h"

namespace strata::testing {
namespace {

// A Mamba-2 layer's tensors: ssm_a holds -exp(u) (the file's form of -exp(A_log)) and ssm_d a skip
// weight per head, both as {1, heads}, drawn from the spec's seed and the layer.
void add_mamba2(ModelBuilder& b, const TestModelSpec& s, const std::string& p, int layer) {
  const int values = s.ssm_n_v_heads * s.ssm_head_v_dim;
  const int channels = values + 2 * s.ssm_n_k_heads * s.ssm_head_k_dim;
  b.matrix(p + "ssm_in.weight", s.n_embd, values + channels + s.ssm_n_v_heads);
  // Taps of half-width 0.5: four of them keep a channel's convolution near unit variance.
  b.vectors(p + "ssm_conv1d.weight", s.ssm_conv_kernel, channels, 0.5f);
  b.vector(p + "ssm_conv1d.bias", channels, 0.0f, 0.3f);
  b.vector(p + "ssm_dt.bias", s.ssm_n_v_heads, -1.0f, 1.0f);
  std::mt19937 rng(s.seed * 104729u + static_cast<uint32_t>(layer));
  std::uniform_real_distribution<float> log_rate(-2.0f, 0.5f), skip(0.5f, 1.5f);
  std::vector<float> a(static_cast<size_t>(s.ssm_n_v_heads)), d(a.size());
  for (float& x : a) x = -std::exp(log_rate(rng));
  for (float& x : d) x = skip(rng);
  b.values(p + "ssm_a", a, {1, static_cast<uint64_t>(s.ssm_n_v_heads)});
  b.values(p + "ssm_d", d, {1, static_cast<uint64_t>(s.ssm_n_v_heads)});
  b.vectors(p + "ssm_norm.weight", values / s.ssm_n_k_heads, s.ssm_n_k_heads, 0.2f, 1.0f);
  b.matrix(p + "ssm_out.weight", values, s.n_embd);
}

// A plain attention layer of the hybrids (no biases): q/k/v, with LFM2's per-head q/k norms when
// qk_norm, then the output.
void add_plain_attention(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, bool qk_norm) {
  const int hd = head_dim(s), q_dim = s.n_head * hd, kv_dim = s.n_head_kv * hd;
  b.matrix(prefix + "attn_q.weight", s.n_embd, q_dim);
  b.matrix(prefix + "attn_k.weight", s.n_embd, kv_dim);
  b.matrix(prefix + "attn_v.weight", s.n_embd, kv_dim);
  if (qk_norm) {
    b.vector(prefix + "attn_q_norm.weight", hd, 1.0f, 0.3f);
    b.vector(prefix + "attn_k_norm.weight", hd, 1.0f, 0.3f);
  }
  b.matrix(prefix + "attn_output.weight", q_dim, s.n_embd);
}

// The Mamba-2 layers' shape keys (<arch>.ssm.*).
void set_mamba2_shape(const TestModelSpec& s, const std::string& a, GgufWriter& w) {
  w.set(a + ".ssm.conv_kernel", GgufValue::U32(static_cast<uint32_t>(s.ssm_conv_kernel)));
  w.set(a + ".ssm.state_size", GgufValue::U32(static_cast<uint32_t>(s.ssm_head_k_dim)));
  w.set(a + ".ssm.group_count", GgufValue::U32(static_cast<uint32_t>(s.ssm_n_k_heads)));
  w.set(a + ".ssm.time_step_rank", GgufValue::U32(static_cast<uint32_t>(s.ssm_n_v_heads)));
  w.set(a + ".ssm.inner_size", GgufValue::U32(static_cast<uint32_t>(s.ssm_n_v_heads * s.ssm_head_v_dim)));
}

}  // namespace

char nemotron_h_kind(int layer) { return "MFAMF"[layer % 5]; }

void set_nemotron_h_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string& a = s.arch;
  const bool moe = s.arch == "nemotron_h_moe";
  std::vector<int32_t> kv_heads, widths;
  for (int l = 0; l < layer_count(s); ++l) {
    kv_heads.push_back(nemotron_h_kind(l) == 'A' ? s.n_head_kv : 0);
    widths.push_back(nemotron_h_kind(l) == 'F' ? (moe ? s.n_ff_exp : s.n_ff) : 0);
  }
  if (moe) {  // Nemotron 3 Nano's routing: sigmoid gates renormalised, times 2.5
    w.set(a + ".expert_weights_norm", GgufValue::Bool(true));
    w.set(a + ".expert_weights_scale", GgufValue::F32(2.5f));
  }
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".feed_forward_length", GgufValue::I32Array(widths));
  set_mamba2_shape(s, a, w);
}

void add_nemotron_h_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer) {
  b.vector(prefix + "attn_norm.weight", s.n_embd, 1.0f, 0.2f);
  switch (nemotron_h_kind(layer)) {
    case 'M':
      add_mamba2(b, s, prefix, layer);
      break;
    case 'A':
      add_plain_attention(b, s, prefix, /*qk_norm=*/false);
      break;
    default:
      if (s.arch == "nemotron_h_moe") {  // experts and a shared expert, none with a gate
        b.vector_matrix(prefix + "ffn_gate_inp.weight", s.n_embd, s.n_expert);
        b.vector(prefix + "exp_probs_b.bias", s.n_expert, 0.0f, 0.3f);
        b.matrix(prefix + "ffn_up_exps.weight", s.n_embd, s.n_ff_exp, s.n_expert);
        b.matrix(prefix + "ffn_down_exps.weight", s.n_ff_exp, s.n_embd, s.n_expert);
        b.matrix(prefix + "ffn_up_shexp.weight", s.n_embd, s.n_ff_shexp);
        b.matrix(prefix + "ffn_down_shexp.weight", s.n_ff_shexp, s.n_embd);
        break;
      }
      b.matrix(prefix + "ffn_up.weight", s.n_embd, s.n_ff);
      b.matrix(prefix + "ffn_down.weight", s.n_ff, s.n_embd);
  }
}

bool lfm2_attends(int layer) { return layer % 3 == 2; }

void set_lfm2_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string& a = s.arch;
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < layer_count(s); ++l) kv_heads.push_back(lfm2_attends(l) ? s.n_head_kv : 0);
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".shortconv.l_cache", GgufValue::U32(static_cast<uint32_t>(s.ssm_conv_kernel - 1)));
  if (a != "lfm2moe") return;
  // LFM2-8B-A1B's keys as llama.cpp's converter writes them: the sigmoid gate, no scale key.
  w.set(a + ".leading_dense_block_count", GgufValue::U32(static_cast<uint32_t>(s.n_dense_lead)));
  w.set(a + ".expert_gating_func", GgufValue::U32(2));
}

void add_lfm2_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer) {
  if (!lfm2_attends(layer)) {
    b.matrix(prefix + "shortconv.in_proj.weight", s.n_embd, 3 * s.n_embd);
    // Taps of half-width 0.5, as the Mamba-2 layers' (no activation follows).
    b.vectors(prefix + "shortconv.conv.weight", s.ssm_conv_kernel - 1, s.n_embd, 0.5f);
    b.matrix(prefix + "shortconv.out_proj.weight", s.n_embd, s.n_embd);
    return;
  }
  add_plain_attention(b, s, prefix, /*qk_norm=*/true);
}

bool granite_hybrid_attends(const TestModelSpec& s, int layer) {
  return layer % s.full_attn_interval == s.full_attn_interval / 2;
}

void set_falcon_h1_metadata(const TestModelSpec& s, GgufWriter& w) { set_mamba2_shape(s, s.arch, w); }

void add_falcon_h1_layer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer) {
  b.vector(prefix + "attn_norm.weight", s.n_embd, 1.0f, 0.2f);
  add_mamba2(b, s, prefix, layer);
  add_plain_attention(b, s, prefix, /*qk_norm=*/false);
  b.vector(prefix + "ffn_norm", s.n_embd, 1.0f, 0.2f);  // bare, as llama.cpp's converter names it
  b.matrix(prefix + "ffn_gate.weight", s.n_embd, s.n_ff);
  b.matrix(prefix + "ffn_up.weight", s.n_embd, s.n_ff);
  b.matrix(prefix + "ffn_down.weight", s.n_ff, s.n_embd);
}

void set_granite_hybrid_metadata(const TestModelSpec& s, GgufWriter& w) {
  const std::string a = "granitehybrid";
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < layer_count(s); ++l) kv_heads.push_back(granite_hybrid_attends(s, l) ? s.n_head_kv : 0);
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  set_mamba2_shape(s, a, w);
  w.set(a + ".rope.scaling.finetuned", GgufValue::Bool(false));
  // Granite 4.0-H Tiny's multipliers (its attention scale 1 / 128 for heads of 128: 1 / head size).
  w.set(a + ".embedding_scale", GgufValue::F32(12.0f));
  w.set(a + ".attention.scale", GgufValue::F32(1.0f / static_cast<float>(head_dim(s))));
  w.set(a + ".residual_scale", GgufValue::F32(0.22f));
  w.set(a + ".logit_scale", GgufValue::F32(6.0f));
}

void add_granite_hybrid_mixer(ModelBuilder& b, const TestModelSpec& s, const std::string& prefix, int layer) {
  if (!granite_hybrid_attends(s, layer)) {
    add_mamba2(b, s, prefix, layer);
    return;
  }
  add_plain_attention(b, s, prefix, /*qk_norm=*/false);
}

}  // namespace strata::testing
