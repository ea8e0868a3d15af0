#include "engine/request_state.h"

#include "base/log.h"
#include "kernels/kernels.h"
#include "tokenizer/stream_decoder.h"
#include "tokenizer/tokenizer.h"

namespace strata {

Status validate_sampling(const SamplingParams& p, int n_vocab) {
  if (p.temperature < 0) return Status::InvalidArgument("temperature must be >= 0");
  return Status::Ok();
}

RequestState::RequestState(PendingRequest&& pending, const Tokenizer& tokenizer, int n_vocab,
                           EngineObserver* observer)
    : id_(pending.id),
      request_(std::move(pending.request)),
      callback_(std::move(pending.callback)),
      tokenizer_(tokenizer),
      n_vocab_(n_vocab),
      observer_(observer),
      n_prompt_(static_cast<int>(request_.prompt_tokens.size())) {
  tokens_.reserve(request_.prompt_tokens.size() + request_.max_tokens);
  tokens_ = request_.prompt_tokens;
  decoder_ = std::make_unique<StreamDecoder>(tokenizer_);
  record_.id = id_;
  record_.arrival_s = pending.arrival_s;
  record_.prompt_tokens = n_prompt_;
  record_.max_tokens = request_.max_tokens;
  record_.n = request_.n;
}

RequestState::~RequestState() = default;

FinishReason RequestState::accept(const float* logits, double now_s, const LogitsTap& tap) {
  const int index = n_generated();
  if (tap) tap(id_, index, std::span<const float>(logits, n_vocab_));
  int32_t token = kernels::argmax(logits, n_vocab_);
  tokens_.push_back(token);
  if (record_.first_token_s == 0) record_.first_token_s = now_s;
  if (observer_) observer_->on_token(id_, now_s, index == 0);
  if (!request_.ignore_eos && tokenizer_.is_eog(token)) return FinishReason::kStop;
  text_.clear();
  decoder_->push(token, &text_);
  emit_token(token, std::move(text_), logits);
  if (n_generated() >= request_.max_tokens) return FinishReason::kLength;
  return FinishReason::kNone;
}

void RequestState::emit_token(int32_t token, std::string text, const float* logits) {
  RequestEvent e;
  e.kind = RequestEvent::Kind::kToken;
  e.token = token;
  e.text = std::move(text);
  if (callback_) callback_(e);
}

void RequestState::finish(FinishReason reason, double now_s) {
  if (done_) return;
  done_ = true;
  record_.finish = reason;
  record_.finished_s = now_s;
  record_.generated_tokens = n_generated();
  RequestEvent e;
  e.kind = RequestEvent::Kind::kDone;
  e.finish = reason;
  e.prompt_tokens = n_prompt_;
  e.cached_tokens = record_.cached_tokens;
  e.completion_tokens = n_generated();
  if (callback_) callback_(e);
  if (observer_) observer_->on_request_finished(record_);
}

void RequestState::fail(const std::string& error, double now_s) {
  if (done_) return;
  done_ = true;
  record_.finish = FinishReason::kError;
  record_.finished_s = now_s;
  record_.generated_tokens = n_generated();
  RequestEvent e;
  e.kind = RequestEvent::Kind::kError;
  e.finish = FinishReason::kError;
  e.error = error;
  e.prompt_tokens = n_prompt_;
  e.cached_tokens = record_.cached_tokens;
  e.completion_tokens = n_generated();
  if (callback_) callback_(e);
  if (observer_) observer_->on_request_finished(record_);
}

}  // namespace strata
