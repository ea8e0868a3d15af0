#include "sampling/logprobs.h"

#include <cmath>

namespace strata {
namespace {

// Strictly better in the deterministic order: higher logit, then lower id.
bool better(float logit_a, int32_t a, float logit_b, int32_t b) {
  return logit_a > logit_b || (logit_a == logit_b && a < b);
}

}  // namespace

int32_t argmax_token(std::span<const float> logits) {
  int32_t best = -1;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (!std::isfinite(logits[i])) continue;
    if (best < 0 || logits[i] > logits[best]) best = static_cast<int32_t>(i);
  }
  return best;
}

double log_sum_exp(std::span<const float> logits) {
  int32_t best = argmax_token(logits);
  if (best < 0) return -INFINITY;
  double max_logit = logits[best];
  double sum = 0.0;
  for (float logit : logits) {
    if (std::isfinite(logit)) sum += std::exp(static_cast<double>(logit) - max_logit);
  }
  return max_logit + std::log(sum);
}

size_t top_logprobs(std::span<const float> logits, double lse, std::span<TokenLogprob> out) {
  // Insertion into a short sorted list: out is small (a few alternatives), the scan is linear.
  size_t n = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    float logit = logits[i];
    auto token = static_cast<int32_t>(i);
    if (!std::isfinite(logit) || out.empty()) continue;
    if (n == out.size() && !better(logit, token, out[n - 1].logprob, out[n - 1].token)) continue;
    size_t slot = n < out.size() ? n++ : n - 1;
    while (slot > 0 && better(logit, token, out[slot - 1].logprob, out[slot - 1].token)) {
      out[slot] = out[slot - 1];
      --slot;
    }
    out[slot] = TokenLogprob{token, logit};
  }
  for (size_t i = 0; i < n; ++i) out[i].logprob = static_cast<float>(out[i].logprob - lse);
  return n;
}

}  // namespace strata
