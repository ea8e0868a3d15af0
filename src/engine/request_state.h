// RequestState: one admitted request while it runs in a slot: its tokens (prompt, then
// generated), its sampler, stop-string matcher and text decoder, its callback and times.
//
// accept() turns one logits row into the next token and the events the client sees:
//   - the token is sampled (counter-based RNG keyed by (seed, position), so the choice
//     depends only on this request's own logits and position);
//   - EOS (unless ignore_eos) ends the request with kStop and sends no token event (it
//     still counts as a completion token);
//   - text is decoded as whole UTF-8 characters; text that may be the start of a stop
//     string is held back until it is known not to be; a completed stop string ends the
//     request with kStop and its text (and anything after it) is never sent;
//   - max_tokens ends it with kLength.
// finish() sends the single kDone (or kError) event. Owned by the engine thread; the
// callback runs there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/engine_inbox.h"
#include "engine/engine_types.h"

namespace strata {

class Tokenizer;
class Sampler;
class StopMatcher;
class StreamDecoder;

using LogitsTap = decltype(EngineOptions::logits_tap);

// Checks a request's sampling fields; errors name the field and the accepted range.
Status validate_sampling(const SamplingParams& params, int n_vocab);

class RequestState {
 public:
  RequestState(PendingRequest&& pending, const Tokenizer& tokenizer, int n_vocab, EngineObserver* observer);
  ~RequestState();

  RequestId id() const { return id_; }
  const GenerateRequest& request() const { return request_; }
  std::span<const int32_t> tokens() const { return tokens_; }
  int n_prompt() const { return n_prompt_; }
  int n_generated() const { return static_cast<int>(tokens_.size()) - n_prompt_; }
  RequestRecord& record() { return record_; }

  // Next token from one logits row (n_vocab floats). Returns kNone to continue, else why
  // the request is finished (the caller then calls finish()).
  FinishReason accept(const float* logits, double now_s, const LogitsTap& tap);
  // Sends kDone with usage; the request must not be used afterwards.
  void finish(FinishReason reason, double now_s);
  // Sends kError naming what went wrong.
  void fail(const std::string& error, double now_s);

 private:
  void emit_token(int32_t token, std::string text, const float* logits);

  RequestId id_;
  GenerateRequest request_;
  RequestCallback callback_;
  const Tokenizer& tokenizer_;
  const int n_vocab_;
  EngineObserver* const observer_;
  int n_prompt_;
  std::vector<int32_t> tokens_;
  std::unique_ptr<StreamDecoder> decoder_;
  std::string text_;  // scratch for one token's text
  RequestRecord record_;
  bool done_ = false;
};

}  // namespace strata
