#include "server/anthropic_stream.h"

#include <utility>

#include "server/anthropic_response.h"
#include "server/api_error.h"
#include "server/json_body_renderer.h"
#include "server/output_tail.h"

namespace strata::server {

using nlohmann::json;

AnthropicStreamRenderer::AnthropicStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta,
                                                 const ModelText& text, int prompt_tokens,
                                                 std::vector<std::string> stops,
                                                 bool parse_tool_calls, ReasoningMode reasoning,
                                                 ToolCallFormat tool_format)
    : sse_(std::move(write)),
      meta_(std::move(meta)),
      text_(text),
      prompt_tokens_(prompt_tokens),
      stops_(std::move(stops)),
      parse_tool_calls_(parse_tool_calls),
      tool_parser_(std::move(tool_format)),
      reasoning_(reasoning),
      splitter_(reasoning, parse_tool_calls) {}

bool AnthropicStreamRenderer::send_reasoning(const std::string& text) {
  if (!thinking_open_) {
    if (!close_text_block()) return false;
    thinking_open_ = true;
    if (!sse_.event("content_block_start", thinking_block_start_event(block_index_)) || !send_deferred_ping()) {
      return false;
    }
  }
  return sse_.event("content_block_delta", thinking_delta_event(text, block_index_));
}

bool AnthropicStreamRenderer::close_thinking_block() {
  if (!thinking_open_) return true;
  thinking_open_ = false;
  return sse_.event("content_block_stop", content_block_stop_event(block_index_++));
}

bool AnthropicStreamRenderer::send_content(const std::string& text) {
  if (text.empty()) return true;
  if (!close_thinking_block()) return false;
  if (parse_tool_calls_) return send_pieces(tool_parser_.feed(text));
  return open_text_block() && sse_.event("content_block_delta", text_delta_event(text, block_index_));
}

bool AnthropicStreamRenderer::send_answer(const ReasoningPiece& piece) {
  if (!piece.call) return send_content(piece.text);
  return close_thinking_block() && send_pieces(tool_parser_.feed_call(piece.text, *piece.call));
}

bool AnthropicStreamRenderer::open_text_block() {
  if (text_open_) return true;
  text_open_ = true;
  return sse_.event("content_block_start", content_block_start_event(block_index_)) && send_deferred_ping();
}

bool AnthropicStreamRenderer::close_text_block() {
  if (!text_open_) return true;
  text_open_ = false;
  return sse_.event("content_block_stop", content_block_stop_event(block_index_++));
}

bool AnthropicStreamRenderer::send_pieces(const std::vector<ToolCallPiece>& pieces) {
  for (const ToolCallPiece& piece : pieces) {
    if (!piece.is_call) {
      if (!open_text_block() ||
          !sse_.event("content_block_delta", text_delta_event(piece.text, block_index_))) {
        return false;
      }
      continue;
    }
    if (!close_text_block()) return false;
    json block = tool_use_block_json(meta_, piece.call, n_calls_++, /*with_input=*/false);
    const std::string input = anthropic_tool_input(piece.call).dump(-1, ' ', false, json::error_handler_t::replace);
    if (!sse_.event("content_block_start", tool_use_block_start_event(block_index_, std::move(block))) ||
        !sse_.event("content_block_delta", input_json_delta_event(input, block_index_)) ||
        !sse_.event("content_block_stop", content_block_stop_event(block_index_++))) {
      return false;
    }
  }
  return true;
}

bool AnthropicStreamRenderer::send_deferred_ping() {
  if (!ping_deferred_) return true;
  ping_deferred_ = false;
  return sse_.event("ping", ping_event());
}

bool AnthropicStreamRenderer::start() {
  if (!sse_.event("message_start", message_start_event(meta_, prompt_tokens_))) return false;
  if (!parse_tool_calls_ && reasoning_.split) {
    // The first block (thinking or text) is known only from the output; the ping follows it,
    // so the events come in the usual order.
    ping_deferred_ = true;
    return true;
  }
  if (!parse_tool_calls_ && !open_text_block()) return false;
  return sse_.event("ping", ping_event());
}

bool AnthropicStreamRenderer::token(int, const RequestEvent& event) {
  result_.add(event, /*keep_logprobs=*/false);
  if (event.text.empty()) return true;
  if (!reasoning_.split) return send_content(event.text);
  for (const ReasoningPiece& piece : splitter_.feed(event.text)) {
    if (!(piece.reasoning ? send_reasoning(piece.text) : send_answer(piece))) return false;
  }
  return true;
}

bool AnthropicStreamRenderer::finish(int, const RequestEvent& event) {
  result_.add(event, /*keep_logprobs=*/false);
  if (!finished_normally(event)) {
    return sse_.event("error", anthropic_error_body(error_for_unfinished(event)));
  }
  OutputTail tail = finish_output(event.text, reasoning_.split, splitter_, parse_tool_calls_, tool_parser_);
  for (const std::string& reasoning : tail.reasoning) {
    if (!send_reasoning(reasoning)) return false;
  }
  std::vector<ToolCallPiece> pieces = std::move(tail).pieces();
  if (!close_thinking_block() || !send_pieces(pieces)) return false;
  // A message always has a block: an empty text block when nothing was said.
  if (block_index_ == 0 && !open_text_block()) return false;
  const std::string stop_sequence = matched_stop_sequence(result_, stops_, text_);
  return close_text_block() &&
         sse_.event("message_delta",
                    message_delta_event(event.finish, stop_sequence, result_.usage, n_calls_ > 0)) &&
         sse_.event("message_stop", message_stop_event());
}

bool AnthropicStreamRenderer::keep_alive() {
  ping_deferred_ = false;
  return sse_.event("ping", ping_event());
}

}  // namespace strata::server
