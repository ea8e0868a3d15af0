// The body of a GLM-4.5 / GLM-4.6 tool call, as the model writes it between `<tool_call>` and
// `</tool_call>` (the format the chat template teaches, testdata/glm-4.6.jinja):
//
//   get_weather
//   <arg_key>city</arg_key>
//   <arg_value>Beijing</arg_value>
//   <arg_key>days</arg_key>
//   <arg_value>3</arg_value>
//
// The template writes string arguments raw and any other value as JSON, so a value that parses
// as JSON once surrounding whitespace is trimmed (number, true/false, null, object, array, or a
// quoted string) is that JSON value, and any other value is the string exactly as written
// (llama.cpp's GLM-4.5 parser reads values the same way). Keys keep the order they came in; a key
// given twice keeps its last value.
#pragma once

#include <string_view>

#include "server/tool_call_parser.h"

namespace strata::server {

// True and *out filled when body is a function name (non-empty, no whitespace or '<' inside,
// whitespace around it allowed) followed by nothing but key/value pairs and whitespace; false
// otherwise, *out untouched. Never throws.
bool parse_arg_tag_call(std::string_view body, ParsedToolCall* out);

}  // namespace strata::server
