// Tool use written out as plain chat text, the way Hermes / Qwen chat templates write it, for
// chat formats that know nothing of tools (the ChatML fallback): the tools go into the system
// turn inside <tools></tools> with an instruction to answer with <tool_call> blocks, an
// assistant's tool calls become <tool_call> blocks in its content, and each run of tool turns
// becomes one user turn of <tool_response> blocks. The output is what ToolCallParser reads.
//
// Pure function; thread-safe.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "server/completion_request.h"

namespace strata::server {

// turns and tools as in PromptInput. The result's turns have no extra fields.
std::vector<ChatTurn> tools_as_text(const std::vector<ChatTurn>& turns, const nlohmann::json& tools);

}  // namespace strata::server
