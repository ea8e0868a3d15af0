#include "server/anthropic_response.h"

#include "server/request_json.h"

namespace strata::server {

using nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

namespace {

json stop_sequence_value(const std::string& stop_sequence) {
  return stop_sequence.empty() ? json(nullptr) : json(stop_sequence);
}

}  // namespace

const char* anthropic_stop_reason(FinishReason finish, const std::string& stop_sequence,
                                  bool tool_use) {
  if (tool_use) return "tool_use";
  if (finish == FinishReason::kLength) return "max_tokens";
  return stop_sequence.empty() ? "end_turn" : "stop_sequence";
}

json anthropic_usage_json(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens - usage.cached_tokens},
          {"output_tokens", usage.completion_tokens},
          {"cache_read_input_tokens", usage.cached_tokens},
          {"cache_creation_input_tokens", 0}};
}

OrderedJson anthropic_tool_input(const ParsedToolCall& call) {
  if (call.arguments_raw) return {{"INVALID_JSON", call.arguments_json}};
  // Otherwise the parser hands over arguments as a JSON object's text, so this parse cannot fail
  // (and, unlike nlohmann's ordered parse, takes time linear in the object's size).
  return parse_ordered_json(call.arguments_json).value;
}

OrderedJson tool_use_block_json(const ResponseMeta& meta, const ParsedToolCall& call, size_t call_index,
                                bool with_input) {
  OrderedJson input = with_input ? anthropic_tool_input(call) : OrderedJson::object();
  return {{"type", "tool_use"},
          {"id", call.id.empty() ? tool_call_id("toolu_", meta.id, call_index) : call.id},
          {"name", call.name},
          {"input", std::move(input)}};
}

OrderedJson anthropic_message_json(const ResponseMeta& meta, const GenerationResult& result,
                                   const std::string& stop_sequence, bool parse_tool_calls,
                                   ReasoningMode reasoning, const ToolCallFormat& tool_format) {
  OrderedJson content = OrderedJson::array();
  std::string answer = result.text;
  std::vector<PlacedToolCall> harmony_calls;
  if (reasoning.split) {
    SplitResult split = split_result_reasoning(result, reasoning, parse_tool_calls);
    if (split.output.had_reasoning) {
      content.push_back({{"type", "thinking"}, {"thinking", split.output.reasoning}, {"signature", ""}});
    }
    answer = std::move(split.output.content);
    harmony_calls = std::move(split.output.calls);
  }
  ParsedOutput parsed;
  if (parse_tool_calls) parsed = server::parse_tool_calls(answer, harmony_calls, tool_format);
  if (parsed.calls.empty()) {
    content.push_back({{"type", "text"}, {"text", answer}});
  } else if (!parsed.content.empty()) {
    content.push_back({{"type", "text"}, {"text", parsed.content}});
  }
  for (size_t i = 0; i < parsed.calls.size(); ++i) {
    content.push_back(tool_use_block_json(meta, parsed.calls[i], i, /*with_input=*/true));
  }
  return {{"id", meta.id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", meta.model},
          {"content", content},
          {"stop_reason", anthropic_stop_reason(result.finish, stop_sequence, !parsed.calls.empty())},
          {"stop_sequence", stop_sequence_value(stop_sequence)},
          {"usage", OrderedJson(anthropic_usage_json(result.usage))}};
}

json message_start_event(const ResponseMeta& meta, int prompt_tokens) {
  // How much of the prompt comes from the cache is known only at the end; message_delta
  // carries the final split.
  Usage usage{prompt_tokens, 0, 0};
  json message = {{"id", meta.id},
                  {"type", "message"},
                  {"role", "assistant"},
                  {"model", meta.model},
                  {"content", json::array()},
                  {"stop_reason", nullptr},
                  {"stop_sequence", nullptr},
                  {"usage", anthropic_usage_json(usage)}};
  return {{"type", "message_start"}, {"message", message}};
}

json content_block_start_event(size_t index) {
  return {{"type", "content_block_start"},
          {"index", index},
          {"content_block", {{"type", "text"}, {"text", ""}}}};
}

json ping_event() { return {{"type", "ping"}}; }

json tool_use_block_start_event(size_t index, json block) {
  return {{"type", "content_block_start"}, {"index", index}, {"content_block", std::move(block)}};
}

json text_delta_event(const std::string& text, size_t index) {
  return {{"type", "content_block_delta"},
          {"index", index},
          {"delta", {{"type", "text_delta"}, {"text", text}}}};
}

json thinking_block_start_event(size_t index) {
  return {{"type", "content_block_start"},
          {"index", index},
          {"content_block", {{"type", "thinking"}, {"thinking", ""}, {"signature", ""}}}};
}

json thinking_delta_event(const std::string& thinking, size_t index) {
  return {{"type", "content_block_delta"},
          {"index", index},
          {"delta", {{"type", "thinking_delta"}, {"thinking", thinking}}}};
}

json input_json_delta_event(const std::string& partial_json, size_t index) {
  return {{"type", "content_block_delta"},
          {"index", index},
          {"delta", {{"type", "input_json_delta"}, {"partial_json", partial_json}}}};
}

json content_block_stop_event(size_t index) {
  return {{"type", "content_block_stop"}, {"index", index}};
}

json message_delta_event(FinishReason finish, const std::string& stop_sequence,
                         const Usage& usage, bool tool_use) {
  return {{"type", "message_delta"},
          {"delta",
           {{"stop_reason", anthropic_stop_reason(finish, stop_sequence, tool_use)},
            {"stop_sequence", stop_sequence_value(stop_sequence)}}},
          {"usage", anthropic_usage_json(usage)}};
}

json message_stop_event() { return {{"type", "message_stop"}}; }

}  // namespace strata::server
