#include "model/arch_table.h"

namespace strata {
namespace {

// Output weights are never listed: every architecture falls back to the token embedding
// when output.weight is absent (tied embeddings), which is what llama-family files expect.
constexpr ArchTraits kArchs[] = {
    {"llama", /*rope_neox=*/false, /*requires_qkv_bias=*/false, /*requires_qk_norm=*/false},
    {"qwen2", /*rope_neox=*/true, /*requires_qkv_bias=*/true, /*requires_qk_norm=*/false},
    {"qwen3", /*rope_neox=*/true, /*requires_qkv_bias=*/false, /*requires_qk_norm=*/true},
};

}  // namespace

const ArchTraits* find_arch(std::string_view name) {
  for (const ArchTraits& a : kArchs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::string_view supported_arch_names() { return "llama, qwen2, qwen3"; }

}  // namespace strata
