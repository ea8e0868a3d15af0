// SamplingConfig: how one request turns logits into tokens. A plain value; the engine fills it
// from its SamplingParams (same fields and meanings).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/status.h"

namespace strata {

struct SamplingConfig {
  float temperature = 0.0f;   // <= 0: greedy (argmax after penalties and bias)
  int top_k = 0;              // 0: off
  float top_p = 1.0f;         // 1: off
  float min_p = 0.0f;         // 0: off; keeps tokens with p >= min_p * p(most likely)
  float repeat_penalty = 1.0f;  // llama.cpp: divides positive, multiplies negative logits
  int repeat_last_n = 64;     // penalty window over the history's tail; -1: all of it, 0: off
  float frequency_penalty = 0.0f;  // OpenAI: logit -= count * frequency_penalty
  float presence_penalty = 0.0f;   // OpenAI: logit -= presence_penalty if count > 0
  std::vector<std::pair<int32_t, float>> logit_bias;  // added to the logit; -inf bans a token
  uint64_t seed = 0;          // the random stream is keyed by (seed, position)
  int n_top_logprobs = 0;     // > 0: report this many alternatives per token
  bool logprobs = false;      // report the sampled token's log-probability
};

// Checks ranges and token ids; errors name the field ("top_p must be in (0, 1], got 1.5").
Status validate_sampling_config(const SamplingConfig& config, int n_vocab);

}  // namespace strata
