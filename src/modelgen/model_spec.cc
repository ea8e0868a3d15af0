#include "modelgen/model_spec.h"

#include <algorithm>

namespace strata {

namespace {

struct Preset {
  std::string_view name;
  std::string_view default_arch;  // an --arch name
  ModelSpec shape;
};

ModelSpec shape(int n_vocab, int n_ctx, int n_embd, int n_layer, int n_head, int n_head_kv, int head_dim, int n_ff,
                float rms_eps, float rope_base, bool tied) {
  ModelSpec s;
  s.n_vocab = n_vocab;
  s.n_ctx = n_ctx;
  s.n_embd = n_embd;
  s.n_layer = n_layer;
  s.n_head = n_head;
  s.n_head_kv = n_head_kv;
  s.head_dim = head_dim;
  s.n_ff = n_ff;
  s.rms_eps = rms_eps;
  s.rope_freq_base = rope_base;
  s.tied_embeddings = tied;
  return s;
}

// A Gemma 3 shape's sliding window and its global layers' linear rope scaling (--arch gemma3
// on other presets gets apply_arch's window, unscaled; another --arch drops both).
ModelSpec gemma(ModelSpec s, int sliding_window, float rope_linear_factor) {
  s.sliding_window = sliding_window;
  s.rope_linear_factor = rope_linear_factor;
  return s;
}

// gpt-oss's window and YaRN factor (another --arch drops both).
ModelSpec gpt_oss(ModelSpec s, int sliding_window, float rope_yarn_factor) {
  s.sliding_window = sliding_window;
  s.rope_yarn_factor = rope_yarn_factor;
  return s;
}

// n_ff_shexp is written only by --arch qwen2moe; glm4moe sets its own, the others drop it.
ModelSpec experts(ModelSpec s, int n_expert, int n_expert_used, int n_ff_exp, int n_ff_shexp) {
  s.n_expert = n_expert;
  s.n_expert_used = n_expert_used;
  s.n_ff_exp = n_ff_exp;
  s.n_ff_shexp = n_ff_shexp;
  return s;
}

// n_vocab here is used only when no vocabulary file is given (the built-in byte vocab is
// padded up to it).
std::vector<Preset> presets() {
  return {
      {"tiny", "llama", shape(259, 512, 64, 2, 4, 2, 16, 128, 1e-5f, 10000.0f, false)},
      {"small", "llama", shape(259, 1024, 256, 4, 8, 4, 32, 768, 1e-5f, 10000.0f, false)},
      // TinyLlama-1.1B.
      {"1b", "llama", shape(32000, 2048, 2048, 22, 32, 4, 64, 5632, 1e-5f, 10000.0f, false)},
      {"tinyllama", "llama", shape(32000, 2048, 2048, 22, 32, 4, 64, 5632, 1e-5f, 10000.0f, false)},
      // Llama-3-8B, the shape most local users run: 4096 wide, 32 query heads over 8 K/V heads
      // of 128, a 128256-token vocabulary, 8192 positions (with --rope-freqs, the rope frequency
      // factors of Llama 3.1-8B, whose original context 8192 is).
      {"llama3-8b", "llama", shape(128256, 8192, 4096, 32, 32, 8, 128, 14336, 1e-5f, 500000.0f, false)},
      // Qwen3-0.6B: head_dim 128 although 1024 / 16 = 64.
      {"qwen3-0.6b", "qwen3", shape(151936, 40960, 1024, 28, 16, 8, 128, 3072, 1e-6f, 1000000.0f, true)},
      // The shape of ../shared/models/moe/tiny-*.gguf (2 layers, 8 experts of 256, shared 192).
      {"moe-tiny", "qwen3moe", experts(shape(259, 2048, 128, 2, 4, 2, 32, 256, 1e-6f, 10000.0f, false), 8, 2, 256, 192)},
      // Qwen3-30B-A3B: q_dim 4096 != n_embd 2048; feed_forward_length 6144 is its dense width.
      // The shared width (qwen2moe only) is 4 experts' worth, Qwen1.5-MoE-A2.7B's ratio.
      {"qwen3-30b-a3b", "qwen3moe",
       experts(shape(151936, 40960, 2048, 48, 32, 4, 128, 6144, 1e-6f, 1000000.0f, false), 128, 8, 768, 3072)},
      // Qwen1.5-MoE-A2.7B (qwen2moe): 60 experts of 1408, 4 used, a shared expert of 5632;
      // head_dim = n_embd / n_head, the only shape llama.cpp's qwen2moe reads.
      {"qwen1.5-moe-a2.7b", "qwen2moe",
       experts(shape(151936, 8192, 2048, 24, 16, 16, 128, 5632, 1e-6f, 1000000.0f, false), 60, 4, 1408, 5632)},
      // Gemma 3 1B: 4 query heads of 256 over one K/V head, a 262144-token vocabulary, tied
      // embeddings, a sliding window of 512 keys in 5 of every 6 layers.
      {"gemma3-1b", "gemma3", gemma(shape(262144, 32768, 1152, 26, 4, 1, 256, 6912, 1e-6f, 1000000.0f, true), 512, 1.0f)},
      // Gemma 3 4B (its text part): 8 query heads of 256 over 4 K/V heads, a 1024-key window, and
      // linear rope scaling 8 in its global layers.
      {"gemma3-4b", "gemma3",
       gemma(shape(262144, 131072, 2560, 34, 8, 4, 256, 10240, 1e-6f, 1000000.0f, true), 1024, 8.0f)},
      // gpt-oss-20b: 32 experts of 2880, 4 used; 64 query heads of 64 over 8 K/V heads; a
      // 128-key window in every other layer; YaRN 32 over an original context of 4096.
      {"gpt-oss-20b", "gpt-oss",
       gpt_oss(experts(shape(201088, 131072, 2880, 24, 64, 8, 64, 2880, 1e-5f, 150000.0f, false), 32, 4, 2880, 0), 128,
               32.0f)},
      // Gemma 2 2B: 8 query heads of 256 over 4 K/V heads, a 256000-token vocabulary, tied
      // embeddings, a 4096-key window in every other layer.
      {"gemma2-2b", "gemma2", gemma(shape(256000, 8192, 2304, 26, 8, 4, 256, 9216, 1e-6f, 10000.0f, true), 4096, 1.0f)},
      // Phi-4 (14B): 40 query heads of 128 over 10 K/V heads, a 100352-token vocabulary, no
      // window (its files say 0).
      {"phi-4", "phi3", shape(100352, 16384, 5120, 40, 40, 10, 128, 17920, 1e-5f, 250000.0f, false)},
      // SmolLM3-3B: 16 query heads of 128 over 4 K/V heads, Llama 3's vocabulary, tied
      // embeddings, no rope in every 4th layer (the arch's).
      {"smollm3-3b", "smollm3", shape(128256, 65536, 2048, 36, 16, 4, 128, 11008, 1e-6f, 5000000.0f, true)},
      // Mixtral-8x7B.
      {"mixtral-8x7b", "mixtral",
       experts(shape(32000, 32768, 4096, 32, 32, 8, 128, 14336, 1e-5f, 1000000.0f, false), 8, 2, 14336, 14336)},
      // GLM-4.5-Air: 96 query heads of 128 over 8 K/V heads (q_dim 12288, three times n_embd),
      // 128 experts of 1408 with 8 used and one shared; its first layer dense (10944 wide), and
      // a NextN block after the 46 layers (apply_arch).
      {"glm-4.5-air", "glm4moe",
       experts(shape(151552, 131072, 4096, 46, 96, 8, 128, 10944, 1e-5f, 1000000.0f, false), 128, 8, 1408, 1408)},
      // Llama 4 Scout (17B active, 16 experts): 40 query heads of 128 over 8 K/V heads, 16
      // experts of 8192 with 1 used and a shared one in every layer, a 202048-token vocabulary;
      // its dense width (16384, Maverick's dense layers') unused (apply_arch).
      {"llama4-scout", "llama4",
       experts(shape(202048, 262144, 5120, 48, 40, 8, 128, 16384, 1e-5f, 500000.0f, false), 16, 1, 8192, 8192)},
  };
}

std::string preset_list(bool moe) {
  std::string names;
  for (const auto& p : presets()) {
    if ((p.shape.n_expert > 0) != moe) continue;
    names += (names.empty() ? "" : ", ") + std::string(p.name);
  }
  return names;
}

// The window and rope scaling of --arch name on s (the preset's shape).
void apply_window_and_rope(std::string_view name, ModelSpec* s) {
  if (name == "gemma3" || name == "gemma2") {
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
  } else {
    // A Gemma 3 or gpt-oss shape as another architecture: no window, and its rope unscaled.
    s->sliding_window = 0;
    s->rope_linear_factor = 1.0f;
    s->rope_yarn_factor = 1.0f;
  }
}

// GLM-4.5's: one dense block first (of the preset's n_ff), one shared expert of the expert
// width, one NextN block, routing weights unscaled. Other archs have none of these.
void apply_expert_layout(std::string_view name, ModelSpec* s) {
  s->glm4moe = name == "glm4moe";
  s->llama4 = name == "llama4";
  s->moe_layer_step = 1;
  s->n_dense_lead = s->glm4moe ? 1 : 0;
  s->n_nextn = s->glm4moe ? 1 : 0;
  s->expert_weights_scale = 1.0f;
  if (s->glm4moe || s->llama4) {
    s->n_ff_shexp = s->n_ff_exp;
  } else if (name != "qwen2moe") {
    s->n_ff_shexp = 0;
  }
  if (name == "mixtral") s->n_ff = s->n_ff_exp;  // llama.feed_forward_length is the expert width
}

// Sets the arch-dependent fields of s (the preset's shape) for --arch name.
Status apply_arch(std::string_view name, ModelSpec* s) {
  const bool moe_arch = is_moe_arch_name(name);
  if (!moe_arch && name != "llama" && name != "qwen2" && name != "qwen3" && name != "gemma2" && name != "gemma3" &&
      name != "phi3" && name != "glm4" && name != "smollm3") {
    return Status::InvalidArgument("unknown architecture '" + std::string(name) +
                                   "' (llama, qwen2, qwen3, gemma2, gemma3, phi3, glm4, smollm3, qwen2moe, qwen3moe, "
                                   "mixtral, gpt-oss, glm4moe or llama4)");
  }
  if (moe_arch != (s->n_expert > 0)) {
    const char* kind = moe_arch ? "dense (--arch llama, qwen2, qwen3, gemma2, gemma3, phi3, glm4 or smollm3)"
                                : "mixture-of-experts (--arch qwen3moe, qwen2moe, mixtral, gpt-oss, glm4moe or llama4)";
    return Status::InvalidArgument("preset '" + s->preset + "' is " + kind + "; --arch " + std::string(name) +
                                   " needs one of: " + preset_list(moe_arch));
  }
  s->arch = name == "mixtral" ? "llama" : std::string(name);
  s->qk_norm = name == "qwen3" || name == "qwen3moe" || name == "gemma3";
  s->post_norms = name == "gemma3" || name == "gemma2" || name == "glm4";
  if (name == "gemma3" || name == "gemma2") s->tied_embeddings = true;
  s->gemma2 = name == "gemma2";
  s->gpt_oss = name == "gpt-oss";
  apply_window_and_rope(name, s);
  s->qkv_bias = name == "qwen2" || name == "qwen2moe" || name == "gpt-oss" || name == "glm4moe" || name == "glm4";
  s->phi3 = name == "phi3";
  s->glm4 = name == "glm4";
  apply_expert_layout(name, s);
  return Status::Ok();
}

}  // namespace

bool is_moe_arch_name(std::string_view arch) {
  return arch == "qwen2moe" || arch == "qwen3moe" || arch == "mixtral" || arch == "gpt-oss" || arch == "glm4moe" ||
         arch == "llama4";
}

int block_count(const ModelSpec& spec) { return spec.n_layer + spec.n_nextn; }

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : presets()) names.emplace_back(p.name);
  return names;
}

Result<ModelSpec> model_preset(std::string_view arch, std::string_view preset) {
  for (const auto& p : presets()) {
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
