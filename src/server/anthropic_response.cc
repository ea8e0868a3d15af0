#include "server/anthropic_response.h"

namespace strata::server {

using nlohmann::json;

namespace {

json stop_sequence_value(const std::string& stop_sequence) {
  return stop_sequence.empty() ? json(nullptr) : json(stop_sequence);
}

}  // namespace

const char* anthropic_stop_reason(FinishReason finish, const std::string& stop_sequence) {
  if (finish == FinishReason::kLength) return "max_tokens";
  return stop_sequence.empty() ? "end_turn" : "stop_sequence";
}

json anthropic_usage_json(const Usage& usage) {
  return {{"input_tokens", usage.prompt_tokens - usage.cached_tokens},
          {"output_tokens", usage.completion_tokens},
          {"cache_read_input_tokens", usage.cached_tokens},
          {"cache_creation_input_tokens", 0}};
}

json anthropic_message_json(const ResponseMeta& meta, const GenerationResult& result,
                            const std::string& stop_sequence) {
  json content = json::array();
  content.push_back({{"type", "text"}, {"text", result.text}});
  return {{"id", meta.id},
          {"type", "message"},
          {"role", "assistant"},
          {"model", meta.model},
          {"content", content},
          {"stop_reason", anthropic_stop_reason(result.finish, stop_sequence)},
          {"stop_sequence", stop_sequence_value(stop_sequence)},
          {"usage", anthropic_usage_json(result.usage)}};
}

json message_start_event(const ResponseMeta& meta, int prompt_tokens) {
  // How much of the prompt comes from the cache is known only at the end; message_delta
  // carries the final split.
  Usage usage{prompt_tokens, 0, 0};
  json message = {{"id", meta.id},
                  {"type", "message"},
                  {"role", "assistant"},
                  {"model", meta.model},
                  {"content", json::array()},
                  {"stop_reason", nullptr},
                  {"stop_sequence", nullptr},
                  {"usage", anthropic_usage_json(usage)}};
  return {{"type", "message_start"}, {"message", message}};
}

json content_block_start_event() {
  return {{"type", "content_block_start"},
          {"index", 0},
          {"content_block", {{"type", "text"}, {"text", ""}}}};
}

json ping_event() { return {{"type", "ping"}}; }

json text_delta_event(const std::string& text) {
  return {{"type", "content_block_delta"},
          {"index", 0},
          {"delta", {{"type", "text_delta"}, {"text", text}}}};
}

json content_block_stop_event() { return {{"type", "content_block_stop"}, {"index", 0}}; }

json message_delta_event(FinishReason finish, const std::string& stop_sequence,
                         const Usage& usage) {
  return {{"type", "message_delta"},
          {"delta",
           {{"stop_reason", anthropic_stop_reason(finish, stop_sequence)},
            {"stop_sequence", stop_sequence_value(stop_sequence)}}},
          {"usage", anthropic_usage_json(usage)}};
}

json message_stop_event() { return {{"type", "message_stop"}}; }

}  // namespace strata::server
