// Tool use written out as plain chat text, the way Hermes / Qwen chat templates write it, for
// chat formats that know nothing of tools (the ChatML fallback): the tools go into the system
// turn inside <tools></tools> with an instruction to answer with <tool_call> blocks, an
// assistant's tool calls become <tool_call> blocks in its content, and each run of tool turns
// becomes one user turn of <tool_response> blocks. The output is what ToolCallParser reads.
//
// Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/completion_request.h"

namespace strata::server {

// turns and tools as in PromptInput. The result's turns have no extra fields.
std::vector<ChatTurn> tools_as_text(const std::vector<ChatTurn>& turns, const RequestJson& tools);

// For a template that leaves its `tools` out (DeepSeek-R1's, V3.1's), the tools as llama.cpp's
// minja writes them for such templates: "You can call any of the following tools to satisfy the
// user's requests: " and the tools as JSON indented by 2, then, when call_example is not empty,
// "\n\nExample tool call syntax:\n\n", the example and "\n\n". The text ends the first turn when
// that is a system turn (after "\n\n"), else becomes a system turn of its own in front. Turns are
// returned unchanged when tools is not a non-empty array.
std::vector<ChatTurn> tools_in_system_turn(const std::vector<ChatTurn>& turns, const RequestJson& tools,
                                           const std::string& call_example);

}  // namespace strata::server
