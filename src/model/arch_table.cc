#include "model/arch_table.h"

namespace strata {
namespace {

// Output weights are never listed: every architecture falls back to the token embedding
// when output.weight is absent (tied embeddings), which is what llama-family files expect.
constexpr ArchTraits kArchs[] = {
    // name       rope_neox qkv_bias qk_norm experts norm_topk
    {"llama",     false,    false,   false,  false,  true},
    {"qwen2",     true,     true,    false,  false,  false},
    {"qwen3",     true,     false,   true,   false,  false},
    {"qwen2moe",  true,     true,    false,  true,   false},
    {"qwen3moe",  true,     false,   true,   true,   true},
};

}  // namespace

const ArchTraits* find_arch(std::string_view name) {
  for (const ArchTraits& a : kArchs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string_view supported_arch_names() { return "llama (dense or Mixtral-style experts), qwen2, qwen3, qwen2moe, qwen3moe"; }

}  // namespace strata
