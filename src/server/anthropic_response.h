// JSON bodies of Anthropic Messages responses and of its stream's named events
// (message_start, content_block_start, ping, content_block_delta, content_block_stop,
// message_delta, message_stop).
//
// A message and its tool_use inputs are nlohmann::ordered_json: members in the order written here
// (Anthropic's), a tool's input in the order the model wrote its arguments (a forced call: the
// schema's order). The stream's events are nlohmann::json (their inputs travel as text).
//
// Pure functions; thread-safe. Usage follows Anthropic's split: input_tokens counts prompt
// tokens read afresh, cache_read_input_tokens those served from the prefix cache / park store.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "server/generation_result.h"
#include "server/openai_response.h"
#include "server/tool_call_parser.h"

namespace strata::server {

// "tool_use" (when tool_use), "max_tokens", "stop_sequence" (when stop_sequence is non-empty)
// or "end_turn".
const char* anthropic_stop_reason(FinishReason finish, const std::string& stop_sequence,
                                  bool tool_use = false);

nlohmann::json anthropic_usage_json(const Usage& usage);

// parse_tool_calls: the request offered tools, so tool calls in the output (tool_call_parser.h)
// become tool_use blocks after the text around them (a text block only when there is text),
// with stop_reason "tool_use". With reasoning.split, a reasoning block comes first as
// {"type": "thinking", "thinking", "signature": ""} (tool calls are looked for after it; a harmony
// reply's calls come from the split already parsed). tool_format: how the model writes its calls
// (and the offered tools' parameter types).
nlohmann::ordered_json anthropic_message_json(const ResponseMeta& meta, const GenerationResult& result,
                                              const std::string& stop_sequence,
                                              bool parse_tool_calls = false, ReasoningMode reasoning = {},
                                              const ToolCallFormat& tool_format = {});
// A call's tool_use input: its arguments object, or for raw arguments (not a JSON object; see
// ParsedToolCall) {"INVALID_JSON": the model's text}, the wrapping Anthropic's tool-use docs
// suggest for invalid JSON, since input must be an object.
nlohmann::ordered_json anthropic_tool_input(const ParsedToolCall& call);
// {"type": "tool_use", "id": "toolu_...", "name", "input"}; input is {} in stream starts
// (the arguments follow as input_json_delta). The id is the one the model wrote when it wrote one.
nlohmann::ordered_json tool_use_block_json(const ResponseMeta& meta, const ParsedToolCall& call,
                                           size_t call_index, bool with_input);

// Stream events; each is sent as "event: <type>" with this JSON as data.
nlohmann::json message_start_event(const ResponseMeta& meta, int prompt_tokens);
// index: the content block's place in the message.
nlohmann::json content_block_start_event(size_t index = 0);
nlohmann::json tool_use_block_start_event(size_t index, nlohmann::json block);
nlohmann::json ping_event();
nlohmann::json text_delta_event(const std::string& text, size_t index = 0);
// A thinking block's start ({"type": "thinking", "thinking": "", "signature": ""}) and its
// thinking_delta events.
nlohmann::json thinking_block_start_event(size_t index);
nlohmann::json thinking_delta_event(const std::string& thinking, size_t index);
nlohmann::json input_json_delta_event(const std::string& partial_json, size_t index);
nlohmann::json content_block_stop_event(size_t index = 0);
nlohmann::json message_delta_event(FinishReason finish, const std::string& stop_sequence,
                                   const Usage& usage, bool tool_use = false);
nlohmann::json message_stop_event();

}  // namespace strata::server
