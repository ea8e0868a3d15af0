#include "sampling/penalties.h"

#include <string>

namespace strata {

Status apply_penalties(std::span<float> logits, std::span<const int32_t> history, const SamplingConfig& config,
                       std::span<int32_t> counts) {
  bool active = config.repeat_penalty != 1.0f || config.frequency_penalty != 0.0f || config.presence_penalty != 0.0f;
  if (!active || config.repeat_last_n == 0) return Status::Ok();
  size_t window = config.repeat_last_n < 0 ? history.size()
                                           : std::min(history.size(), static_cast<size_t>(config.repeat_last_n));
  std::span<const int32_t> recent = history.last(window);
  const auto n_vocab = static_cast<int32_t>(logits.size());
  for (size_t i = 0; i < recent.size(); ++i) {
    int32_t token = recent[i];
    if (token < 0 || token >= n_vocab) {
      for (size_t j = 0; j < i; ++j) counts[recent[j]] = 0;
      return Status::InvalidArgument("history token " + std::to_string(token) + " is outside the vocabulary (n_vocab " +
                                     std::to_string(n_vocab) + ")");
    }
    ++counts[token];
  }
  // Each distinct token is penalized once, at its first occurrence; clearing its count marks
  // it done and leaves the scratch zeroed.
  for (int32_t token : recent) {
    int32_t count = counts[token];
    if (count == 0) continue;
    counts[token] = 0;
    float& logit = logits[token];
    logit = logit > 0 ? logit / config.repeat_penalty : logit * config.repeat_penalty;
    logit -= static_cast<float>(count) * config.frequency_penalty + config.presence_penalty;
  }
  return Status::Ok();
}

void apply_logit_bias(std::span<float> logits, const std::vector<std::pair<int32_t, float>>& bias) {
  for (const auto& [token, delta] : bias) logits[token] += delta;
}

}  // namespace strata
