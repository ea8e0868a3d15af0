// The per-layer functions of model_spec.h: block and K/V head counts as written, which layers of
// Gemma 4 and 3n, Step 3.5, MiMo-V2 and Nemotron's DeciLM shapes slide or narrow, which layers of the hybrids
// attend (Granite 4.0-H's rule, Nemotron-H's, LFM2's and the KDA hybrids' patterns), and a --layers cut.
// Apart from model_spec.cc, whose arch table and presets they do not need.
#include <algorithm>
#include <string>

#include "modelgen/model_spec.h"

namespace strata {

int block_count(const ModelSpec& spec) { return spec.n_layer + spec.n_nextn; }

int head_count_kv(const ModelSpec& spec) { return spec.split_kv_b ? 1 : spec.n_head_kv; }

bool gemma4_layer_slides(const ModelSpec& spec, int layer) {
  return (layer + 1) % spec.gemma4_period != 0 && layer + 1 != spec.n_layer;
}

bool step35_layer_slides(int layer) { return layer % 4 != 0; }

bool mimo2_layer_slides(int layer) { return layer != 0 && (layer + 1) % 6 != 0; }

int deci_layer_heads(const ModelSpec& spec, int layer) { return spec.deci && layer % 8 == 5 ? 0 : spec.n_head; }

int deci_layer_kv_heads(const ModelSpec& spec, int layer) {
  return spec.deci && (layer % 8 == 5 || layer % 8 == 6) ? 0 : spec.n_head_kv;
}

int deci_ffn_width(const ModelSpec& spec, int layer) {
  if (!spec.deci) return spec.n_ff;
  if (layer % 8 == 7) return 0;
  const int quarters = 4 - layer % 3;  // 4, 3, 2 quarters
  return std::max(256, spec.n_ff * quarters / 4 / 256 * 256);
}

int layer_kv_heads(const ModelSpec& spec, int layer) {
  const bool full = (spec.gemma4 && !gemma4_layer_slides(spec, layer)) || (spec.mimo2 && !mimo2_layer_slides(layer));
  return full ? spec.n_head_kv_full : spec.n_head_kv;
}

int step35_layer_heads(const ModelSpec& spec, int layer) {
  return (spec.step35 || spec.laguna) && step35_layer_slides(layer) ? spec.n_head_swa : spec.n_head;
}

bool gemma4_layer_shares_kv(const ModelSpec& spec, int layer) { return layer >= spec.n_layer - spec.n_shared_kv_layers; }

int gemma4_ffn_width(const ModelSpec& spec, int layer) {
  return spec.double_wide_shared && gemma4_layer_shares_kv(spec, layer) ? 2 * spec.n_ff : spec.n_ff;
}

bool granite_layer_attends(const ModelSpec& spec, int layer) {
  constexpr int kPeriod = 10, kOffset = 5;  // Granite 4.0-H's 40 layers attend at 5, 15, 25, 35
  return layer % kPeriod == std::min(kOffset, spec.n_layer - 1);
}

namespace {

// spec's layer_pattern over its n_layer layers, repeated past its end; where no layer attends, the
// last layer of kind `recurrent` attends instead (the last layer where there is none).
std::string repeated_layer_pattern(const ModelSpec& spec, char recurrent) {
  std::string kinds;
  if (spec.layer_pattern.empty()) return kinds;
  const size_t period = spec.layer_pattern.size();
  for (int l = 0; l < spec.n_layer; ++l) kinds += spec.layer_pattern[static_cast<size_t>(l) % period];
  if (kinds.empty() || kinds.find('*') != std::string::npos) return kinds;
  const size_t last = kinds.rfind(recurrent);
  kinds[last == std::string::npos ? kinds.size() - 1 : last] = '*';
  return kinds;
}

}  // namespace

std::string nemotron_layer_pattern(const ModelSpec& spec) {
  return spec.nemotron_h ? repeated_layer_pattern(spec, 'M') : std::string();
}

char nemotron_layer_kind(const ModelSpec& spec, int layer) {
  const std::string kinds = nemotron_layer_pattern(spec);
  return layer >= 0 && static_cast<size_t>(layer) < kinds.size() ? kinds[static_cast<size_t>(layer)] : '\0';
}

std::string lfm2_layer_pattern(const ModelSpec& spec) {
  return spec.lfm2 ? repeated_layer_pattern(spec, 'C') : std::string();
}

std::string kda_layer_pattern(const ModelSpec& spec) {
  return spec.kda ? repeated_layer_pattern(spec, 'K') : std::string();
}

bool layer_attends(const ModelSpec& spec, int layer) {
  if (spec.nemotron_h) return nemotron_layer_kind(spec, layer) == '*';
  if (spec.lfm2 || spec.kda) {
    const std::string kinds = spec.lfm2 ? lfm2_layer_pattern(spec) : kda_layer_pattern(spec);
    return layer >= 0 && static_cast<size_t>(layer) < kinds.size() && kinds[static_cast<size_t>(layer)] == '*';
  }
  if (spec.mamba2) return granite_layer_attends(spec, layer);
  return spec.full_attn_interval == 0 || (layer + 1) % spec.full_attn_interval == 0;
}

void set_layer_count(ModelSpec* spec, int n_layer) {
  spec->n_layer = n_layer;
  const bool keeps_moe_layer = spec->deepseek2 || (spec->lfm2 && spec->n_expert > 0);
  if (keeps_moe_layer && spec->n_dense_lead >= n_layer) spec->n_dense_lead = std::max(0, n_layer - 1);
  // Gemma 4 E2B / E4B and Gemma 3n: shared layers in the preset's proportion (another preset as
  // gemma3n, n_layer_preset 0: the E2B's third of any count), the first full layer among the own ones
  // (so every shared layer has an earlier layer of its kind to read).
  if (spec->gemma3n && spec->n_layer_preset == 0) {
    spec->n_shared_kv_layers = std::clamp(n_layer / 3, 0, std::max(0, n_layer - spec->gemma4_period));
  } else if (spec->n_shared_kv_layers > 0) {
    const int proportional = spec->n_shared_kv_layers * n_layer / std::max(1, spec->n_layer_preset);
    spec->n_shared_kv_layers = std::clamp(proportional, 0, std::max(0, n_layer - spec->gemma4_period));
  }
  // Gemma 3n's sparse layers are the first 10 (llama.cpp's fixed count), of any cut.
  if (spec->gemma3n) spec->n_sparse_layers = std::min(kGemma3nSparseLayers, n_layer);
}

}  // namespace strata
