// NVIDIA Nemotron Nano 2's tool calls (Nemotron-H 9B / 12B v2), as the model writes them and its
// chat template writes them back:
//
//   <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": ...}]</TOOLCALL>
//
// a JSON array of calls, each naming its tool (name) with its arguments (an object, or a string
// holding one; absent or null: none). The model writes no call ids: the response gives each call
// an id of its own.
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server {

inline constexpr std::string_view kNemotronCallsOpener = "<TOOLCALL>";
inline constexpr std::string_view kNemotronCallsCloser = "</TOOLCALL>";

// The calls of one block's body (the text between the opener and the closer) appended to *out;
// false, *out untouched, when the body is anything else: not JSON, not a non-empty array of
// objects, a call without a non-empty name string, arguments neither an object, a string nor
// null. Never throws.
bool parse_nemotron_calls(std::string_view body, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
