// JSON bodies of OpenAI responses: chat.completion, text_completion, their stream chunks,
// usage and logprobs objects.
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/generation_result.h"
#include "server/model_text.h"
#include "server/reasoning_splitter.h"
#include "server/tool_call_parser.h"

namespace strata::server {

// What every response and chunk of one request repeats.
struct ResponseMeta {
  std::string id;        // "chatcmpl-..." / "cmpl-..." / "msg_..."
  int64_t created = 0;   // unix seconds
  std::string model;     // the served model name
};

// "stop" or "length" (an aborted or failed request never gets a finish reason).
const char* openai_finish_reason(FinishReason finish);

// {"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details": {"cached_tokens"},
//  "completion_tokens_details": {"reasoning_tokens"}}
nlohmann::json openai_usage_json(const Usage& usage);

// Chat form: {"content": [{"token", "logprob", "bytes", "top_logprobs": [...]}]}
nlohmann::json chat_logprobs_json(const std::vector<TokenLogprobs>& tokens, const ModelText& text);
// Completions form: {"tokens", "token_logprobs", "top_logprobs": [{piece: logprob}], "text_offset"}
// text_offset counts bytes from the start of the generated text, starting at first_offset.
nlohmann::json text_logprobs_json(const std::vector<TokenLogprobs>& tokens, const ModelText& text,
                                  size_t first_offset);

// The usage of an answer with several choices (OpenAI's n): the prompt counted once, the
// completion and reasoning tokens of every choice added up, and as cached the fewest prompt
// tokens any choice took from cache. One choice's usage is its own.
Usage choices_usage(const std::vector<Usage>& choices);

// How a chat answer's text is read. parse_tool_calls: the request offered tools, so tool calls
// in the output (tool_call_parser.h) become message.tool_calls, content the text around them
// (null when none) and finish_reason "tool_calls". With reasoning.split, a reasoning block goes
// to message.reasoning_content (tool calls are looked for in the content only; a harmony reply's
// calls come from the split already parsed) and usage counts its tokens. tool_format: how the
// model writes its calls (and the offered tools' parameter types).
struct ChatAnswerOptions {
  bool logprobs = false;
  bool parse_tool_calls = false;
  ReasoningMode reasoning;
  ToolCallFormat tool_format;
};

// A chat.completion with one choice per result (index = its place), usage by choices_usage().
nlohmann::json chat_completion_json(const ResponseMeta& meta, const std::vector<GenerationResult>& results,
                                    const ChatAnswerOptions& options, const ModelText& text);
// The same for one result.
nlohmann::json chat_completion_json(const ResponseMeta& meta, const GenerationResult& result,
                                    bool with_logprobs, const ModelText& text,
                                    bool parse_tool_calls = false, ReasoningMode reasoning = {},
                                    const ToolCallFormat& tool_format = {});
// One entry of message.tool_calls of choice `choice` (index: its place in the choice). Its id is
// the one the model wrote (ParsedToolCall::id), else tool_call_id("call_", ...), unique across
// the response's choices. With with_index (stream deltas) it carries "index" too.
nlohmann::json openai_tool_call_json(const ResponseMeta& meta, const ParsedToolCall& call, int choice,
                                     size_t index, bool with_index);
// A text_completion with one choice per result, usage by choices_usage().
nlohmann::json text_completion_json(const ResponseMeta& meta, const std::vector<GenerationResult>& results,
                                    bool with_logprobs, const ModelText& text);
nlohmann::json text_completion_json(const ResponseMeta& meta, const GenerationResult& result,
                                    bool with_logprobs, const ModelText& text);

// One chat.completion.chunk with a single choice (choice_index: its "index"). logprobs and
// finish may be null.
nlohmann::json chat_chunk_json(const ResponseMeta& meta, int choice_index, nlohmann::json delta,
                               nlohmann::json logprobs, const char* finish);
// The usage-only chunk sent last when stream_options.include_usage is set (empty choices).
nlohmann::json chat_usage_chunk_json(const ResponseMeta& meta, const Usage& usage);
// One text_completion stream chunk. logprobs and finish may be null.
nlohmann::json text_chunk_json(const ResponseMeta& meta, int choice_index, const std::string& text,
                               nlohmann::json logprobs, const char* finish);
nlohmann::json text_usage_chunk_json(const ResponseMeta& meta, const Usage& usage);

}  // namespace strata::server
