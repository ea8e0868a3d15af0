// Parsing of Anthropic Messages request bodies (POST /v1/messages) into a CompletionRequest.
//
// Stateless; thread-safe. "max_tokens" is required, as in Anthropic's API. "system" (a string or
// text blocks) becomes a leading system turn. Only text content blocks are accepted; tools,
// images and documents are rejected with kUnsupported naming the block.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/completion_request.h"

namespace strata::server {

Result<CompletionRequest> parse_anthropic_messages_request(const nlohmann::json& body);

}  // namespace strata::server
