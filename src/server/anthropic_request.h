// Parsing of Anthropic Messages request bodies (POST /v1/messages) into a CompletionRequest.
//
// Stateless; thread-safe. "max_tokens" is required, as in Anthropic's API. "system" (a string or
// text blocks) becomes a leading system turn. Content blocks may be text, tool_use, thinking and
// redacted_thinking (assistant) and tool_result (user); they map to the template fields OpenAI
// requests use (ChatTurn::extra, one "tool" turn per tool_result, before the user's text;
// thinking text as ChatTurn::reasoning, redacted thinking dropped). "tools" ({name, description,
// input_schema}) become PromptInput::tools in OpenAI's form; "tool_choice" {"type": "none"}
// withholds them and {"type": "tool", "name"} offers only that one. Images, documents and
// server tools are rejected with kUnsupported naming the block.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/completion_request.h"

namespace strata::server {

Result<CompletionRequest> parse_anthropic_messages_request(const RequestJson& body);

}  // namespace strata::server
