// Parsing of OpenAI Responses API bodies (POST /v1/responses) into a CompletionRequest.
//
// A Responses request is read as the chat completion it asks for: `instructions` become a
// system message, `input` (a string, or message, function_call, function_call_output and
// reasoning items) the messages, flat function tools the chat's tools, `text.format` the
// response_format, `reasoning.effort` the reasoning_effort, `max_output_tokens` the token limit;
// the chat parser (openai_request.h) then checks everything as it checks a chat request.
// `previous_response_id` continues a stored conversation (ResponseStore): its turns come after
// the instructions and before the input. `background` and `conversation` objects are refused, as
// are built-in tools (web search, file search, ...). Unknown fields are ignored.
//
// Stateless; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/status.h"
#include "server/completion_request.h"
#include "server/request_json.h"

namespace strata::server {

// The request as parsed, and what the answer repeats back (OpenAI's response object echoes the
// request's instructions, tools, sampling and limits).
struct ResponsesRequest {
  CompletionRequest completion;
  // {"instructions", "max_output_tokens", "temperature", "top_p", "tools", "tool_choice", ...}, as
  // the answer writes them (nlohmann::json, like every response body).
  nlohmann::json echo;
  // The conversation so far as chat messages, without the instructions: the continued
  // response's turns, then the input's. The answer's turn is added to it when it is stored.
  RequestJson conversation = RequestJson::array();
  // The request's input as Responses items (GET /v1/responses/{id}/input_items): a string input
  // as a user message, messages with their content as parts (input_text, or output_text for the
  // assistant's), other items as sent; ids are given when the answer is stored (name_input_items).
  nlohmann::json input_items = nlohmann::json::array();
  bool store = true;  // "store": keep the answer for a later previous_response_id
};

// The stored conversation of a response id, or nullopt when none is kept under it.
using PreviousLookup = std::function<std::optional<RequestJson>(const std::string& response_id)>;

// Gives each input item without an id one ("msg_<n>_<response id>" for messages, "item_..."
// otherwise, n its index), so a list of them can be paged by id.
nlohmann::json name_input_items(nlohmann::json items, const std::string& response_id);

// previous: looks up previous_response_id (an id it does not know is a kNotFound naming it).
Result<ResponsesRequest> parse_responses_request(const RequestJson& body, const PreviousLookup& previous = {});

// The chat completion body a Responses body asks for (exposed for tests); *conversation gets its
// messages without the instructions. previous_messages: the continued conversation's turns.
Result<RequestJson> responses_to_chat_body(const RequestJson& body, const RequestJson& previous_messages = RequestJson::array(),
                                           RequestJson* conversation = nullptr);

}  // namespace strata::server
