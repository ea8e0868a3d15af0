#include "server/responses_response.h"

#include <utility>

namespace strata::server {

using nlohmann::json;

json responses_usage_json(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens},
          {"input_tokens_details", {{"cached_tokens", usage.cached_tokens}}},
          {"output_tokens", usage.completion_tokens},
          {"output_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}};
}

const char* response_status(FinishReason finish) {
  return finish == FinishReason::kLength ? "incomplete" : "completed";
}

json response_object_json(const ResponseMeta& meta, const json& echo, const std::string& status,
                          json output, json usage, json error) {
  json incomplete = status == "incomplete" ? json{{"reason", "max_output_tokens"}} : json(nullptr);
  json out = {{"id", meta.id},
              {"object", "response"},
              {"created_at", meta.created},
              {"status", status},
              {"error", std::move(error)},
              {"incomplete_details", std::move(incomplete)},
              {"model", meta.model},
              {"output", std::move(output)},
              {"previous_response_id", nullptr},
              {"store", false},
              {"truncation", "disabled"},
              {"usage", std::move(usage)},
              {"user", nullptr}};
  // The request's settings, as OpenAI repeats them.
  out.update(echo);
  return out;
}

json reasoning_item_json(const ResponseMeta& meta, size_t output_index, const std::string& text) {
  return {{"id", tool_call_id("rs_", meta.id, output_index)},
          {"type", "reasoning"},
          {"summary", json::array()},
          {"content", json::array({{{"type", "reasoning_text"}, {"text", text}}})}};
}

json output_text_part_json(const std::string& text) {
  return {{"type", "output_text"}, {"text", text}, {"annotations", json::array()}, {"logprobs", json::array()}};
}

json message_item_json(const ResponseMeta& meta, size_t output_index, const std::string& text,
                       const std::string& status) {
  json content = status == "in_progress" ? json::array() : json::array({output_text_part_json(text)});
  return {{"id", tool_call_id("msg_", meta.id, output_index)},
          {"type", "message"},
          {"status", status},
          {"role", "assistant"},
          {"content", std::move(content)}};
}

json function_call_item_json(const ResponseMeta& meta, const ParsedToolCall& call, size_t index,
                             const std::string& status) {
  return {{"id", tool_call_id("fc_", meta.id, index)},
          {"type", "function_call"},
          {"status", status},
          {"call_id", call.id.empty() ? tool_call_id("call_", meta.id, index) : call.id},
          {"name", call.name},
          {"arguments", status == "in_progress" ? std::string() : call.arguments_json}};
}

json responses_answer_json(const ResponseMeta& meta, const json& echo, const GenerationResult& result,
                           bool parse_tool_calls, ReasoningMode reasoning, const ToolCallFormat& tool_format) {
  json output = json::array();
  std::string answer = result.text;
  std::vector<PlacedToolCall> harmony_calls;
  Usage usage = result.usage;
  if (reasoning.split) {
    SplitResult split = split_result_reasoning(result, reasoning, parse_tool_calls);
    if (split.output.had_reasoning) output.push_back(reasoning_item_json(meta, 0, split.output.reasoning));
    answer = std::move(split.output.content);
    harmony_calls = std::move(split.output.calls);
    usage.reasoning_tokens = split.reasoning_tokens;
  }
  ParsedOutput parsed;
  if (parse_tool_calls) parsed = server::parse_tool_calls(answer, harmony_calls, tool_format);
  const std::string& text = parsed.calls.empty() ? answer : parsed.content;
  if (parsed.calls.empty() || !text.empty()) output.push_back(message_item_json(meta, output.size(), text, "completed"));
  for (size_t i = 0; i < parsed.calls.size(); ++i) {
    output.push_back(function_call_item_json(meta, parsed.calls[i], i, "completed"));
  }
  return response_object_json(meta, echo, response_status(result.finish), std::move(output), responses_usage_json(usage));
}

RequestJson assistant_turn_json(const json& output) {
  RequestJson turn = {{"role", "assistant"}, {"content", nullptr}};
  std::string text, reasoning;
  bool has_text = false;
  RequestJson calls = RequestJson::array();
  for (const json& item : output) {
    const std::string type = item.value("type", "");
    if (type == "function_call") {
      calls.push_back({{"id", item.value("call_id", "")},
                       {"type", "function"},
                       {"function", {{"name", item.value("name", "")}, {"arguments", item.value("arguments", "")}}}});
      continue;
    }
    if (type != "message" && type != "reasoning") continue;
    for (const json& part : item.value("content", json::array())) {
      const std::string piece = part.value("text", "");
      if (type == "reasoning") {
        reasoning += piece;
      } else {
        text += piece;
        has_text = true;
      }
    }
  }
  if (has_text) turn["content"] = text;
  if (!reasoning.empty()) turn["reasoning_content"] = reasoning;
  if (!calls.empty()) turn["tool_calls"] = std::move(calls);
  return turn;
}

}  // namespace strata::server
