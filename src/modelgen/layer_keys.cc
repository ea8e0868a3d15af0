#include "modelgen/layer_keys.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace strata {

// Gemma 4's, as llama.cpp's converter writes them: which layers slide, each layer's K/V heads,
// the full layers' head and rope dims and the sliding ones' (_swa), the two rope bases, the soft
// cap, the per-layer input width and the shared K/V layers (0 in the 31B and 26B-A4B), and the
// E2B's per-layer feed-forward widths.
void set_gemma4_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.gemma4) return;
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  std::vector<GgufValue> pattern;
  std::vector<int32_t> kv_heads;
  std::vector<int32_t> widths;
  for (int l = 0; l < s.n_layer; ++l) {
    const bool slides = gemma4_layer_slides(s, l);
    pattern.push_back(GgufValue::Bool(slides));
    kv_heads.push_back(slides ? s.n_head_kv : s.n_head_kv_full);
    widths.push_back(gemma4_ffn_width(s, l));
  }
  if (s.double_wide_shared) w.set(a + ".feed_forward_length", GgufValue::I32Array(widths));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".attention.key_length", u32(s.head_dim_full));
  w.set(a + ".attention.value_length", u32(s.head_dim_full));
  w.set(a + ".rope.dimension_count", u32(s.head_dim_full));
  w.set(a + ".attention.key_length_swa", u32(s.head_dim));
  w.set(a + ".attention.value_length_swa", u32(s.head_dim));
  w.set(a + ".rope.dimension_count_swa", u32(s.head_dim));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(10000.0f));
  w.set(a + ".final_logit_softcapping", GgufValue::F32(30.0f));
  w.set(a + ".embedding_length_per_layer_input", u32(s.n_embd_per_layer));
  w.set(a + ".attention.shared_kv_layers", u32(s.n_shared_kv_layers));
}

// Gemma 3n's, as llama.cpp's converter writes them: which layers slide (true: sliding), the sliding
// layers' rope base, AltUp's streams (stream 0 the one the layers run on), the per-layer input
// width, the shared K/V layers, each layer's sparsity (the normal's 95th percentile where its gate is
// sparse, minus infinity where it is not: the converter's icdf of the config's 0.95 or 0) and the
// final soft cap. llama.cpp itself fixes 20 layers of own K/V and 10 sparse layers (older versions
// every 5th layer full too), as the presets' files say; Strata reads the keys, so cuts load there.
void set_gemma3n_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.gemma3n) return;
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  constexpr float kSparsityStd = 1.6448533535003662f;
  std::vector<GgufValue> pattern;
  std::vector<float> sparsity;
  for (int l = 0; l < s.n_layer; ++l) {
    pattern.push_back(GgufValue::Bool(gemma4_layer_slides(s, l)));
    sparsity.push_back(l < s.n_sparse_layers ? kSparsityStd : -std::numeric_limits<float>::infinity());
  }
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(10000.0f));
  w.set(a + ".altup.num_inputs", u32(kGemma3nAltupStreams));
  w.set(a + ".altup.active_idx", u32(0));
  w.set(a + ".embedding_length_per_layer_input", u32(s.n_embd_per_layer));
  w.set(a + ".attention.shared_kv_layers", u32(s.n_shared_kv_layers));
  w.set(a + ".activation_sparsity_scale", GgufValue::F32Array(sparsity));
  w.set(a + ".final_logit_softcapping", GgufValue::F32(30.0f));
}

