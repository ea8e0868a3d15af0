// Tencent Hunyuan-A13B's tool calls, as its chat template's system prompt asks for them and its
// template writes them back:
//
//   <tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": ...}]</tool_calls>
//
// a JSON array of calls as Nemotron Nano 2 writes them (tool_call_nemotron.h), between tags of
// their own; the model writes the block inside its "<answer>...</answer>" wrapper, which the
// reasoning splitter leaves out of the content (kHunyuanTags, reasoning_tags.h).
#pragma once

#include <string_view>

namespace strata::server {

inline constexpr std::string_view kHunyuanCallsOpener = "<tool_calls>";
inline constexpr std::string_view kHunyuanCallsCloser = "</tool_calls>";

}  // namespace strata::server
