// RequestState: one admitted request while it runs in a slot: its tokens (prompt, then
// generated), its sampling config, stop-string matcher and text decoder, its callback and
// its times.
//
// accept() turns one logits row into the next token and the events the client sees:
//   - the token is sampled by the engine thread's Sampler at position = its index in the
//     sequence, so the draw (keyed by (seed, position)) depends only on this request;
//   - EOS/end-of-turn (unless ignore_eos) ends the request with kStop and sends no token
//     event (it still counts as a completion token);
//   - text is decoded as whole UTF-8 characters; text that may begin a stop string is held
//     back until it cannot; a completed stop string ends the request with kStop, and it
//     and anything after it are never sent;
//   - max_tokens ends it with kLength;
//   - a constrained request (GenerateRequest::constraint) samples only among the tokens its
//     grammar allows next (end of generation only where the grammar accepts), and ends with
//     kStop as soon as its output is complete.
// finish() reports the RequestRecord to the observer, then sends the single kDone (or
// kError) event; kDone.text carries whatever text was
// still held back (an unfinished stop-string prefix or UTF-8 tail), usually empty.
// Owned by the engine thread; the callback and observer run there.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/engine_inbox.h"
#include "engine/engine_types.h"
#include "engine/request_constraint.h"
#include "sampling/sampler.h"
#include "sampling/stop_matcher.h"
#include "tokenizer/stream_decoder.h"

namespace strata {

class Tokenizer;

using LogitsTap = decltype(EngineOptions::logits_tap);

SamplingConfig sampling_config(const SamplingParams& params);
// Checks a request's sampling fields; errors name the field and the accepted range.
Status validate_sampling(const SamplingParams& params, int n_vocab);

class RequestState {
 public:
  // constraint_vocab: the engine's vocabulary bytes, needed when the request has a constraint.
  RequestState(PendingRequest&& pending, const Tokenizer& tokenizer, EngineObserver* observer,
               std::shared_ptr<const grammar::TokenVocabulary> constraint_vocab = nullptr);

  RequestId id() const { return id_; }
  const GenerateRequest& request() const { return request_; }
  std::span<const int32_t> tokens() const { return tokens_; }
  int n_prompt() const { return n_prompt_; }
  int n_generated() const { return static_cast<int>(tokens_.size()) - n_prompt_; }
  RequestRecord& record() { return record_; }

  // Next token from one logits row. Returns kNone to continue, else why the request is
  // finished (kError after a sampling failure, with the message in *error); the caller
  // then calls finish() or fail().
  FinishReason accept(std::span<const float> logits, Sampler& sampler, double now_s, const LogitsTap& tap,
                      std::string* error);
  // Sends kDone with usage and any held-back text.
  void finish(FinishReason reason, double now_s);
  // An embed request's end: kDone (kStop) with its embedding and usage.
  void finish_embedding(std::vector<float> embedding, double now_s);
  // Sends kError naming what went wrong.
  void fail(const std::string& error, double now_s);

 private:
  void emit_token(int32_t token, const SampleResult& sample);
  void close_record(FinishReason reason, double now_s);
  RequestEvent final_event(RequestEvent::Kind kind, FinishReason reason);

  RequestId id_;
  GenerateRequest request_;
  RequestCallback callback_;
  const Tokenizer& tokenizer_;
  EngineObserver* const observer_;
  SamplingConfig config_;
  int n_prompt_;
  std::vector<int32_t> tokens_;
  std::vector<TokenLogprob> top_;  // n_top_logprobs alternatives of the latest token
  StopMatcher stop_;
  StreamDecoder decoder_;
  std::string piece_;  // one token's decoded text, before the stop matcher
  std::string text_;   // what the stop matcher lets through
  RequestRecord record_;
  std::unique_ptr<RequestConstraint> constraint_;  // null when unconstrained
  bool done_ = false;
};

}  // namespace strata
