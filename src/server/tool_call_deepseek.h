// DeepSeek's tool calls, as the model writes them between `<｜tool▁calls▁begin｜>` and
// `<｜tool▁calls▁end｜>` (the form its chat templates write back: testdata/deepseek-r1.jinja and
// testdata/deepseek-v3.1.jinja). The section holds one or more calls, each
// `<｜tool▁call▁begin｜>BODY<｜tool▁call▁end｜>`, whitespace around them allowed; the body is, by
// family (tool_call_syntax.h):
//
//   V3, R1 (kDeepSeekR1):   function<｜tool▁sep｜>get_weather
//                           ```json
//                           {"city": "Paris"}
//                           ```
//   V3.1 (kDeepSeekV31):    get_weather<｜tool▁sep｜>{"city": "Paris"}
//
// The arguments must be a JSON object; keys keep the model's order. As llama.cpp reads these
// calls, whitespace around the parts is allowed, the closing fence may follow the JSON without
// a newline, and a call may lack its `<｜tool▁call▁begin｜>`. The ASCII spellings of the section
// opener that R1's distilled models write (kDeepSeekCallsOpeners) open it too.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"
#include "server/tool_call_syntax.h"

namespace strata::server {

// What opens a section of calls: DeepSeek's token, then the spellings llama.cpp also takes.
inline constexpr std::array<std::string_view, 5> kDeepSeekCallsOpeners = {
    "<｜tool▁calls▁begin｜>", "<｜tool_calls_begin｜>", "<｜tool calls begin｜>", "<｜tool\\_calls\\_begin｜>",
    "<｜tool▁calls｜>"};
inline constexpr std::string_view kDeepSeekCallsCloser = "<｜tool▁calls▁end｜>";

// True when syntax is one of DeepSeek's (its outputs hold sections of calls).
bool is_deepseek_syntax(ToolCallSyntax syntax);

// The calls of one section (the text between an opener and kDeepSeekCallsCloser), appended to
// *out in order; false, *out untouched, when the section is anything else: no call, text
// outside the calls, a body not in syntax's form, arguments that are not a JSON object. Never
// throws.
bool parse_deepseek_calls(std::string_view section, ToolCallSyntax syntax, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
