#include "server/generation_result.h"

namespace strata::server {

Usage usage_of(const RequestEvent& event) {
  return {event.prompt_tokens, event.cached_tokens, event.completion_tokens};
}

void GenerationResult::add(const RequestEvent& event, bool keep_logprobs) {
  text.append(event.text);
  if (event.kind == RequestEvent::Kind::kToken) {
    tokens.push_back(event.token);
    token_text_ends.push_back(text.size());
    if (keep_logprobs) logprobs.push_back({event.token, event.logprob, event.top_logprobs});
    return;
  }
  usage = usage_of(event);
  if (event.kind == RequestEvent::Kind::kError) {
    failed = true;
    error = event.error;
    finish = FinishReason::kError;
  } else {
    finish = event.finish;
  }
}

std::string matched_stop_sequence(const GenerationResult& result,
                                  const std::vector<std::string>& stops, const ModelText& text) {
  if (result.finish != FinishReason::kStop || stops.empty()) return "";
  // Generation ends at the first occurrence of any stop string, so the earliest one found in
  // the raw text is the one that matched.
  const std::string raw = text.detokenize(result.tokens);
  size_t best_at = std::string::npos;
  std::string best;
  for (const std::string& stop : stops) {
    size_t at = raw.find(stop);
    if (at < best_at) {
      best_at = at;
      best = stop;
    }
  }
  return best;
}

}  // namespace strata::server
