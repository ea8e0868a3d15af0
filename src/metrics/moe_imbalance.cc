#include "metrics/moe_imbalance.h"

#include <algorithm>

namespace strata {

std::optional<double> moe_expert_imbalance(const MoeLoad& moe) {
  if (moe.n_expert <= 0 || moe.tokens.size() != static_cast<size_t>(moe.n_layer) * moe.n_expert) {
    return std::nullopt;
  }
  std::optional<double> worst;
  for (int l = 0; l < moe.n_layer; ++l) {
    const auto first = moe.tokens.begin() + static_cast<ptrdiff_t>(l) * moe.n_expert;
    uint64_t sum = 0, busiest = 0;
    for (auto it = first; it != first + moe.n_expert; ++it) {
      sum += *it;
      busiest = std::max(busiest, *it);
    }
    if (sum == 0) continue;  // a layer no token reached (a stage not yet run) says nothing
    const double ratio = static_cast<double>(busiest) * moe.n_expert / static_cast<double>(sum);
    worst = std::max(worst.value_or(0.0), ratio);
  }
  return worst;
}

}  // namespace strata
