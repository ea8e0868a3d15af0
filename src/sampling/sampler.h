// Sampler: turns one row of logits into a token for one request.
//
// Pipeline: copy the logits (NaN counts as -inf) -> repetition/frequency/presence penalties
// over the history's tail -> logit bias -> the allowed-token mask of a constrained request
// (disallowed tokens become -inf) -> [log-probabilities are read here] -> greedy argmax
// when temperature <= 0, else temperature -> top-k -> top-p -> min-p -> one draw from the
// counter-based stream at (seed, position).
//
// Log-probabilities (OpenAI-like) describe the model's distribution after penalties and bias
// but before temperature and truncation, so they do not change with sampling settings.
// Ties everywhere go to the lowest token id.
//
// A Sampler owns scratch sized for its vocabulary once; sample() allocates nothing. It keeps
// no state between calls (the draw depends only on the arguments), so a request samples the
// same tokens alone or batched. Not thread-safe: use one Sampler per thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "sampling/logprobs.h"
#include "sampling/sampling_config.h"

namespace strata {

struct SampleResult {
  int32_t token = -1;
  float logprob = 0.0f;  // set when config.logprobs or n_top_logprobs > 0
  int n_top = 0;         // alternatives written to the caller's span
};

class Sampler {
 public:
  explicit Sampler(int n_vocab);

  int n_vocab() const { return n_vocab_; }

  // logits: the model's n_vocab outputs for this position (not modified).
  // history: the tokens so far (prompt + generated); penalties read its tail.
  // position: the index in the sequence of the token being sampled; keys the random draw.
  // top: receives min(top.size(), n_top_logprobs) alternatives, best first.
  // allowed: empty, or one bit per token id (bit t of word t/64): only those may be drawn.
  // Fails for a wrong logits or mask size, an invalid config, a history token outside the
  // vocabulary, or logits with no finite (allowed) value.
  Result<SampleResult> sample(std::span<const float> logits, const SamplingConfig& config,
                              std::span<const int32_t> history, int64_t position, std::span<TokenLogprob> top = {},
                              std::span<const uint64_t> allowed = {});

 private:
  int32_t draw(const SamplingConfig& config, int64_t position);

  int n_vocab_;
  std::vector<float> work_;      // the processed logits
  std::vector<int32_t> ids_;     // candidate token ids
  std::vector<float> masses_;    // candidate masses, aligned with ids_
  std::vector<int32_t> counts_;  // penalty scratch, all zero between calls
};

}  // namespace strata
