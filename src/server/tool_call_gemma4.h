// Gemma 4's tool calls, as the model writes them and its chat template writes them back:
//
//   <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
//
// the function's NAME after "call:", then its arguments in the template's own notation
// (format_argument): an object of KEY:VALUE pairs, the keys bare or between <|"|> marks; strings
// between <|"|> marks (taken as written: they hold no escapes); true, false, null and numbers as
// written; nested objects and lists. Converted to JSON text, keys in the order written. A value
// that is none of these (a bare word) is taken as the string it spells.
#pragma once

#include <string_view>

#include "server/tool_call_parser.h"

namespace strata::server {

inline constexpr std::string_view kGemma4CallOpener = "<|tool_call>";
inline constexpr std::string_view kGemma4CallCloser = "<tool_call|>";

// One call's body (the text between kGemma4CallOpener and kGemma4CallCloser) into *out; false,
// *out untouched, when it is anything else: no "call:", an empty name or one holding whitespace
// or markup (<>{}[],:"), arguments that are not one object (or nothing: no arguments), text after them,
// nesting deeper than 64 or more keys than a request may hold. Never throws.
bool parse_gemma4_call(std::string_view body, ParsedToolCall* out);

}  // namespace strata::server
