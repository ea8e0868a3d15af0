// GenerationResult: everything one request produced, gathered from its engine events, in the
// form the response builders need (text, per-token logprobs, finish reason, usage).
//
// Plain value, filled by one thread through add().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine_types.h"
#include "server/model_text.h"

namespace strata::server {

struct TokenLogprobs {
  int32_t token = -1;
  float logprob = 0.0f;
  std::vector<TopLogprob> top;
};

struct Usage {
  int prompt_tokens = 0;
  int cached_tokens = 0;
  int completion_tokens = 0;
  int reasoning_tokens = 0;  // completion tokens spent reasoning (reasoning_splitter.h)
};

struct GenerationResult {
  std::string text;
  std::vector<int32_t> tokens;         // every generated token, in order
  std::vector<size_t> token_text_ends;  // text.size() after each token's text, one per token
  std::vector<TokenLogprobs> logprobs;  // one per token when logprobs were asked for
  FinishReason finish = FinishReason::kNone;
  bool failed = false;  // a kError event ended it
  std::string error;
  Usage usage;

  // Adds one engine event; keep_logprobs records TokenLogprobs for kToken events.
  void add(const RequestEvent& event, bool keep_logprobs);
};

// Reads the usage numbers carried by a final (kDone / kError) event.
Usage usage_of(const RequestEvent& event);

// The stop string that ended generation, or "" when it ended otherwise (EOS, length...).
// The engine's text stops where the stop string begins, but the generated tokens run on through
// it, so the stop string is found in the tokens' raw text.
std::string matched_stop_sequence(const GenerationResult& result,
                                  const std::vector<std::string>& stops, const ModelText& text);

}  // namespace strata::server
