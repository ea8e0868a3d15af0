#include "server/responses_stream.h"

#include <algorithm>
#include <utility>

#include "server/api_error.h"
#include "server/json_body_renderer.h"
#include "server/output_tail.h"
#include "server/responses_response.h"

namespace strata::server {

using nlohmann::json;

ResponsesStreamRenderer::ResponsesStreamRenderer(SseWriter::WriteFn write, ResponseMeta meta, json echo,
                                                 bool parse_tool_calls, ReasoningMode reasoning,
                                                 ToolCallFormat tool_format, CompleteFn on_complete)
    : sse_(std::move(write)),
      meta_(std::move(meta)),
      echo_(std::move(echo)),
      parse_tool_calls_(parse_tool_calls),
      tool_parser_(std::move(tool_format)),
      reasoning_(reasoning),
      splitter_(reasoning, parse_tool_calls),
      on_complete_(std::move(on_complete)) {}

bool ResponsesStreamRenderer::emit(const char* type, json fields) {
  fields["type"] = type;
  fields["sequence_number"] = sequence_++;
  return sse_.event(type, fields);
}

json ResponsesStreamRenderer::response(const std::string& status, json usage, json error) const {
  return response_object_json(meta_, echo_, status, output_, std::move(usage), std::move(error));
}

bool ResponsesStreamRenderer::start() {
  return emit("response.created", {{"response", response("in_progress", nullptr)}}) &&
         emit("response.in_progress", {{"response", response("in_progress", nullptr)}});
}

bool ResponsesStreamRenderer::open_item(Open kind) {
  if (open_ == kind) return true;
  if (!close_item()) return false;
  open_ = kind;
  open_text_.clear();
  const size_t index = output_.size();
  json item = kind == Open::kReasoning ? reasoning_item_json(meta_, index, "")
                                       : message_item_json(meta_, index, "", "in_progress");
  open_id_ = item["id"];
  const std::string& item_id = open_id_;
  json part = output_text_part_json("");
  if (kind == Open::kReasoning) {
    item["content"] = json::array();
    part = {{"type", "reasoning_text"}, {"text", ""}};
  }
  return emit("response.output_item.added", {{"output_index", index}, {"item", std::move(item)}}) &&
         emit("response.content_part.added",
              {{"item_id", item_id}, {"output_index", index}, {"content_index", 0}, {"part", std::move(part)}});
}

bool ResponsesStreamRenderer::close_item() {
  if (open_ == Open::kNone) return true;
  const bool reasoning = std::exchange(open_, Open::kNone) == Open::kReasoning;
  const size_t index = output_.size();
  json item = reasoning ? reasoning_item_json(meta_, index, open_text_)
                        : message_item_json(meta_, index, open_text_, "completed");
  json part = item["content"][0];
  json where = {{"item_id", item["id"]}, {"output_index", index}, {"content_index", 0}};
  json text_done = where;
  text_done["text"] = open_text_;
  json part_done = where;
  part_done["part"] = std::move(part);
  output_.push_back(item);
  return emit(reasoning ? "response.reasoning_text.done" : "response.output_text.done", std::move(text_done)) &&
         emit("response.content_part.done", std::move(part_done)) &&
         emit("response.output_item.done", {{"output_index", index}, {"item", std::move(item)}});
}

bool ResponsesStreamRenderer::send_delta(Open kind, const std::string& text) {
  if (text.empty()) return true;
  if (!open_item(kind)) return false;
  open_text_ += text;
  json delta = {{"item_id", open_id_}, {"output_index", output_.size()}, {"content_index", 0}, {"delta", text}};
  if (kind == Open::kReasoning) return emit("response.reasoning_text.delta", std::move(delta));
  delta["logprobs"] = json::array();
  return emit("response.output_text.delta", std::move(delta));
}

bool ResponsesStreamRenderer::send_call(const ParsedToolCall& call) {
  if (!close_item()) return false;
  const size_t index = output_.size();
  const size_t call_index = n_calls_++;
  json item = function_call_item_json(meta_, call, call_index, "completed");
  json where = {{"item_id", item["id"]}, {"output_index", index}};
  json delta = where;
  delta["delta"] = call.arguments_json;
  json done = where;
  done["arguments"] = call.arguments_json;
  output_.push_back(item);
  return emit("response.output_item.added",
              {{"output_index", index}, {"item", function_call_item_json(meta_, call, call_index, "in_progress")}}) &&
         emit("response.function_call_arguments.delta", std::move(delta)) &&
         emit("response.function_call_arguments.done", std::move(done)) &&
         emit("response.output_item.done", {{"output_index", index}, {"item", std::move(item)}});
}

bool ResponsesStreamRenderer::send_pieces(const std::vector<ToolCallPiece>& pieces) {
  for (const ToolCallPiece& piece : pieces) {
    if (!(piece.is_call ? send_call(piece.call) : send_delta(Open::kMessage, piece.text))) return false;
  }
  return true;
}

bool ResponsesStreamRenderer::send_content(const std::string& text) {
  if (parse_tool_calls_) return send_pieces(tool_parser_.feed(text));
  return send_delta(Open::kMessage, text);
}

bool ResponsesStreamRenderer::send_answer(const ReasoningPiece& piece) {
  if (!piece.call) return send_content(piece.text);
  return send_pieces(tool_parser_.feed_call(piece.text, *piece.call));
}

bool ResponsesStreamRenderer::token(int, const RequestEvent& event) {
  if (event.text.empty()) return true;
  if (!reasoning_.split) return send_content(event.text);
  for (const ReasoningPiece& piece : splitter_.feed(event.text)) {
    if (!(piece.reasoning ? send_delta(Open::kReasoning, piece.text) : send_answer(piece))) return false;
  }
  return true;
}

bool ResponsesStreamRenderer::finish(int, const RequestEvent& event) {
  if (!finished_normally(event)) {
    const ApiError error = error_for_unfinished(event);
    return emit("response.failed", {{"response", response("failed", nullptr, {{"code", error.code}, {"message", error.message}})}});
  }
  OutputTail tail = finish_output(event.text, reasoning_.split, splitter_, parse_tool_calls_, tool_parser_);
  for (const std::string& reasoning : tail.reasoning) {
    if (!send_delta(Open::kReasoning, reasoning)) return false;
  }
  std::vector<ToolCallPiece> pieces = std::move(tail).pieces();
  if (!send_pieces(pieces)) return false;
  // An answer always has a message or a call: an empty message when nothing was said.
  if (n_calls_ == 0 && open_ != Open::kMessage &&
      std::none_of(output_.begin(), output_.end(), [](const json& item) { return item["type"] == "message"; }) &&
      !open_item(Open::kMessage)) {
    return false;
  }
  if (!close_item()) return false;
  Usage usage = usage_of(event);
  usage.reasoning_tokens = splitter_.reasoning_tokens();
  const std::string status = response_status(event.finish);
  json done = response(status, responses_usage_json(usage));
  if (on_complete_) on_complete_(done);
  return emit(status == "completed" ? "response.completed" : "response.incomplete", {{"response", std::move(done)}});
}

}  // namespace strata::server
