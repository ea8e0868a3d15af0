#include "sampling/sampling_config.h"

#include <cmath>
#include <string>

namespace strata {
namespace {

Status bad(const std::string& field, const std::string& rule, double value) {
  return Status::InvalidArgument(field + " must be " + rule + ", got " + std::to_string(value));
}

}  // namespace

Status validate_sampling_config(const SamplingConfig& c, int n_vocab) {
  if (!std::isfinite(c.temperature) || c.temperature < 0) return bad("temperature", ">= 0", c.temperature);
  if (c.top_k < 0) return bad("top_k", ">= 0", c.top_k);
  if (!(c.top_p > 0 && c.top_p <= 1)) return bad("top_p", "in (0, 1]", c.top_p);
  if (!(c.min_p >= 0 && c.min_p <= 1)) return bad("min_p", "in [0, 1]", c.min_p);
  if (!std::isfinite(c.repeat_penalty) || c.repeat_penalty <= 0) return bad("repeat_penalty", "> 0", c.repeat_penalty);
  if (c.repeat_last_n < -1) return bad("repeat_last_n", ">= -1", c.repeat_last_n);
  if (!std::isfinite(c.frequency_penalty)) return bad("frequency_penalty", "finite", c.frequency_penalty);
  if (!std::isfinite(c.presence_penalty)) return bad("presence_penalty", "finite", c.presence_penalty);
  if (c.n_top_logprobs < 0 || c.n_top_logprobs > n_vocab) {
    return bad("n_top_logprobs", "in [0, " + std::to_string(n_vocab) + "]", c.n_top_logprobs);
  }
  for (const auto& [token, bias] : c.logit_bias) {
    if (token < 0 || token >= n_vocab) {
      return Status::InvalidArgument("logit_bias token " + std::to_string(token) + " is outside the vocabulary (n_vocab " +
                                     std::to_string(n_vocab) + ")");
    }
    if (std::isnan(bias) || bias == INFINITY) {
      return Status::InvalidArgument("logit_bias for token " + std::to_string(token) + " must be a number or -inf");
    }
  }
  return Status::Ok();
}

}  // namespace strata
