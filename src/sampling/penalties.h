// Logit processors that run before any truncation: repetition/frequency/presence penalties
// and logit bias. They edit a caller-owned logits array in place and allocate nothing.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "sampling/sampling_config.h"

namespace strata {

// For each distinct token among the last repeat_last_n entries of `history` (all of them for
// -1, none for 0), with c = its count there:
//   llama.cpp's repetition penalty: logit /= repeat_penalty if logit > 0, else *= repeat_penalty;
//   then OpenAI's: logit -= c * frequency_penalty + presence_penalty.
// `counts` is n_vocab scratch that must be all zero; it is all zero again on return.
// Fails (changing nothing) when a history token is outside the vocabulary.
Status apply_penalties(std::span<float> logits, std::span<const int32_t> history, const SamplingConfig& config,
                       std::span<int32_t> counts);

// Adds each bias to its token's logit (token ids already validated).
void apply_logit_bias(std::span<float> logits, const std::vector<std::pair<int32_t, float>>& bias);

}  // namespace strata
