// Parsing of OpenAI request bodies (POST /v1/chat/completions, POST /v1/completions) into a
// CompletionRequest, with validation that names the offending field.
//
// Stateless; thread-safe. Unknown fields are ignored (clients send many); fields this server
// cannot honour (legacy functions, best_of other than n, echo, non-text content parts...) are
// rejected with kUnsupported rather than silently dropped. Chat requests take function tools, tool_choice,
// assistant tool_calls and tool messages (see CompletionRequest and ChatTurn::extra), and an
// assistant's earlier reasoning as "reasoning_content" or "reasoning" (ChatTurn::reasoning).
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/completion_request.h"

namespace strata::server {

Result<CompletionRequest> parse_chat_completion_request(const RequestJson& body);
Result<CompletionRequest> parse_text_completion_request(const RequestJson& body);

// The sampling and stopping fields both OpenAI endpoints share (temperature, top_p, top_k,
// min_p, seed, stop, penalties, logit_bias, max_tokens / max_completion_tokens, ignore_eos,
// stream, stream_options, n). Exposed for tests.
Status parse_openai_common_fields(const RequestJson& body, CompletionRequest* out);

}  // namespace strata::server
