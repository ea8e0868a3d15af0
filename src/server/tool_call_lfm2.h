// Liquid AI's LFM2 / LFM2.5 tool calls, as the models write them and LFM2.5's chat template writes
// them back (render_tool_calls):
//
//   <|tool_call_start|>[get_weather(city="Paris", days=3), plan(steps=[{"go": True}])]<|tool_call_end|>
//
// a Python list of calls, each NAME(KEY=VALUE, ...) with keyword arguments only, the values
// Python literals (python_literal.h: True / None become true / null, tuples arrays), converted to
// a JSON object, keys in the order written. Whitespace and a trailing comma are allowed where
// Python allows them, and the list's brackets may be left out. A block holding a JSON array of
// {"name", "arguments"} calls is read too: llama.cpp's own LFM2 template writes the history so.
// The models write no call ids: the response gives each call an id of its own.
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server {

inline constexpr std::string_view kLfm2CallsOpener = "<|tool_call_start|>";
inline constexpr std::string_view kLfm2CallsCloser = "<|tool_call_end|>";

// The calls of one block's body (the text between the opener and the closer) appended to *out;
// false, *out untouched, when the body is anything else: no call (an empty list), a positional
// argument, a keyword given twice, a value that is not a literal (a name, a call, an unterminated
// string...), text after the list. Never throws.
bool parse_lfm2_calls(std::string_view body, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
