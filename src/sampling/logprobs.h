// Reading a logits array as a distribution: argmax, log-sum-exp and the best-N tokens as
// log-probabilities. Ties always go to the lowest token id. Non-finite logits (-inf after a
// ban, NaN from a broken model) never win and count as probability zero. Allocates nothing.
#pragma once

#include <cstdint>
#include <span>

namespace strata {

struct TokenLogprob {
  int32_t token = 0;
  float logprob = 0.0f;
};

// The token with the highest finite logit, the lowest id among equals; -1 when none is finite.
int32_t argmax_token(std::span<const float> logits);

// log(sum(exp(logit))) over the finite logits, computed stably; -inf when none is finite.
double log_sum_exp(std::span<const float> logits);

// Writes the min(out.size(), #finite) best tokens, best first, as logit - lse; returns how many.
size_t top_logprobs(std::span<const float> logits, double lse, std::span<TokenLogprob> out);

}  // namespace strata
