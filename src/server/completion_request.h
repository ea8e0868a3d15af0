// CompletionRequest: one generation request as parsed from any of the APIs (OpenAI chat,
// OpenAI completions, Anthropic messages), before its prompt is rendered and tokenized.
//
// Plain value type. Invariants after a successful parse: prompt.kind matches the filled
// member; max_tokens is -1 (use the rest of the context) or >= 1; sampling fields are in range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine_types.h"
#include "server/request_json.h"
#include "server/reasoning_tags.h"
#include "server/tool_call_syntax.h"

namespace strata::server {

// One chat message with its content flattened to text ("system", "user", "assistant" or
// "tool"). extra: the tool fields the chat template sees, as in Hugging Face chat messages:
// an assistant's "tool_calls" ([{"id", "type": "function", "function": {"name", "arguments"}}],
// arguments an object when it parses as one), a tool turn's "tool_call_id" and "name". Null
// when the turn has none. reasoning: an assistant turn's earlier reasoning as the client sent it
// back (OpenAI reasoning_content / reasoning, Anthropic thinking blocks); unset when it sent none.
// Every object the client sent (tools, schemas, arguments, chat_template_kwargs) keeps its keys
// in the client's order (RequestJson), which is the order the chat template sees.
// The template sees it under the names templates read (engine_model.h, chat_input()).
struct ChatTurn {
  std::string role;
  std::string content;
  RequestJson extra;
  std::optional<std::string> reasoning = std::nullopt;
};

struct PromptInput {
  enum class Kind { kChat, kText, kTokens };
  Kind kind = Kind::kText;
  std::vector<ChatTurn> messages;  // kChat
  // kChat: the tools offered to the model, in OpenAI's form
  // ([{"type": "function", "function": {"name", "description", "parameters"}}]); null for none.
  RequestJson tools;
  // kChat: further chat-template variables (OpenAI's chat_template_kwargs, Anthropic's thinking
  // as enable_thinking): a JSON object, or null for none.
  RequestJson template_kwargs;
  std::string text;                // kText
  std::vector<int32_t> tokens;     // kTokens: ids sent by the client, used as they are
};

struct CompletionRequest {
  PromptInput prompt;
  // Everything but prompt_tokens and max_tokens, which the prompt builder fills in.
  GenerateRequest generate;
  int max_tokens = -1;       // -1: until the context is full
  int n_choices = 1;         // OpenAI's n: answers generated for the prompt (1..128)
  bool seed_given = false;   // false: the server picks a fresh seed
  bool stream = false;
  bool include_usage = false;  // OpenAI stream_options.include_usage
  bool parse_tool_calls = false;  // tools were offered: look for tool calls in the output
  // Set by the route: how the served model writes its tool calls (ModelText::tool_call_syntax())
  // with the parameter types of prompt.tools.
  ToolCallFormat tool_format;
  std::string model;           // as sent; informational only (one model is served)
  // Set by the route, not the parsers: the model's reasoning ("<think>...</think>", "[THINK]...", or harmony's
  // analysis channel) is answered apart from its content (reasoning_splitter.h);
  // reasoning_starts_open: the prompt itself opened the reasoning block; reasoning_harmony: the
  // model writes harmony channels (gpt-oss).
  bool split_reasoning = false;
  bool reasoning_starts_open = false;
  bool reasoning_starts_closed = false;  // the prompt ended with "</think>" (thinking switched off)
  bool reasoning_harmony = false;
  ReasoningTags reasoning_tags;  // the model's tags (ModelText::reasoning_tags())
  bool reasoning_calls_end = false;  // Kimi K2's call markup ends the reasoning (ReasoningMode)
};

}  // namespace strata::server
