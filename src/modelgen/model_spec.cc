#include "modelgen/model_spec.h"

#include <algorithm>

#include "modelgen/hybrid_layout.h"
#include "modelgen/model_presets.h"

namespace strata {

namespace {

using preset_parts::deepseek_moe;
using preset_parts::dsa_indexer;
using preset_parts::mla;
using preset_parts::mimo2;
using preset_parts::step35;

std::string preset_list(bool moe) {
  std::string names;
  for (const auto& p : model_presets()) {
    if ((p.shape.n_expert > 0) != moe) continue;
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  return names;
}

// The archs of deepseek2's latent attention (ModelSpec::deepseek2).
bool is_latent_arch(std::string_view name) {
  return name == "deepseek2" || name == "mistral4" || name == "glm-dsa" || name == "bailingmoe3" ||
         name == "kimi-linear";
}

// The window and rope scaling of --arch name on s (the preset's shape).
void apply_window_and_rope(std::string_view name, ModelSpec* s) {
  if (name == "deepseek2" || name == "mistral4" || name == "glm-dsa" || name == "bailingmoe3") {
    // No window; its YaRN is the preset's (apply_deepseek2 gives another preset DeepSeek-V3's). Kimi
    // Linear's latent attention has no rope: kimi-linear takes the last branch, without YaRN.
    s->sliding_window = 0;
    s->rope_linear_factor = 1.0f;
  } else if (name == "gemma3" || name == "gemma2") {
    // A preset without a window of its own (not a Gemma shape): Gemma 3 1B's 512, or a
    // quarter of a small preset's context, so that its layers slide within it. Gemma 2 has no
    // rope scaling.
    if (s->sliding_window == 0) s->sliding_window = s->n_ctx / 4 < 512 ? s->n_ctx / 4 : 512;
    if (name == "gemma2") s->rope_linear_factor = 1.0f;
  } else if (name == "gpt-oss") {
    // Another MoE preset as gpt-oss: its 128-key window (a quarter of a small context) and
    // YaRN 32.
    if (s->sliding_window == 0) s->sliding_window = s->n_ctx / 4 < 128 ? s->n_ctx / 4 : 128;
    if (s->rope_yarn_factor == 1.0f) s->rope_yarn_factor = 32.0f;
  } else if (name == "phi3") {
    // Phi-4's shape has no window; another preset as phi3 gets Phi-3-mini's 2047 keys, or a
    // quarter of a small preset's context, so that its layers slide within it.
    s->sliding_window = s->preset == "phi-4" ? 0 : std::min(s->n_ctx / 4, 2047);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  } else if (name == "gemma4") {
    // Gemma 4's 1024-key window, or a quarter of a small preset's context; its rope unscaled.
    // Another preset's full layers get heads twice as wide, a quarter as many (at least one).
    if (s->sliding_window == 0) s->sliding_window = std::min(s->n_ctx / 4, 1024);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
    if (s->head_dim_full == 0) {
      s->head_dim_full = 2 * s->head_dim;
      s->n_head_kv_full = std::max(1, s->n_head_kv / 4);
    }
  } else if (name == "gemma3n") {
    // Gemma 3n's 512-key window, or a quarter of a small preset's context; its rope unscaled.
    if (s->sliding_window == 0) s->sliding_window = std::min(s->n_ctx / 4, 512);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  } else if (name == "laguna") {
    // Laguna XS.2's 512-key window and its full layers' YaRN; another preset as laguna a 128-key
    // window (or a quarter of a small context) and its rope unscaled.
    if (s->sliding_window == 0) s->sliding_window = std::min(s->n_ctx / 4, 128);
    s->rope_linear_factor = 1.0f;
    if (!s->preset.starts_with("laguna")) s->rope_yarn_factor = 1.0f;
  } else if (name == "mimo2") {
    // MiMo-V2-Flash's 128-key window, or a quarter of a small preset's context; its rope unscaled.
    if (s->sliding_window == 0) s->sliding_window = std::min(s->n_ctx / 4, 128);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  } else if (name == "step35") {
    // Another preset as step35: a 128-key window (as gpt-oss's; Step 3.5's own is 512), or a
    // quarter of a small context; its rope unscaled (the full layers' rope_freqs come from the shape).
    if (s->sliding_window == 0) s->sliding_window = std::min(s->n_ctx / 4, 128);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  } else if (name == "cohere2_moe") {
    // North's 4096-key window; another preset as cohere2_moe a 128-key one (as gpt-oss's), or a
    // quarter of a small context; the rope unscaled.
    if (s->sliding_window == 0) s->sliding_window = s->preset == "north-mini-code" ? 4096 : std::min(s->n_ctx / 4, 128);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  } else if (name == "cohere2") {
    // Command R7B's 4096-key window, or a quarter of a small preset's context; its rope unscaled.
    if (s->sliding_window == 0) s->sliding_window = std::min(s->n_ctx / 4, 4096);
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  } else if (name == "mistral3" || name == "arcee") {
    // Ministral 3's own YaRN and temperature, AFM-4.5B's YaRN (20 over 4096 of its 65536 positions), stay
    // (a preset without them has neither), as their converters write a yarn rope_scaling.
    s->sliding_window = 0;
    s->rope_linear_factor = 1.0f;
  } else {
    // A Gemma 3, gpt-oss or DeepSeek shape as another architecture: no window, and its rope unscaled.
    s->sliding_window = 0;
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  }
}

// OLMo 2 / OLMo 3's and EXAONE 4.0's layers for --arch olmo2 / exaone4 (model_spec.h): post-norms in
// place of pre-norms; their own presets keep OLMo 3's window and YaRN and EXAONE 4.0 32B's window and
// rope_freqs, another preset has neither (OLMo 2's kind, or EXAONE 4.0 1.2B's). EXAONE 3.5's rope_freqs
// stay with exaone; every other arch drops EXAONE's. Before apply_window_and_rope(), which these archs skip.
void apply_post_norm_layers(std::string_view name, ModelSpec* s) {
  s->olmo2 = name == "olmo2";
  s->exaone4 = name == "exaone4";
  const bool own = s->preset.starts_with(s->olmo2 ? "olmo-" : "exaone-4");
  const bool own_rope_freqs = (s->exaone4 && own) || (name == "exaone" && s->preset.starts_with("exaone-3"));
  if (!own_rope_freqs) {
    s->rope_freqs_factor = 0.0f;
    s->rope_freqs_orig_ctx = 0;
  }
  if (!s->olmo2 && !s->exaone4) return;
  s->post_norms = true;
  s->rope_linear_factor = 1.0f;
  if (own) return;
  s->sliding_window = 0;
  s->rope_yarn_factor = 1.0f;
}

// Nemotron 3 Nano's routing for --arch nemotron_h_moe (model_preset()): sigmoid gates with a
// selection bias, normalised, times 2.5, experts in every 'E' layer (no dense lead); another preset
// a shared expert twice its expert width. feed_forward_length, written per layer, is the expert width.
void apply_nemotron_experts(ModelSpec* s) {
  s->sigmoid_routing = s->expert_weights_norm = true;
  s->expert_weights_scale = 2.5f;
  s->n_dense_lead = 0;
  if (!s->preset.starts_with("nemotron")) s->n_ff_shexp = 2 * s->n_ff_exp;
  s->n_ff = s->n_ff_exp;
}

// LFM2-8B-A1B's routing for --arch lfm2moe (model_preset()): sigmoid gates with a selection bias,
// renormalised, unscaled, no shared expert; an LFM2 preset keeps its leading dense layers, another
// gets one (of its n_ff, feed_forward_length staying the dense width).
void apply_lfm2_experts(ModelSpec* s) {
  s->sigmoid_routing = s->expert_weights_norm = true;
  s->expert_weights_scale = 1.0f;
  s->n_ff_shexp = 0;
  if (!s->preset.starts_with("lfm2")) s->n_dense_lead = 1;
}

// GLM-4.5's: one dense block first (of the preset's n_ff), one shared expert of the expert
// width, one NextN block, sigmoid routing normalised and unscaled; MiniMax-M2's routing is
// GLM's without the rest; ERNIE 4.5's a dense block first and a shared expert, softmax routing
// with a selection bias, normalised. Other archs have none of these (deepseek2's are apply_deepseek2's,
// nemotron_h_moe's apply_nemotron_experts()', lfm2moe's apply_lfm2_experts()').
void apply_expert_layout(std::string_view name, ModelSpec* s) {
  s->glm4moe = name == "glm4moe";
  s->llama4 = name == "llama4";
  s->moe_layer_step = 1;
  s->n_nextn = s->glm4moe ? 1 : 0;
  s->minimax_m2 = name == "minimax-m2";
  s->minimax_m3 = name == "minimax-m3";
  s->ernie_moe = name == "ernie4_5-moe";
  s->step35 = name == "step35";
  s->laguna = name == "laguna";
  s->mimo2 = name == "mimo2";
  if (!s->step35 && !s->laguna) s->n_head_swa = 0;
  if (is_latent_arch(name)) return;
  if (name == "nemotron_h_moe") {
    apply_nemotron_experts(s);
    return;
  }
  if (name == "lfm2moe") {
    apply_lfm2_experts(s);
    return;
  }
  if (s->mimo2) {  // another preset: half its K/V heads in the full layers, values 2/3 of a key head
    if (s->n_head_kv_full == 0 || s->v_head_dim == 0) {
      *s = mimo2(*s, std::max(1, s->n_head_kv / 2), s->head_dim * 2 / 3 / 2 * 2, std::max(2, s->head_dim / 3 / 2 * 2),
                 s->sliding_window);
    }
    s->n_ff_shexp = 0;
    return;
  }
  if (s->step35 || s->laguna) {  // another preset: half as many heads again when sliding, one dense layer
    if (s->n_head_swa == 0) {
      *s = step35(*s, (s->n_head * 3 / 2 + s->n_head_kv - 1) / s->n_head_kv * s->n_head_kv, s->sliding_window, 1,
                  s->laguna ? 2.5f : 3.0f);
    }
    if (s->n_ff_shexp == 0) s->n_ff_shexp = s->n_ff_exp;
    return;
  }
  s->sigmoid_routing = s->glm4moe || s->minimax_m2 || s->minimax_m3;
  s->expert_weights_norm = s->glm4moe || s->minimax_m2 || s->minimax_m3 || s->ernie_moe;
  s->n_dense_lead = s->glm4moe || s->ernie_moe || s->minimax_m3 || name == "cohere2_moe" ? 1 : 0;
  s->expert_weights_scale = s->minimax_m3 ? 2.0f : 1.0f;
  // ERNIE's preset keeps its two shared experts; another preset as ernie4_5-moe gets one; Qwen3.5's
  // is one expert wide.
  if (s->glm4moe || s->llama4 || s->minimax_m3 || name == "qwen35moe" || name == "qwen3next" || name == "hunyuan-moe" ||
      (s->ernie_moe && !s->preset.starts_with("ernie"))) {
    s->n_ff_shexp = s->n_ff_exp;
  } else if (name == "granitehybrid") {  // Granite 4.0-H Tiny's ratio, where the preset is not Granite's
    if (!s->preset.starts_with("granite")) s->n_ff_shexp = 2 * s->n_ff_exp;
  } else if (name != "qwen2moe" && !s->ernie_moe) {
    s->n_ff_shexp = 0;
  }
  // llama.feed_forward_length (and granitemoe's, hunyuan-moe's and olmoe's, whose experts llama.cpp
  // sizes by it) is the expert width
  if (name == "mixtral" || name == "granitemoe" || name == "hunyuan-moe" || name == "olmoe") s->n_ff = s->n_ff_exp;
  if (name == "granitehybrid" && s->n_expert > 0) s->n_ff = s->n_ff_exp;  // a dense one keeps its width
}

// DeepSeek's layout for --arch deepseek2 (and the archs built on its latent attention: mistral4,
// glm-dsa, bailingmoe3, kimi-linear): a DeepSeek preset (one with a latent) keeps its own; another MoE
// preset takes DeepSeek-V3's attention, routing and YaRN (model_preset()), one shared expert of its
// expert width and one leading dense block of its n_ff (as mistral4, Mistral Small 4's: no dense
// block, softmax routing; as kimi-linear, Kimi Linear's). Other archs drop the latent attention and
// YaRN's log multiplier.
void apply_deepseek2(std::string_view name, ModelSpec* s) {
  s->deepseek2 = is_latent_arch(name);
  // Mistral Small 4's files come from llama.cpp's newer converter: split attn_kv_b, fused experts;
  // GLM-5's: split attn_kv_b, a NextN block, the indexer (half its heads, of up to 128 keeping 2048).
  s->mistral4 = name == "mistral4";
  if (s->mistral4) s->split_kv_b = s->fused_gate_up_exps = true;
  s->glm_dsa = name == "glm-dsa";
  if (s->glm_dsa) {
    s->split_kv_b = true;
    s->n_nextn = 1;
    if (s->indexer_n_head == 0) *s = dsa_indexer(*s, std::max(1, s->n_head / 2), std::min(128, s->head_dim), 2048);
  } else {
    s->indexer_n_head = s->indexer_head_dim = s->indexer_top_k = 0;
  }
  if (!s->deepseek2) {
    s->q_lora_rank = s->kv_lora_rank = 0;
    if (!s->mimo2) s->rope_dim = s->v_head_dim = 0;  // MiMo-V2's value heads and rotated dims stay
    if (name != "mistral3") s->rope_yarn_log_mul = 0.0f;
    return;
  }
  s->n_head_kv = s->n_head;
  if (s->kv_lora_rank > 0) return;
  s->n_ff_shexp = s->n_ff_exp;
  if (s->glm_dsa) {  // GLM-5's proportions: keys of 192 + 64 rope, values of 256, no YaRN
    *s = mla(*s, std::min(2048, 4 * s->n_embd), 512, 64, 256);
    s->head_dim = 192 + 64;
    *s = deepseek_moe(*s, 1, true, true, 2.5f, 1.0f, 0.0f);
    return;
  }
  if (name == "kimi-linear") {  // Kimi Linear's: no query bottleneck, keys of 128 + 64 (unrotated), values of 128
    *s = mla(*s, 0, 512, 64, 128);
    s->head_dim = 128 + 64;
    *s = deepseek_moe(*s, 1, true, true, 2.446f, 1.0f, 0.0f);
    return;
  }
  if (s->mistral4) {  // Mistral Small 4's: a 256-wide latent, keys of 64 + 64 rope, softmax routing
    *s = mla(*s, std::min(1024, 4 * s->n_embd), 256, 64, 128);
    s->head_dim = 64 + 64;
    *s = deepseek_moe(*s, 0, false, true, 1.0f, 128.0f, 0.1f);
    return;
  }
  *s = mla(*s, std::min(1536, 4 * s->n_embd), 512, 64, 128);
  s->head_dim = 128 + 64;
  *s = deepseek_moe(*s, 1, true, true, 2.5f, 40.0f, 0.1f);
}

// BitNet b1.58's layers for --arch bitnet / bitnet-b1.58 (model_spec.h): tied embeddings, as llama.cpp's
// bitnet has no output matrix; the gate relu^2 for bitnet-b1.58 (its arch's) and for bitnet on a BitNet
// preset (2B4T's hidden_act), SiLU on another (1bitLLM's models, llama.cpp's bitnet without the key).
void apply_bitnet(std::string_view name, ModelSpec* s) {
  s->bitnet = name == "bitnet" || name == "bitnet-b1.58";
  s->bitnet_relu2 = name == "bitnet-b1.58" || (s->bitnet && s->preset.starts_with("bitnet"));
  if (s->bitnet) s->tied_embeddings = true;
}

// Gemma 3n's parts for --arch gemma3n (model_spec.h): its presets' laurel rank of 64 and the E2B's
// proportions on another preset, llama.cpp's 10 sparse layers; Gemma 4 E2B's double-wide shared layers
// go (Gemma 3n's are as wide as the others). Another arch drops them, and the per-layer inputs and
// shared K/V unless it is gemma4.
void apply_gemma3n(std::string_view name, ModelSpec* s) {
  constexpr int kPresetLaurelRank = 64, kPeriod = 5;
  s->gemma3n = name == "gemma3n";
  if (!s->gemma3n) {
    s->laurel_rank = s->n_sparse_layers = 0;
    if (name != "gemma4") s->n_embd_per_layer = s->n_shared_kv_layers = 0;
    return;
  }
  s->double_wide_shared = false;
  s->n_sparse_layers = std::min(kGemma3nSparseLayers, s->n_layer);
  if (s->preset.starts_with("gemma3n")) {
    s->laurel_rank = kPresetLaurelRank;
    return;
  }
  s->gemma4_period = kPeriod;
  s->n_embd_per_layer = std::max(1, s->n_embd / 8);
  s->laurel_rank = std::max(1, s->n_embd / 32);
  s->n_layer_preset = 0;  // shared K/V layers: a third of any layer count (set_layer_count())
  set_layer_count(s, s->n_layer);
}

// The architectures mkmodel writes: the dense ones (gemma4 also with experts), then the MoE ones,
// in the order messages name them.
struct GeneratedArch {
  std::string_view name;
  bool moe;
};
constexpr GeneratedArch kGeneratedArchs[] = {
    {"llama", false},       {"qwen2", false},       {"qwen3", false},       {"gemma2", false},
    {"gemma3", false},      {"phi3", false},        {"glm4", false},        {"smollm3", false},
    {"mistral3", false},    {"ernie4_5", false},    {"qwen35", false},      {"qwen2vl", false},
    {"qwen3vl", false},     {"granite", false},     {"cohere2", false},     {"command-r", false},
    {"seed_oss", false},    {"gemma4", false},      {"minicpm", false},     {"deci", false},
    {"nemotron_h", false},  {"lfm2", false},        {"olmo2", false},       {"exaone4", false},
    {"exaone", false},      {"arcee", false},       {"falcon-h1", false},   {"bitnet", false},
    {"bitnet-b1.58", false}, {"gemma3n", false},  {"apertus", false},     {"hunyuan-dense", false},
    {"qwen3moe", true},     {"qwen2moe", true},
    {"mixtral", true},      {"gpt-oss", true},      {"glm4moe", true},      {"llama4", true},
    {"deepseek2", true},    {"mistral4", true},     {"minimax-m2", true},   {"minimax-m3", true},     {"ernie4_5-moe", true},
    {"qwen35moe", true},    {"qwen3next", true},    {"qwen3vlmoe", true},   {"granitemoe", true},
    {"step35", true},       {"laguna", true},       {"hunyuan-moe", true},  {"cohere2_moe", true},
    {"mimo2", true},        {"glm-dsa", true},      {"granitehybrid", true}, {"nemotron_h_moe", true},
    {"lfm2moe", true},      {"olmoe", true},        {"bailingmoe3", true},  {"kimi-linear", true},
};

// "a, b, ... or z" of the dense names (dense), the MoE ones (moe), or both.
std::string listed_archs(bool dense, bool moe) {
  std::vector<std::string_view> names;
  for (const GeneratedArch& a : kGeneratedArchs) {
    if (a.moe ? moe : dense) names.push_back(a.name);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

// Sets the arch-dependent fields of s (the preset's shape) for --arch name.
Status apply_arch(std::string_view name, ModelSpec* s) {
  const bool moe_arch = is_moe_arch_name(name);
  const auto known = std::find_if(std::begin(kGeneratedArchs), std::end(kGeneratedArchs),
                                  [&](const GeneratedArch& a) { return a.name == name; });
  if (known == std::end(kGeneratedArchs)) {
    return Status::InvalidArgument("unknown architecture '" + std::string(name) + "' (" + listed_archs(true, true) + ")");
  }
  // Gemma 4 and Granite 4.0-H come dense or with experts.
  if (moe_arch != (s->n_expert > 0) && name != "gemma4" && name != "granitehybrid") {
    const std::string kind = moe_arch ? "dense (--arch " + listed_archs(true, false) + ")"
                                      : "mixture-of-experts (--arch " + listed_archs(false, true) + ")";
    return Status::InvalidArgument("preset '" + s->preset + "' is " + kind + "; --arch " + std::string(name) +
                                   " needs one of: " + preset_list(moe_arch));
  }
  s->arch = name == "mixtral" ? "llama" : std::string(name);
  s->qk_norm = name == "qwen3" || name == "qwen3moe" || name == "gemma3" || name == "gemma4" || name == "gemma3n" ||
               name == "minimax-m2" || name == "minimax-m3" ||
               name == "step35" || name == "laguna" || name == "hunyuan-moe" || name == "hunyuan-dense" ||
               name == "apertus" ||
               name == "lfm2" || name == "lfm2moe" || name == "olmo2" || name == "olmoe" || name == "exaone4" ||
               name == "qwen35" || name == "qwen35moe" || name == "qwen3next" || name == "qwen3vl" || name == "qwen3vlmoe";
  s->post_norms = name == "gemma3" || name == "gemma2" || name == "glm4" || name == "gemma4" || name == "gemma3n";
  if (name == "gemma3" || name == "gemma2" || name == "cohere2" || name == "command-r" || name == "gemma4" ||
      name == "gemma3n" || name == "minicpm" || name == "lfm2" || name == "lfm2moe") {
    s->tied_embeddings = true;
  }
  s->gemma4 = name == "gemma4";
  apply_gemma3n(name, s);
  s->deci = name == "deci";
  s->cohere2 = name == "cohere2" || name == "command-r";  // Command R: no window (apply_window_and_rope)
  s->cohere2_moe = name == "cohere2_moe";
  s->seed_oss = name == "seed_oss";
  s->gemma2 = name == "gemma2";
  s->gpt_oss = name == "gpt-oss";
  apply_post_norm_layers(name, s);
  if (!s->olmo2 && !s->exaone4) apply_window_and_rope(name, s);
  if (name != "arcee" || s->rope_yarn_factor == 1.0f) s->rope_yarn_orig_ctx = 0;  // AFM-4.5B's own
  s->qkv_bias = name == "qwen2" || name == "qwen2moe" || name == "gpt-oss" || name == "glm4moe" || name == "glm4" ||
                name == "qwen2vl" || name == "seed_oss";
  s->phi3 = name == "phi3";
  s->mistral3 = name == "mistral3";
  if (!s->mistral3) s->attn_temp_scale = 0.0f;
  s->glm4 = name == "glm4";
  apply_expert_layout(name, s);
  apply_deepseek2(name, s);
  apply_hybrid(name, s);
  apply_bitnet(name, s);
  return Status::Ok();
}

}  // namespace

bool is_moe_arch_name(std::string_view arch) {
  for (const GeneratedArch& a : kGeneratedArchs) {
    if (a.name == arch) return a.moe;
  }
  return false;
}

std::vector<std::string> generated_arch_names() {
  std::vector<std::string> names;
  for (const GeneratedArch& a : kGeneratedArchs) names.emplace_back(a.name);
  return names;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : model_presets()) names.emplace_back(p.name);
  return names;
}

Result<ModelSpec> model_preset(std::string_view arch, std::string_view preset) {
  for (const auto& p : model_presets()) {
    if (p.name != preset) continue;
    ModelSpec s = p.shape;
    s.preset = std::string(preset);
    STRATA_RETURN_IF_ERROR(apply_arch(arch.empty() ? p.default_arch : arch, &s));
    return s;
  }
  std::string names;
  for (const auto& n : model_preset_names()) names += (names.empty() ? "" : ", ") + n;
  return Status::InvalidArgument("unknown preset '" + std::string(preset) + "' (" + names + ")");
}

}  // namespace strata
