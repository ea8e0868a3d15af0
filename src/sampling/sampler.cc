#include "sampling/sampler.h"

#include <cmath>
#include <string>

#include "sampling/counter_rng.h"
#include "sampling/penalties.h"
#include "sampling/truncation.h"

namespace strata {

Sampler::Sampler(int n_vocab)
    : n_vocab_(n_vocab), work_(n_vocab), ids_(n_vocab), masses_(n_vocab), counts_(n_vocab, 0) {}

Result<SampleResult> Sampler::sample(std::span<const float> logits, const SamplingConfig& config,
                                     std::span<const int32_t> history, int64_t position, std::span<TokenLogprob> top,
                                     std::span<const uint64_t> allowed) {
  if (logits.size() != static_cast<size_t>(n_vocab_)) {
    return Status::InvalidArgument("sampler: got " + std::to_string(logits.size()) + " logits for a vocabulary of " +
                                   std::to_string(n_vocab_));
  }
  STRATA_RETURN_IF_ERROR(validate_sampling_config(config, n_vocab_));
  for (size_t i = 0; i < logits.size(); ++i) work_[i] = std::isnan(logits[i]) ? -INFINITY : logits[i];
  STRATA_RETURN_IF_ERROR(apply_penalties(work_, history, config, counts_));
  apply_logit_bias(work_, config.logit_bias);
  if (!allowed.empty()) {
    if (allowed.size() != static_cast<size_t>((n_vocab_ + 63) / 64)) {
      return Status::InvalidArgument("sampler: the allowed-token mask does not fit the vocabulary");
    }
    for (int32_t t = 0; t < n_vocab_; ++t) {
      if (!((allowed[t >> 6] >> (t & 63)) & 1)) work_[t] = -INFINITY;
    }
  }

  SampleResult result;
  result.token = config.temperature <= 0.0f ? argmax_token(work_) : draw(config, position);
  if (result.token < 0) return Status::InvalidArgument("sampler: no token has a finite logit");
  if (config.logprobs || config.n_top_logprobs > 0) {
    double lse = log_sum_exp(work_);
    result.logprob = static_cast<float>(work_[result.token] - lse);
    size_t n_top = std::min(top.size(), static_cast<size_t>(config.n_top_logprobs));
    result.n_top = static_cast<int>(top_logprobs(work_, lse, top.first(n_top)));
  }
  return result;
}

int32_t Sampler::draw(const SamplingConfig& config, int64_t position) {
  size_t n = 0;
  for (int32_t t = 0; t < n_vocab_; ++t) {
    if (std::isfinite(work_[t])) ids_[n++] = t;
  }
  if (n == 0) return -1;
  std::span<int32_t> ids(ids_.data(), n);
  n = keep_top_k(ids, work_, config.top_k);
  float max_logit = -INFINITY;
  for (size_t i = 0; i < n; ++i) max_logit = std::max(max_logit, work_[ids_[i]]);
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) total += token_mass(work_[ids_[i]], max_logit, config.temperature);
  if (config.top_p < 1.0f) {
    n = keep_top_p(ids.first(n), work_, max_logit, config.temperature, total, config.top_p);
  }
  for (size_t i = 0; i < n; ++i) {
    masses_[i] = static_cast<float>(token_mass(work_[ids_[i]], max_logit, config.temperature));
  }
  if (config.min_p > 0.0f) n = keep_min_p(ids.first(n), std::span<float>(masses_.data(), n), config.min_p);
  double u = counter_uniform(config.seed, static_cast<uint64_t>(position));
  return draw_token(ids.first(n), std::span<const float>(masses_.data(), n), u);
}

}  // namespace strata
