// Stream renderer for Anthropic Messages SSE: message_start, content_block_start, ping, then
// content_block_delta (text_delta) per piece of text, then content_block_stop, message_delta
// (stop_reason + usage) and message_stop. Keep-alives are ping events; a request that ends
// without stop/length ends the stream with an "error" event.
//
// One instance serves one response on one HTTP thread.
#pragma once

#include <string>
#include <vector>

#include "server/generation_pump.h"
#include "server/generation_result.h"
#include "server/model_text.h"
#include "server/openai_response.h"
#include "server/sse.h"

namespace strata::server {

class AnthropicStreamRenderer : public ResponseRenderer {
 public:
  // prompt_tokens: reported in message_start. stops: the request's stop_sequences, to name the
  // one that matched.
  AnthropicStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta, const ModelText& text,
                          int prompt_tokens, std::vector<std::string> stops);

  bool start() override;
  bool token(const RequestEvent& event) override;
  bool finish(const RequestEvent& event) override;
  bool keep_alive() override;

 private:
  SseWriter sse_;
  ResponseMeta meta_;
  const ModelText& text_;
  int prompt_tokens_;
  std::vector<std::string> stops_;
  GenerationResult result_;
};

}  // namespace strata::server