// Step 3.5's, as llama.cpp's newer converter writes them: which layers slide over how many keys,
// each layer's query heads, the sliding layers' rope base, and each layer's SwiGLU limits (the last
// layer's clamped: routed experts 7, shared expert 16).
void set_step35_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.step35) return;
  const std::string& a = s.arch;
  std::vector<GgufValue> pattern;
  std::vector<int32_t> heads;
  std::vector<float> routed, shared;
  for (int l = 0; l < s.n_layer; ++l) {
    pattern.push_back(GgufValue::Bool(step35_layer_slides(l)));
    heads.push_back(step35_layer_heads(s, l));
    routed.push_back(l + 1 == s.n_layer ? 7.0f : 0.0f);
    shared.push_back(l + 1 == s.n_layer ? 16.0f : 0.0f);
  }
  w.set(a + ".attention.sliding_window", GgufValue::U32(static_cast<uint32_t>(s.sliding_window)));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".attention.head_count", GgufValue::I32Array(heads));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(10000.0f));
  w.set(a + ".swiglu_clamp_exp", GgufValue::F32Array(routed));
  w.set(a + ".swiglu_clamp_shexp", GgufValue::F32Array(shared));
}

// MiMo-V2's, as llama.cpp's converter writes them: which layers slide over how many keys, each
// layer's K/V heads, the value heads' width, the sliding layers' rope base and v's scale (no
// leading_dense_block_count: the dense layers are those without a router).
void set_mimo2_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.mimo2) return;
  const std::string& a = s.arch;
  std::vector<GgufValue> pattern;
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < s.n_layer; ++l) {
    pattern.push_back(GgufValue::Bool(mimo2_layer_slides(l)));
    kv_heads.push_back(layer_kv_heads(s, l));
  }
  w.set(a + ".attention.sliding_window", GgufValue::U32(static_cast<uint32_t>(s.sliding_window)));
  w.set(a + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".attention.key_length", GgufValue::U32(static_cast<uint32_t>(s.head_dim)));
  w.set(a + ".attention.value_length", GgufValue::U32(static_cast<uint32_t>(s.v_head_dim)));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(10000.0f));
  w.set(a + ".attention.value_scale", GgufValue::F32(0.707f));
}

// Nemotron's, as llama.cpp's converter writes DeciLM's: each layer's query heads, K/V heads and
// feed-forward width.
void set_deci_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.deci) return;
  std::vector<int32_t> heads, kv_heads, widths;
  for (int l = 0; l < s.n_layer; ++l) {
    heads.push_back(deci_layer_heads(s, l));
    kv_heads.push_back(deci_layer_kv_heads(s, l));
    widths.push_back(deci_ffn_width(s, l));
  }
  w.set(s.arch + ".attention.head_count", GgufValue::I32Array(heads));
  w.set(s.arch + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(s.arch + ".feed_forward_length", GgufValue::I32Array(widths));
}

// Laguna's, as llama.cpp's converter writes them: each layer's query heads (no pattern: the counts
// tell the layers apart), the sliding layers' rotated dims and base, and YaRN's ramp bounds and
// factors when the full layers take YaRN.
void set_laguna_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.laguna) return;
  const std::string& a = s.arch;
  std::vector<int32_t> heads;
  for (int l = 0; l < s.n_layer; ++l) heads.push_back(step35_layer_heads(s, l));
  w.set(a + ".attention.head_count", GgufValue::I32Array(heads));
  w.set(a + ".rope.dimension_count_swa", GgufValue::U32(static_cast<uint32_t>(s.head_dim)));
  w.set(a + ".rope.freq_base_swa", GgufValue::F32(10000.0f));
  if (s.rope_yarn_factor != 1.0f) {
    w.set(a + ".rope.scaling.yarn_ext_factor", GgufValue::F32(1.0f));
    w.set(a + ".rope.scaling.yarn_attn_factor", GgufValue::F32(1.0f));
    w.set(a + ".rope.scaling.yarn_beta_fast", GgufValue::F32(32.0f));
    w.set(a + ".rope.scaling.yarn_beta_slow", GgufValue::F32(1.0f));
  }
}

