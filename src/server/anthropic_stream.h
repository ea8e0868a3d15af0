// Stream renderer for Anthropic Messages SSE: message_start, content_block_start, ping, then
// content_block_delta (text_delta) per piece of text, then content_block_stop, message_delta
// (stop_reason + usage) and message_stop. Keep-alives are ping events; a request that ends
// without stop/length ends the stream with an "error" event.
// When the request offered tools, text blocks open only when text arrives (text that may be a
// tool call is held back), and each tool call is a tool_use block of its own: content_block_start
// (input {}), one input_json_delta with the whole arguments object, content_block_stop; the
// message ends with stop_reason "tool_use". With reasoning.split, reasoning streams first as a
// thinking block (thinking_delta events) and text blocks open only when text arrives.
//
// One instance serves one response on one HTTP thread.
#pragma once

#include <string>
#include <vector>

#include "server/generation_pump.h"
#include "server/generation_result.h"
#include "server/model_text.h"
#include "server/openai_response.h"
#include "server/reasoning_splitter.h"
#include "server/sse.h"
#include "server/tool_call_parser.h"

namespace strata::server {

class AnthropicStreamRenderer : public ResponseRenderer {
 public:
  // prompt_tokens: reported in message_start. stops: the request's stop_sequences, to name the
  // one that matched.
  AnthropicStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta, const ModelText& text,
                          int prompt_tokens, std::vector<std::string> stops,
                          bool parse_tool_calls = false, ReasoningMode reasoning = {},
                          ToolCallFormat tool_format = {});

  bool start() override;
  bool token(int choice, const RequestEvent& event) override;  // one choice: Anthropic has no n
  bool finish(int choice, const RequestEvent& event) override;
  bool keep_alive() override;

 private:
  SseWriter sse_;
  ResponseMeta meta_;
  const ModelText& text_;
  int prompt_tokens_;
  std::vector<std::string> stops_;
  bool send_pieces(const std::vector<ToolCallPiece>& pieces);
  bool open_text_block();
  bool close_text_block();
  bool send_reasoning(const std::string& text);
  bool close_thinking_block();
  bool send_deferred_ping();
  // Content after the reasoning split: through the tool-call parser when tools were offered.
  bool send_content(const std::string& text);
  // An answer piece of the split: its text, then its call (a harmony call) straight to the parser.
  bool send_answer(const ReasoningPiece& piece);

  GenerationResult result_;
  bool parse_tool_calls_;
  ToolCallParser tool_parser_;
  size_t block_index_ = 0;  // the open block's index, or the next block's
  bool text_open_ = false;
  size_t n_calls_ = 0;
  ReasoningMode reasoning_;
  ReasoningSplitter splitter_;  // takes harmony calls apart when tools were offered
  bool thinking_open_ = false;
  bool ping_deferred_ = false;  // the first ping waits for the first block
};

}  // namespace strata::server
