#include "engine/request_state.h"

#include "tokenizer/tokenizer.h"

namespace strata {

SamplingConfig sampling_config(const SamplingParams& p) {
  SamplingConfig c;
  c.temperature = p.temperature;
  c.top_k = p.top_k;
  c.top_p = p.top_p;
  c.min_p = p.min_p;
  c.repeat_penalty = p.repeat_penalty;
  c.repeat_last_n = p.repeat_last_n;
  c.frequency_penalty = p.frequency_penalty;
  c.presence_penalty = p.presence_penalty;
  c.logit_bias = p.logit_bias;
  c.seed = p.seed;
  c.n_top_logprobs = p.n_top_logprobs;
  c.logprobs = p.logprobs;
  return c;
}

Status validate_sampling(const SamplingParams& p, int n_vocab) {
  return validate_sampling_config(sampling_config(p), n_vocab);
}

RequestState::RequestState(PendingRequest&& pending, const Tokenizer& tokenizer, EngineObserver* observer,
                           std::shared_ptr<const grammar::TokenVocabulary> constraint_vocab)
    : id_(pending.id),
      request_(std::move(pending.request)),
      callback_(std::move(pending.callback)),
      tokenizer_(tokenizer),
      observer_(observer),
      config_(sampling_config(request_.sampling)),
      n_prompt_(static_cast<int>(request_.prompt_tokens.size())),
      top_(static_cast<size_t>(request_.sampling.n_top_logprobs)),
      stop_(request_.stop),
      decoder_(tokenizer) {
  tokens_.reserve(request_.prompt_tokens.size() + request_.max_tokens);
  tokens_ = request_.prompt_tokens;
  record_.id = id_;
  record_.arrival_s = pending.arrival_s;
  record_.prompt_tokens = n_prompt_;
  record_.max_tokens = request_.max_tokens;
  record_.n = request_.n;
  record_.choice = request_.choice;
  if (request_.constraint && constraint_vocab) {
    constraint_ = std::make_unique<RequestConstraint>(request_.constraint, std::move(constraint_vocab));
  }
}

FinishReason RequestState::accept(std::span<const float> logits, Sampler& sampler, double now_s,
                                  const LogitsTap& tap, std::string* error) {
  const int index = n_generated();
  if (tap) tap(id_, index, logits);
  const int64_t position = static_cast<int64_t>(tokens_.size());
  const std::span<const uint64_t> allowed = constraint_ ? constraint_->allowed() : std::span<const uint64_t>();
  Result<SampleResult> sample = sampler.sample(logits, config_, tokens_, position, top_, allowed);
  if (!sample.ok()) {
    *error = sample.status().message();
    return FinishReason::kError;
  }
  const int32_t token = sample->token;
  if (constraint_ && !constraint_->accept(token)) {
    *error = "the sampled token does not continue the constrained output";
    return FinishReason::kError;
  }
  tokens_.push_back(token);
  if (index == 0) record_.first_token_s = now_s;
  if (observer_) observer_->on_token(id_, now_s, index == 0);
  if (!request_.ignore_eos && tokenizer_.is_eog(token)) return FinishReason::kStop;
  piece_.clear();
  text_.clear();
  decoder_.push(token, &piece_);
  const bool stopped = stop_.feed(piece_, &text_);
  emit_token(token, *sample);
  if (stopped || (constraint_ && constraint_->complete())) return FinishReason::kStop;
  if (n_generated() >= request_.max_tokens) return FinishReason::kLength;
  return FinishReason::kNone;
}

void RequestState::emit_token(int32_t token, const SampleResult& sample) {
  if (!callback_) return;
  RequestEvent e;
  e.kind = RequestEvent::Kind::kToken;
  e.token = token;
  e.text = text_;
  e.logprob = sample.logprob;
  e.top_logprobs.reserve(sample.n_top);
  for (int i = 0; i < sample.n_top; ++i) e.top_logprobs.push_back({top_[i].token, top_[i].logprob});
  callback_(e);
}

void RequestState::close_record(FinishReason reason, double now_s) {
  done_ = true;
  record_.finish = reason;
  record_.finished_s = now_s;
  record_.generated_tokens = n_generated();
}

RequestEvent RequestState::final_event(RequestEvent::Kind kind, FinishReason reason) {
  RequestEvent e;
  e.kind = kind;
  e.finish = reason;
  e.prompt_tokens = n_prompt_;
  e.cached_tokens = record_.cached_tokens;
  e.completion_tokens = n_generated();
  return e;
}

void RequestState::finish(FinishReason reason, double now_s) {
  if (done_) return;
  close_record(reason, now_s);
  RequestEvent e = final_event(RequestEvent::Kind::kDone, reason);
  if (!stop_.stopped()) {
    // Release what was held back: an incomplete UTF-8 tail, then a stop-string prefix.
    piece_.clear();
    decoder_.flush(&piece_);
    if (!stop_.feed(piece_, &e.text)) stop_.flush(&e.text);
  }
  if (observer_) observer_->on_request_finished(record_);
  if (callback_) callback_(e);
}

void RequestState::finish_embedding(std::vector<float> embedding, double now_s) {
  if (done_) return;
  close_record(FinishReason::kStop, now_s);
  RequestEvent e = final_event(RequestEvent::Kind::kDone, FinishReason::kStop);
  e.embedding = std::move(embedding);
  if (observer_) observer_->on_request_finished(record_);
  if (callback_) callback_(e);
}

void RequestState::fail(const std::string& error, double now_s) {
  if (done_) return;
  close_record(FinishReason::kError, now_s);
  RequestEvent e = final_event(RequestEvent::Kind::kError, FinishReason::kError);
  e.error = error;
  if (observer_) observer_->on_request_finished(record_);
  if (callback_) callback_(e);
}

}  // namespace strata
