// Output constraints from API fields: the grammar a request's output must follow, compiled on
// the HTTP thread and handed to the engine as GenerateRequest::constraint.
//
//  - OpenAI response_format: {"type": "text"} (none), {"type": "json_object"} (any JSON
//    object), {"type": "json_schema", "json_schema": {"name", "schema", "strict"}} (a document
//    valid under the schema, grammar/json_schema.h; enforced whether or not strict is set);
//  - "grammar": GBNF text (llama.cpp's field, grammar/gbnf_parser.h), on Anthropic's Messages
//    endpoint too;
//  - forced tool calls (OpenAI tool_choice "required" or a named function, Anthropic
//    {"type": "any"} or {"type": "tool", "name"}): exactly one call written as the Hermes
//    block the tool-call parser reads, `<tool_call>\n{"name": "<name>", "arguments": <args>}\n
//    </tool_call>`, with the arguments valid under the tool's parameters schema.
//
// Errors (kInvalidArgument) name the field and what is wrong with it. Stateless; thread-safe.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "server/completion_request.h"

namespace strata::server {

// Reads response_format and grammar from a body into out->generate.constraint.
Status parse_openai_output_format(const RequestJson& body, CompletionRequest* out);

// Constrains the output to one call of one of tools (OpenAI form:
// [{"type": "function", "function": {"name", "parameters"}}]).
Status force_tool_call(const RequestJson& tools, CompletionRequest* out);

// The grammar for one call of one of tools, as GBNF text. Exposed for tests.
Result<std::string> tool_call_gbnf(const RequestJson& tools);

}  // namespace strata::server
