// Kimi K2's tool calls (Kimi-K2-Instruct, Kimi-K2-Thinking), as the model writes them and its chat
// templates write them back (testdata/kimi-k2*.jinja): a section
//
//   <|tool_calls_section_begin|>
//   <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>
//   <|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>{}<|tool_call_end|>
//   <|tool_calls_section_end|>
//
// (on one line as the templates write it; whitespace between the parts is allowed). Each call's
// header is its id, `functions.NAME:INDEX`; the function is NAME, the `functions.` prefix and the
// `:INDEX` suffix (digits) stripped, each optional. The arguments must be a JSON object; keys keep
// the model's order. As llama.cpp reads these calls, a call's `<|tool_call_end|>` may be missing
// (the next call's begin or the section's end closes it), and a call outside any section
// (`<|tool_call_begin|>...<|tool_call_end|>`) is a call too.
//
// Ids. The INDEX is the model's own count (per turn in the first K2's template, through the
// conversation in later ones) and is not passed on: clients get Strata's ids (tool_call_id():
// "call_..." / "toolu_...") as for every other model, unique across a conversation and made of
// the letters, digits, '_' and '-' that Anthropic's ids allow, which `functions.NAME:0` is not.
// The prompt does not depend on them: a tool history goes to a Kimi template with its ids
// rewritten to the template's own `functions.NAME:INDEX` form (kimi_call_ids.h).
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"

namespace strata::server {

inline constexpr std::string_view kKimiCallsOpener = "<|tool_calls_section_begin|>";
inline constexpr std::string_view kKimiCallsCloser = "<|tool_calls_section_end|>";
inline constexpr std::string_view kKimiCallBegin = "<|tool_call_begin|>";
inline constexpr std::string_view kKimiCallEnd = "<|tool_call_end|>";

// The calls of one section (the text between kKimiCallsOpener and kKimiCallsCloser) appended to
// *out in order; false, *out untouched, when the section is anything else: no call, text outside
// the calls, a call without its `<|tool_call_argument_begin|>`, a name that is empty or holds
// whitespace or '<' / '>', arguments that are not a JSON object. Never throws.
bool parse_kimi_calls(std::string_view section, std::vector<ParsedToolCall>* out);

// One call outside a section: the text between kKimiCallBegin and kKimiCallEnd. Same rules.
bool parse_kimi_lone_call(std::string_view body, std::vector<ParsedToolCall>* out);

// NAME of a call id "functions.NAME:INDEX" (either part optional), whitespace around it trimmed;
// empty when what is left is no function name (tool_call_text.h).
std::string_view kimi_function_name(std::string_view call_id);

}  // namespace strata::server
