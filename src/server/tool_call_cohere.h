// Cohere's tool calls (Command R7B, Command A, North), as the models write them and their chat
// templates write them back:
//
//   <|START_ACTION|>[
//       {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}
//   ]<|END_ACTION|>
//
// a JSON array of calls, each naming its tool (tool_name) with its arguments (parameters: an
// object, or a string holding one; absent or null: none). The tool_call_id the model writes is the
// call's index in the conversation, which the templates renumber from the order of the calls
// (regen_tool_call_ids), so it is not kept: the response gives each call an id of its own, unique
// as clients expect ids to be.
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server {

inline constexpr std::string_view kCohereActionOpener = "<|START_ACTION|>";
inline constexpr std::string_view kCohereActionCloser = "<|END_ACTION|>";

// The calls of one action's body (the text between the opener and the closer) appended to *out;
// false, *out untouched, when the body is anything else: not JSON, not a non-empty array of
// objects, a call without a non-empty tool_name string, parameters neither an object, a string
// nor null. Never throws.
bool parse_cohere_action(std::string_view body, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
