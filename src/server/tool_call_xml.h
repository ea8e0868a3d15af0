// Qwen3-Coder's tool calls (Qwen3.5's and Qwen3.6's too), as the model writes them inside a
// `<tool_call>` block (the form their chat templates teach and write back:
// src/chat/testdata/qwen3-coder.jinja, qwen3.5.jinja):
//
//   <function=get_weather>
//   <parameter=city>
//   Paris
//   </parameter>
//   <parameter=days>
//   3
//   </parameter>
//   </function>
//
// A value is the text between `<parameter=KEY>` and the first `</parameter>` after it, less one
// newline right after the opening tag and one right before the closing tag (the ones the template
// writes there): every other byte, newlines and '<' included, is the value's. Values are bare
// text whatever their type; each becomes the JSON value its tool's schema types it
// (ToolParamTypes::typed_argument: a string unless the schema says otherwise). Whitespace between
// the tags is allowed; keys keep the model's order, and a key given twice keeps its last value.
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"
#include "server/tool_param_types.h"

namespace strata::server {

// What opens and closes one function (the parser also takes a function outside a <tool_call>
// block as a block of its own, as vLLM reads these models' output).
inline constexpr std::string_view kXmlFunctionOpener = "<function=";
inline constexpr std::string_view kXmlFunctionCloser = "</function>";
// Seed-OSS writes the same functions in blocks of its own tag instead of <tool_call>.
inline constexpr std::string_view kSeedCallOpener = "<seed:tool_call>";
inline constexpr std::string_view kSeedCallCloser = "</seed:tool_call>";

// The calls of a body that is one or more functions with only whitespace around them, appended
// to *out in order; false, *out untouched, when the body is anything else: no function, text
// outside the functions, a function never closed, a name with whitespace or '<' in it, a tag
// other than a parameter inside a function. Never throws.
bool parse_xml_function_calls(std::string_view body, const ToolParamTypes& types, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
