// JSON of OpenAI Responses API answers: the response object, its output items (reasoning,
// message, function_call) and usage, for the answer and for the stream's events.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "server/generation_result.h"
#include "server/model_text.h"
#include "server/openai_response.h"
#include "server/reasoning_splitter.h"
#include "server/request_json.h"
#include "server/tool_call_parser.h"

namespace strata::server {

// {"input_tokens", "input_tokens_details": {"cached_tokens"}, "output_tokens",
//  "output_tokens_details": {"reasoning_tokens"}, "total_tokens"}
nlohmann::json responses_usage_json(const Usage& usage);

// The response object. status: "in_progress", "completed", "incomplete" (the output reached
// max_output_tokens or the context) or "failed"; echo: ResponsesRequest::echo; output: the items;
// usage null until the end; error null unless failed.
nlohmann::json response_object_json(const ResponseMeta& meta, const nlohmann::json& echo, const std::string& status,
                                    nlohmann::json output, nlohmann::json usage, nlohmann::json error = nullptr);
// "completed", or "incomplete" when generation stopped at its token limit.
const char* response_status(FinishReason finish);

// Output items; output_index: the item's place in the output. Ids take the random part of the
// response id (tool_call_id()) and the item's place.
nlohmann::json reasoning_item_json(const ResponseMeta& meta, size_t output_index, const std::string& text);
nlohmann::json message_item_json(const ResponseMeta& meta, size_t output_index, const std::string& text,
                                 const std::string& status);
nlohmann::json output_text_part_json(const std::string& text);
// The index-th call of the response; its call_id is the one the model wrote, else made up.
nlohmann::json function_call_item_json(const ResponseMeta& meta, const ParsedToolCall& call, size_t index,
                                       const std::string& status);

// The whole answer of a finished generation (non-streamed). parse_tool_calls: function tools
// were offered; reasoning: how the model's reasoning is told apart (reasoning_splitter.h).
nlohmann::json responses_answer_json(const ResponseMeta& meta, const nlohmann::json& echo, const GenerationResult& result,
                                     bool parse_tool_calls, ReasoningMode reasoning, const ToolCallFormat& tool_format);

// An answer's output items as the chat assistant turn a later request continues from
// (previous_response_id): its messages' text as content (null when none), its function calls as
// tool_calls, its reasoning as reasoning_content.
RequestJson assistant_turn_json(const nlohmann::json& output);

}  // namespace strata::server
