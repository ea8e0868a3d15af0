#include "sampling/truncation.h"

#include <algorithm>

namespace strata {
namespace {

struct BetterToken {
  std::span<const float> logits;
  bool operator()(int32_t a, int32_t b) const {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  }
};

}  // namespace

size_t keep_top_k(std::span<int32_t> ids, std::span<const float> logits, int k) {
  if (k <= 0 || static_cast<size_t>(k) >= ids.size()) return ids.size();
  std::nth_element(ids.begin(), ids.begin() + k, ids.end(), BetterToken{logits});
  return static_cast<size_t>(k);
}

size_t keep_top_p(std::span<int32_t> ids, std::span<const float> logits, float max_logit, float temperature,
                  double total_mass, float top_p) {
  const size_t n = ids.size();
  const double target = static_cast<double>(top_p) * total_mass;
  // The nucleus is usually small: sort a prefix, and widen it only when its mass falls short.
  size_t k = std::min<size_t>(n, 64);
  while (true) {
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), BetterToken{logits});
    double mass = 0.0;
    for (size_t i = 0; i < k; ++i) {
      mass += token_mass(logits[ids[i]], max_logit, temperature);
      if (mass >= target) return i + 1;
    }
    if (k == n) return n;
    k = std::min(n, k * 8);
  }
}

size_t keep_min_p(std::span<int32_t> ids, std::span<float> masses, float min_p) {
  size_t kept = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (masses[i] < min_p) continue;
    ids[kept] = ids[i];
    masses[kept] = masses[i];
    ++kept;
  }
  return kept;
}

int32_t draw_token(std::span<const int32_t> ids, std::span<const float> masses, double u) {
  double total = 0.0;
  for (float m : masses) total += m;
  const double target = u * total;
  double running = 0.0;
  int32_t last_positive = -1;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (masses[i] <= 0.0f) continue;
    running += masses[i];
    last_positive = ids[i];
    if (target < running) return ids[i];
  }
  return last_positive;  // rounding left the target at the very end
}

}  // namespace strata
