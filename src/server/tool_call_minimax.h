// MiniMax-M2's tool calls (M2.1's and M2.5's too), as MiniMax's tool-calling guide documents them
// and the model writes them: `<minimax:tool_call>` blocks, each holding one or more invokes.
//
//   <minimax:tool_call>
//   <invoke name="get_weather">
//   <parameter name="location">San Francisco, CA</parameter>
//   <parameter name="days">3</parameter>
//   </invoke>
//   </minimax:tool_call>
//
// A name (an invoke's or a parameter's) is the text between `name=` and the next '>', less the
// whitespace around it and then one pair of matching quotes ("..." or '...') around it, as
// MiniMax's own parser reads it. An invoke's name must then be non-empty with no whitespace,
// quote or '<' in it; a parameter's non-empty with no line break, quote or '<' in it.
// A value is the text between its opening tag and the first `</parameter>` after it, less its
// leading and trailing whitespace (space, tab, CR, LF, VT, FF: what MiniMax's parser and vLLM's
// strip); newlines and '<' inside it are the value's. Values are bare text whatever their type;
// each becomes the JSON value its tool's schema types it (ToolParamTypes::typed_argument, as for
// Qwen3-Coder's calls: a string unless the schema says otherwise). Whitespace between the tags
// is allowed; keys keep the model's order, and a key given twice keeps its last value.
#pragma once

#include <string_view>
#include <vector>

#include "server/tool_call_parser.h"
#include "server/tool_param_types.h"

namespace strata::server {

// What opens and closes a block of MiniMax-M2 calls.
inline constexpr std::string_view kMiniMaxCallsOpener = "<minimax:tool_call>";
inline constexpr std::string_view kMiniMaxCallsCloser = "</minimax:tool_call>";

// The calls of a block's body (the text between its opener and closer) that is one or more
// invokes with only whitespace around them, appended to *out in order; false, *out untouched,
// when the body is anything else: no invoke, text outside the invokes, an invoke or parameter
// never closed, a name that breaks the rules above, a tag other than a parameter inside an
// invoke. Never throws.
bool parse_minimax_invokes(std::string_view body, const ToolParamTypes& types, std::vector<ParsedToolCall>* out);

}  // namespace strata::server
