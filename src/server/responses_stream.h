// Stream renderer for OpenAI Responses API answers: named SSE events, each with its "type" and
// a "sequence_number" counting from 0: response.created and response.in_progress (the response
// object, in_progress); then per output item response.output_item.added, its content
// (reasoning: content_part.added, reasoning_text.delta..., reasoning_text.done,
// content_part.done; message: content_part.added, output_text.delta..., output_text.done,
// content_part.done; function_call: one function_call_arguments.delta with the whole arguments,
// function_call_arguments.done) and response.output_item.done; last response.completed (or
// response.incomplete at the token limit) with the whole response and its usage. A request that
// ends without stop/length ends the stream with response.failed, whose response carries the error.
// Keep-alives are SSE comments. No "[DONE]": the Responses API has none.
//
// The item order is the output's: reasoning first, then a message when there is text, then each
// function call (text that may be a tool call is held back until it is known not to be one).
// One instance serves one response on one HTTP thread.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/generation_pump.h"
#include "server/generation_result.h"
#include "server/model_text.h"
#include "server/openai_response.h"
#include "server/reasoning_splitter.h"
#include "server/request_json.h"
#include "server/sse.h"
#include "server/tool_call_parser.h"

namespace strata::server {

class ResponsesStreamRenderer : public ResponseRenderer {
 public:
  // Called with the finished response (completed or incomplete) before its last event is sent.
  using CompleteFn = std::function<void(const nlohmann::json& response)>;

  ResponsesStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta, nlohmann::json echo, bool parse_tool_calls,
                          ReasoningMode reasoning, ToolCallFormat tool_format, CompleteFn on_complete = {});

  bool start() override;
  bool token(int choice, const RequestEvent& event) override;  // one choice: the Responses API has no n
  bool finish(int choice, const RequestEvent& event) override;
  bool keep_alive() override { return sse_.keep_alive(); }

 private:
  // The item being written: a reasoning or message item's text so far.
  enum class Open { kNone, kReasoning, kMessage };

  bool emit(const char* type, nlohmann::json fields);
  bool open_item(Open kind);
  bool close_item();
  // A piece of the reasoning (kReasoning) or of the message's text (kMessage), in its item.
  bool send_delta(Open kind, const std::string& text);
  // Content after the reasoning split: through the tool-call parser when tools were offered.
  bool send_content(const std::string& text);
  bool send_answer(const ReasoningPiece& piece);
  bool send_pieces(const std::vector<ToolCallPiece>& pieces);
  bool send_call(const ParsedToolCall& call);
  nlohmann::json response(const std::string& status, nlohmann::json usage, nlohmann::json error = nullptr) const;

  SseWriter sse_;
  ResponseMeta meta_;
  nlohmann::json echo_;
  bool parse_tool_calls_;
  ToolCallParser tool_parser_;
  ReasoningMode reasoning_;
  ReasoningSplitter splitter_;  // takes harmony calls apart when tools were offered
  int64_t sequence_ = 0;
  nlohmann::json output_ = nlohmann::json::array();  // the finished items, in order
  Open open_ = Open::kNone;
  std::string open_id_;    // the open item's id
  std::string open_text_;  // the open item's text so far
  size_t n_calls_ = 0;
  CompleteFn on_complete_;
};

}  // namespace strata::server
