// The recurrent layers an --arch gives a preset's shape (model_spec.h): Qwen3.5's gated delta-net
// layers, Granite 4.0-H's, Nemotron-H's and Falcon-H1's Mamba-2 layers, LFM2's short convolutions and
// Ling 3.0's and Kimi Linear's Kimi Delta Attention, each on a preset of its family as the preset has
// them and on another in the proportions model_preset() names. Private to src/modelgen (model_spec.cc's
// apply_arch calls it); pure functions of the spec.
#pragma once

#include <string_view>

#include "modelgen/model_spec.h"

namespace strata {

// Sets s's recurrent-layer fields for --arch name, clearing them for an arch without recurrent layers;
// after deepseek2's latent attention is set (the KDA hybrids' attending layers).
void apply_hybrid(std::string_view name, ModelSpec* s);

}  // namespace strata
