#include "modelgen/model_spec.h"

namespace strata {

namespace {

struct Preset {
  std::string_view name;
  std::string_view default_arch;
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

// n_vocab here is used only when no vocabulary file is given (the built-in byte vocab is
// padded up to it).
std::vector<Preset> presets() {
  return {
      {"tiny", "llama", shape(259, 512, 64, 2, 4, 2, 16, 128, 1e-5f, 10000.0f, false)},
      {"small", "llama", shape(259, 1024, 256, 4, 8, 4, 32, 768, 1e-5f, 10000.0f, false)},
      // TinyLlama-1.1B.
      {"1b", "llama", shape(32000, 2048, 2048, 22, 32, 4, 64, 5632, 1e-5f, 10000.0f, false)},
      {"tinyllama", "llama", shape(32000, 2048, 2048, 22, 32, 4, 64, 5632, 1e-5f, 10000.0f, false)},
      // Qwen3-0.6B: head_dim 128 although 1024 / 16 = 64.
      {"qwen3-0.6b", "qwen3", shape(151936, 40960, 1024, 28, 16, 8, 128, 3072, 1e-6f, 1000000.0f, true)},
  };
}

}  // namespace

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
    s.arch = std::string(arch.empty() ? p.default_arch : arch);
    if (s.arch != "llama" && s.arch != "qwen2" && s.arch != "qwen3") {
      return Status::InvalidArgument("unknown architecture '" + s.arch + "' (llama, qwen2 or qwen3)");
    }
    s.qk_norm = s.arch == "qwen3";
    s.qkv_bias = s.arch == "qwen2";
    return s;
  }
  std::string names;
  for (const auto& n : model_preset_names()) names += (names.empty() ? "" : ", ") + n;
  return Status::InvalidArgument("unknown preset '" + std::string(preset) + "' (" + names + ")");
}

}  // namespace strata