namespace {

// The Mamba-2 layers' shapes, as llama.cpp's Mamba-2 converter writes them (time_step_rank the heads,
// inner_size their values).
void write_mamba2_shape_keys(GgufWriter& w, const ModelSpec& s) {
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  w.set(a + ".ssm.conv_kernel", u32(s.ssm_conv_kernel));
  w.set(a + ".ssm.state_size", u32(s.ssm_head_k_dim));
  w.set(a + ".ssm.group_count", u32(s.ssm_n_k_heads));
  w.set(a + ".ssm.time_step_rank", u32(s.ssm_n_v_heads));
  w.set(a + ".ssm.inner_size", u32(s.ssm_n_v_heads * s.ssm_head_v_dim));
}

}  // namespace

// Granite 4.0-H's and Nemotron-H's, as llama.cpp's converter writes them (its Nemotron-H converter
// is Granite 4.0-H's): each layer's K/V heads (0 in the Mamba-2 layers, which is how llama.cpp tells
// them apart), the Mamba-2 shapes, and no rope (rope.scaling.finetuned false).
void set_mamba2_hybrid_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.mamba2 && !s.nemotron_h) return;
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < s.n_layer; ++l) kv_heads.push_back(layer_attends(s, l) ? s.n_head_kv : 0);
  w.set(s.arch + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  write_mamba2_shape_keys(w, s);
  w.set(s.arch + ".rope.scaling.finetuned", GgufValue::Bool(false));
}

// Falcon-H1's, as llama.cpp's converter writes them beside the common keys (head_count_kv once: every
// layer attends): the Mamba-2 shapes. No rope key of Granite's, no multipliers (they are in the weights).
void set_falcon_h1_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.falcon_h1) write_mamba2_shape_keys(w, s);
}

// Nemotron-H's, as llama.cpp's converter writes them beside set_mamba2_hybrid_hparams()': each
// layer's feed-forward width (n_ff at '-', the expert width at 'E', 0 elsewhere: with head_count_kv,
// how llama.cpp tells the kinds apart), the head widths (always), and nemotron_h_moe's routing: one
// shared expert (its width is set_expert_hparams()'), one expert group, the weights normalised and
// scaled (the sigmoid gates are the arch's, so no expert_gating_func).
void set_nemotron_h_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.nemotron_h) return;
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  std::vector<int32_t> widths;
  for (char kind : nemotron_layer_pattern(s)) widths.push_back(kind == '-' ? s.n_ff : kind == 'E' ? s.n_ff_exp : 0);
  w.set(a + ".feed_forward_length", GgufValue::I32Array(widths));
  w.set(a + ".attention.key_length", u32(s.head_dim));
  w.set(a + ".attention.value_length", u32(s.head_dim));
  if (s.n_expert == 0) return;
  w.set(a + ".expert_shared_count", u32(1));
  w.set(a + ".expert_group_count", u32(1));
  w.set(a + ".expert_weights_norm", GgufValue::Bool(s.expert_weights_norm));
  w.set(a + ".expert_weights_scale", GgufValue::F32(s.expert_weights_scale));
}

// LFM2's and LFM2-MoE's, as llama.cpp's converter writes them: each layer's K/V heads (0 in the
// short-convolution layers, which is how llama.cpp tells them apart), the convolution's taps
// (shortconv.l_cache), and LFM2-MoE's leading dense layers and sigmoid gate (expert_gating_func 2;
// the renormalisation is the arch's, so no expert_weights_norm).
void set_lfm2_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.lfm2) return;
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < s.n_layer; ++l) kv_heads.push_back(layer_attends(s, l) ? s.n_head_kv : 0);
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".shortconv.l_cache", u32(s.ssm_conv_kernel));
  if (s.n_expert == 0) return;
  w.set(a + ".leading_dense_block_count", u32(s.n_dense_lead));
  w.set(a + ".expert_gating_func", u32(2));
}

