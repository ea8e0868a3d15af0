#include "server/openai_response.h"

#include <algorithm>

namespace strata::server {

using nlohmann::json;

namespace {

json byte_array(const std::string& piece) {
  json bytes = json::array();
  for (unsigned char c : piece) bytes.push_back(static_cast<int>(c));
  return bytes;
}

json finish_value(const char* finish) { return finish ? json(finish) : json(nullptr); }

}  // namespace

const char* openai_finish_reason(FinishReason finish) {
  return finish == FinishReason::kLength ? "length" : "stop";
}

json openai_usage_json(const Usage& usage) {
  return {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", usage.cached_tokens}}},
          {"completion_tokens_details", {{"reasoning_tokens", usage.reasoning_tokens}}}};
}

json chat_logprobs_json(const std::vector<TokenLogprobs>& tokens, const ModelText& text) {
  json content = json::array();
  for (const TokenLogprobs& t : tokens) {
    std::string piece = text.token_piece(t.token);
    json top = json::array();
    for (const TopLogprob& alt : t.top) {
      std::string alt_piece = text.token_piece(alt.token);
      top.push_back({{"token", alt_piece}, {"logprob", alt.logprob}, {"bytes", byte_array(alt_piece)}});
    }
    content.push_back(
        {{"token", piece}, {"logprob", t.logprob}, {"bytes", byte_array(piece)}, {"top_logprobs", top}});
  }
  return {{"content", content}};
}

json text_logprobs_json(const std::vector<TokenLogprobs>& tokens, const ModelText& text,
                        size_t first_offset) {
  json pieces = json::array(), logprobs = json::array(), tops = json::array(),
       offsets = json::array();
  size_t offset = first_offset;
  for (const TokenLogprobs& t : tokens) {
    std::string piece = text.token_piece(t.token);
    pieces.push_back(piece);
    logprobs.push_back(t.logprob);
    json top = json::object();
    for (const TopLogprob& alt : t.top) top[text.token_piece(alt.token)] = alt.logprob;
    tops.push_back(top);
    offsets.push_back(offset);
    offset += piece.size();
  }
  return {{"tokens", pieces}, {"token_logprobs", logprobs}, {"top_logprobs", tops},
          {"text_offset", offsets}};
}

json openai_tool_call_json(const ResponseMeta& meta, const ParsedToolCall& call, int choice, size_t index,
                           bool with_index) {
  // Choice 0's ids read as they did before n > 1 existed; the others name their choice.
  const std::string response_id = choice == 0 ? meta.id : meta.id + "c" + std::to_string(choice);
  json out = {{"id", call.id.empty() ? tool_call_id("call_", response_id, index) : call.id},
              {"type", "function"},
              {"function", {{"name", call.name}, {"arguments", call.arguments_json}}}};
  if (with_index) out["index"] = index;
  return out;
}

Usage choices_usage(const std::vector<Usage>& choices) {
  Usage total = choices.empty() ? Usage{} : choices.front();
  for (size_t c = 1; c < choices.size(); ++c) {
    total.cached_tokens = std::min(total.cached_tokens, choices[c].cached_tokens);
    total.completion_tokens += choices[c].completion_tokens;
    total.reasoning_tokens += choices[c].reasoning_tokens;
  }
  return total;
}

namespace {

// One entry of a chat.completion's choices; *usage gets the choice's usage with its reasoning tokens.
json chat_choice_json(const ResponseMeta& meta, const GenerationResult& result, int index, const ChatAnswerOptions& o,
                      const ModelText& text, Usage* usage) {
  std::string content = result.text;
  std::vector<PlacedToolCall> harmony_calls;
  *usage = result.usage;
  json reasoning_content = nullptr;
  if (o.reasoning.split) {
    SplitResult split = split_result_reasoning(result, o.reasoning, o.parse_tool_calls);
    if (split.output.had_reasoning) reasoning_content = std::move(split.output.reasoning);
    content = std::move(split.output.content);
    harmony_calls = std::move(split.output.calls);
    usage->reasoning_tokens = split.reasoning_tokens;
  }
  json message = {{"role", "assistant"}, {"content", content}};
  if (!reasoning_content.is_null()) message["reasoning_content"] = std::move(reasoning_content);
  const char* finish = openai_finish_reason(result.finish);
  if (o.parse_tool_calls) {
    ParsedOutput parsed = server::parse_tool_calls(content, harmony_calls, o.tool_format);
    if (!parsed.calls.empty()) {
      message["content"] = parsed.content.empty() ? json(nullptr) : json(parsed.content);
      json calls = json::array();
      for (size_t i = 0; i < parsed.calls.size(); ++i) {
        calls.push_back(openai_tool_call_json(meta, parsed.calls[i], index, i, /*with_index=*/false));
      }
      message["tool_calls"] = std::move(calls);
      finish = "tool_calls";
    }
  }
  return {{"index", index},
          {"message", std::move(message)},
          {"logprobs", o.logprobs ? chat_logprobs_json(result.logprobs, text) : json()},
          {"finish_reason", finish}};
}

}  // namespace

json chat_completion_json(const ResponseMeta& meta, const std::vector<GenerationResult>& results,
                          const ChatAnswerOptions& options, const ModelText& text) {
  json choices = json::array();
  std::vector<Usage> usages(results.size());
  for (size_t c = 0; c < results.size(); ++c) {
    choices.push_back(chat_choice_json(meta, results[c], static_cast<int>(c), options, text, &usages[c]));
  }
  return {{"id", meta.id},           {"object", "chat.completion"},
          {"created", meta.created}, {"model", meta.model},
          {"choices", std::move(choices)}, {"usage", openai_usage_json(choices_usage(usages))}};
}

json chat_completion_json(const ResponseMeta& meta, const GenerationResult& result,
                          bool with_logprobs, const ModelText& text, bool parse_tool_calls,
                          ReasoningMode reasoning, const ToolCallFormat& tool_format) {
  return chat_completion_json(meta, std::vector<GenerationResult>{result},
                              ChatAnswerOptions{with_logprobs, parse_tool_calls, reasoning, tool_format}, text);
}

json text_completion_json(const ResponseMeta& meta, const std::vector<GenerationResult>& results,
                          bool with_logprobs, const ModelText& text) {
  json choices = json::array();
  std::vector<Usage> usages;
  for (size_t c = 0; c < results.size(); ++c) {
    const GenerationResult& result = results[c];
    choices.push_back({{"index", c},
                       {"text", result.text},
                       {"logprobs", with_logprobs ? text_logprobs_json(result.logprobs, text, 0) : json()},
                       {"finish_reason", openai_finish_reason(result.finish)}});
    usages.push_back(result.usage);
  }
  return {{"id", meta.id},           {"object", "text_completion"},
          {"created", meta.created}, {"model", meta.model},
          {"choices", std::move(choices)}, {"usage", openai_usage_json(choices_usage(usages))}};
}

json text_completion_json(const ResponseMeta& meta, const GenerationResult& result,
                          bool with_logprobs, const ModelText& text) {
  return text_completion_json(meta, std::vector<GenerationResult>{result}, with_logprobs, text);
}

json chat_chunk_json(const ResponseMeta& meta, int choice_index, json delta, json logprobs, const char* finish) {
  json choice = {{"index", choice_index}, {"delta", std::move(delta)}, {"logprobs", std::move(logprobs)},
                 {"finish_reason", finish_value(finish)}};
  return {{"id", meta.id},           {"object", "chat.completion.chunk"},
          {"created", meta.created}, {"model", meta.model},
          {"choices", json::array({choice})}};
}

json chat_usage_chunk_json(const ResponseMeta& meta, const Usage& usage) {
  return {{"id", meta.id},           {"object", "chat.completion.chunk"},
          {"created", meta.created}, {"model", meta.model},
          {"choices", json::array()}, {"usage", openai_usage_json(usage)}};
}

json text_chunk_json(const ResponseMeta& meta, int choice_index, const std::string& text, json logprobs,
                     const char* finish) {
  json choice = {{"index", choice_index}, {"text", text}, {"logprobs", std::move(logprobs)},
                 {"finish_reason", finish_value(finish)}};
  return {{"id", meta.id},           {"object", "text_completion"},
          {"created", meta.created}, {"model", meta.model},
          {"choices", json::array({choice})}};
}

json text_usage_chunk_json(const ResponseMeta& meta, const Usage& usage) {
  return {{"id", meta.id},           {"object", "text_completion"},
          {"created", meta.created}, {"model", meta.model},
          {"choices", json::array()}, {"usage", openai_usage_json(usage)}};
}

}  // namespace strata::server
