// Expert-load imbalance of a mixture-of-experts model over the engine's routing window: in
// each layer the busiest expert's tokens divided by the mean per expert, maximised over the
// layers. 1 means every expert of every layer got the same share; n_expert means one expert
// took everything in some layer. The renderers show it as moe.expert_imbalance
// (strata:moe_expert_imbalance).
//
// Stateless and thread-safe.
#pragma once

#include <optional>

#include "engine/engine_types.h"

namespace strata {

// Empty for a dense model or when no token was routed in the window (nothing to compare).
std::optional<double> moe_expert_imbalance(const MoeLoad& moe);

}  // namespace strata
