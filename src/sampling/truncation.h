// Candidate truncation and the final draw: top-k, top-p (nucleus), min-p. Each works on a
// candidate list, a prefix of a caller-owned token-id array, reorders or shrinks it in place
// and returns the new length; nothing allocates. Orders are total (higher logit first, then
// lower id), so results never depend on the sort implementation.
//
// A token's "mass" is its unnormalized probability at the given temperature,
// exp((logit - max_logit) / temperature): the best candidate has mass 1.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>

namespace strata {

inline double token_mass(float logit, float max_logit, float temperature) {
  return std::exp((static_cast<double>(logit) - max_logit) / temperature);
}

// Keeps the k best candidates (in unspecified order). k <= 0 or k >= size keeps all.
size_t keep_top_k(std::span<int32_t> ids, std::span<const float> logits, int k);

// Sorts candidates best first and keeps the shortest prefix whose mass reaches
// top_p * total_mass (always at least one). total_mass is the mass of all of `ids`.
size_t keep_top_p(std::span<int32_t> ids, std::span<const float> logits, float max_logit, float temperature,
                  double total_mass, float top_p);

// Keeps, in order, the candidates whose mass is at least min_p (masses[i] belongs to ids[i]).
size_t keep_min_p(std::span<int32_t> ids, std::span<float> masses, float min_p);

// The candidate at which the running mass first exceeds u * (sum of masses); u in [0, 1).
int32_t draw_token(std::span<const int32_t> ids, std::span<const float> masses, double u);

}  // namespace strata