// Ling 3.0's and Kimi Linear's, as ik_llama.cpp reads them and llama.cpp's converter writes Kimi's: each
// layer's K/V heads (0 in the KDA layers, which is how both tell the kinds apart; head_count_kv() in the
// latent ones), the convolution's taps and the KDA head; then Ling's safe gate and its lower bound (Kimi's
// gate is its arch's: no key), its shared expert's width per shared expert (read with
// expert_shared_count, which set_expert_hparams() writes) and its expert groups.
void set_kda_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!s.kda) return;
  const std::string& a = s.arch;
  auto u32 = [](int v) { return GgufValue::U32(static_cast<uint32_t>(v)); };
  std::vector<int32_t> kv_heads;
  for (int l = 0; l < s.n_layer; ++l) kv_heads.push_back(layer_attends(s, l) ? head_count_kv(s) : 0);
  w.set(a + ".attention.head_count_kv", GgufValue::I32Array(kv_heads));
  w.set(a + ".ssm.conv_kernel", u32(s.ssm_conv_kernel));
  w.set(a + ".kda.head_dim", u32(s.ssm_head_v_dim));
  if (a != "bailingmoe3") return;
  w.set(a + ".kda.safe_gate", GgufValue::Bool(true));
  w.set(a + ".kda.gate_lower_bound", GgufValue::F32(kKdaGateLowerBound));
  w.set(a + ".expert_shared_feed_forward_length", u32(s.n_ff_exp));
  if (s.n_expert_groups == 0) return;
  w.set(a + ".expert_group_count", u32(s.n_expert_groups));
  w.set(a + ".expert_group_used_count", u32(s.n_expert_groups_used));
}

// OLMo 3's and EXAONE 4.0 32B's window, as llama.cpp's converter writes it: which layers slide, a
// flag per layer (every layer but each 4th, their layer_types).
void set_post_norm_window_hparams(GgufWriter& w, const ModelSpec& s) {
  if (!(s.olmo2 || s.exaone4) || s.sliding_window == 0) return;
  std::vector<GgufValue> pattern;
  for (int l = 0; l < s.n_layer; ++l) pattern.push_back(GgufValue::Bool((l + 1) % 4 != 0));
  w.set(s.arch + ".attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, pattern));
}

// BitNet's gate where the file must name it: bitnet.hidden_activation "relu2" for a relu^2-gated bitnet
// (without the key llama.cpp's bitnet gates by SiLU); bitnet-b1.58's gate is its arch's, so no key.
void set_bitnet_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.arch == "bitnet" && s.bitnet_relu2) w.set("bitnet.hidden_activation", GgufValue::String("relu2"));
}

// Apertus's xIELU values, as llama.cpp's converter writes them: global keys (no arch prefix), one value per
// layer as the checkpoints hold them, unconstrained (Strata and llama.cpp take alpha_p = softplus(alpha_p),
// alpha_n = beta + softplus(alpha_n)). xIELU's initial values (alpha_p and alpha_n 0.8, beta 0.5, eps -1e-6),
// the raw alphas offset by -0.2 to +0.2 in steps of 0.1 over every 5 layers, so that layers differ as trained
// ones do.
void set_xielu_hparams(GgufWriter& w, const ModelSpec& s) {
  if (s.arch != "apertus") return;
  const float raw_alpha_p = std::log(std::expm1(0.8f)), raw_alpha_n = std::log(std::expm1(0.8f - 0.5f));
  std::vector<float> alpha_n, alpha_p, beta, eps;
  for (int l = 0; l < s.n_layer; ++l) {
    const float step = 0.1f * static_cast<float>(l % 5 - 2);
    alpha_p.push_back(raw_alpha_p + step);
    alpha_n.push_back(raw_alpha_n - step);
    beta.push_back(0.5f);
    eps.push_back(-1e-6f);
  }
  w.set("xielu.alpha_n", GgufValue::F32Array(alpha_n));
  w.set("xielu.alpha_p", GgufValue::F32Array(alpha_p));
  w.set("xielu.beta", GgufValue::F32Array(beta));
  w.set("xielu.eps", GgufValue::F32Array(eps));
}

}  // namespace strata
