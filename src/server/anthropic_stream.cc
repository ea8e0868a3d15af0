#include "server/anthropic_stream.h"

#include <utility>

#include "server/anthropic_response.h"
#include "server/api_error.h"
#include "server/json_body_renderer.h"

namespace strata::server {

AnthropicStreamRenderer::AnthropicStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta,
                                                 const ModelText& text, int prompt_tokens,
                                                 std::vector<std::string> stops)
    : sse_(std::move(write)),
      meta_(std::move(meta)),
      text_(text),
      prompt_tokens_(prompt_tokens),
      stops_(std::move(stops)) {}

bool AnthropicStreamRenderer::start() {
  return sse_.event("message_start", message_start_event(meta_, prompt_tokens_)) &&
         sse_.event("content_block_start", content_block_start_event()) &&
         sse_.event("ping", ping_event());
}

bool AnthropicStreamRenderer::token(const RequestEvent& event) {
  result_.add(event, /*keep_logprobs=*/false);
  if (event.text.empty()) return true;
  return sse_.event("content_block_delta", text_delta_event(event.text));
}

bool AnthropicStreamRenderer::finish(const RequestEvent& event) {
  result_.add(event, /*keep_logprobs=*/false);
  if (!finished_normally(event)) {
    return sse_.event("error", anthropic_error_body(error_for_unfinished(event)));
  }
  if (!event.text.empty() && !sse_.event("content_block_delta", text_delta_event(event.text))) {
    return false;
  }
  const std::string stop_sequence = matched_stop_sequence(result_, stops_, text_);
  return sse_.event("content_block_stop", content_block_stop_event()) &&
         sse_.event("message_delta", message_delta_event(event.finish, stop_sequence, result_.usage)) &&
         sse_.event("message_stop", message_stop_event());
}

bool AnthropicStreamRenderer::keep_alive() { return sse_.event("ping", ping_event()); }

}  // namespace strata::server
