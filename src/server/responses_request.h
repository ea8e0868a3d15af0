// Parsing of OpenAI Responses API bodies (POST /v1/responses) into a CompletionRequest.
//
// A Responses request is read as the chat completion it asks for: `instructions` become a
// system message, `input` (a string, or message, function_call, function_call_output and
// reasoning items) the messages, flat function tools the chat's tools, `text.format` the
// response_format, `reasoning.effort` the reasoning_effort, `max_output_tokens` the token limit;
// the chat parser (openai_request.h) then checks everything as it checks a chat request.
// Responses are not stored, so `previous_response_id` and `store: true` with `background` are
// refused, as are built-in tools (web search, file search, ...). Unknown fields are ignored.
//
// Stateless; thread-safe.
#pragma once

#include "base/status.h"
#include "server/completion_request.h"
#include "server/request_json.h"

namespace strata::server {

// The request as parsed, and what the answer repeats back (OpenAI's response object echoes the
// request's instructions, tools, sampling and limits).
struct ResponsesRequest {
  CompletionRequest completion;
  RequestJson echo;  // {"instructions", "max_output_tokens", "temperature", "top_p", "tools", "tool_choice", ...}
};

Result<ResponsesRequest> parse_responses_request(const RequestJson& body);

// The chat completion body a Responses body asks for (exposed for tests).
Result<RequestJson> responses_to_chat_body(const RequestJson& body);

}  // namespace strata::server
