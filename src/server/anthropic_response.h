// JSON bodies of Anthropic Messages responses and of its stream's named events
// (message_start, content_block_start, ping, content_block_delta, content_block_stop,
// message_delta, message_stop).
//
// Pure functions; thread-safe. Usage follows Anthropic's split: input_tokens counts prompt
// tokens read afresh, cache_read_input_tokens those served from the prefix cache / park store.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "server/generation_result.h"
#include "server/openai_response.h"

namespace strata::server {

// "max_tokens", "stop_sequence" (when stop_sequence is non-empty) or "end_turn".
const char* anthropic_stop_reason(FinishReason finish, const std::string& stop_sequence);

nlohmann::json anthropic_usage_json(const Usage& usage);

nlohmann::json anthropic_message_json(const ResponseMeta& meta, const GenerationResult& result,
                                      const std::string& stop_sequence);

// Stream events; each is sent as "event: <type>" with this JSON as data.
nlohmann::json message_start_event(const ResponseMeta& meta, int prompt_tokens);
nlohmann::json content_block_start_event();
nlohmann::json ping_event();
nlohmann::json text_delta_event(const std::string& text);
nlohmann::json content_block_stop_event();
nlohmann::json message_delta_event(FinishReason finish, const std::string& stop_sequence,
                                   const Usage& usage);
nlohmann::json message_stop_event();

}  // namespace strata::server
