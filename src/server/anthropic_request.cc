#include "server/anthropic_request.h"

#include <string>

#include <fmt/format.h>

#include "server/json_fields.h"

namespace strata::server {

namespace {

constexpr int kMaxStopSequences = 16;

// A string, or an array of {"type": "text", "text": ...} blocks joined together.
Status parse_text_blocks(const json& value, const std::string& where, std::string* out) {
  if (value.is_string()) {
    *out = value.get<std::string>();
    return Status::Ok();
  }
  if (!value.is_array()) {
    return Status::InvalidArgument(fmt::format("'{}' must be a string or an array of blocks, got {}",
                                               where, describe_value(value)));
  }
  for (size_t b = 0; b < value.size(); ++b) {
    const json& block = value[b];
    std::string type = string_or_empty(block, "type");
    if (type != "text") {
      return Status::Unsupported(fmt::format(
          "'{}[{}]': only text blocks are supported, got {}", where, b, describe_value(block)));
    }
    const json* text = find_field(block, "text");
    if (!text || !text->is_string()) {
      return Status::InvalidArgument(fmt::format("'{}[{}].text' must be a string", where, b));
    }
    out->append(text->get<std::string>());
  }
  return Status::Ok();
}

Status parse_messages(const json& body, std::vector<ChatTurn>* turns) {
  const json* messages = find_field(body, "messages");
  if (!messages || !messages->is_array() || messages->empty()) {
    return Status::InvalidArgument("'messages' must be a non-empty array of messages");
  }
  for (size_t i = 0; i < messages->size(); ++i) {
    const json& m = (*messages)[i];
    const json* role = m.is_object() ? find_field(m, "role") : nullptr;
    std::string role_name = role && role->is_string() ? role->get<std::string>() : "";
    if (role_name != "user" && role_name != "assistant") {
      return Status::InvalidArgument(
          fmt::format("'messages[{}].role' must be \"user\" or \"assistant\"", i));
    }
    const json* content = find_field(m, "content");
    if (!content) {
      return Status::InvalidArgument(fmt::format("'messages[{}].content' is required", i));
    }
    ChatTurn turn{role_name, ""};
    STRATA_RETURN_IF_ERROR(
        parse_text_blocks(*content, fmt::format("messages[{}].content", i), &turn.content));
    turns->push_back(std::move(turn));
  }
  return Status::Ok();
}

Status parse_sampling(const json& body, SamplingParams* s) {
  s->temperature = 1.0f;  // Anthropic's default
  STRATA_RETURN_IF_ERROR(read_float(body, "temperature", 0, 1, &s->temperature));
  STRATA_RETURN_IF_ERROR(read_float(body, "top_p", 0, 1, &s->top_p));
  STRATA_RETURN_IF_ERROR(read_int(body, "top_k", 0, 1 << 20, &s->top_k));
  return Status::Ok();
}

}  // namespace

Result<CompletionRequest> parse_anthropic_messages_request(const json& body) {
  CompletionRequest out;
  out.prompt.kind = PromptInput::Kind::kChat;
  STRATA_RETURN_IF_ERROR(read_string(body, "model", &out.model));
  if (!find_field(body, "max_tokens")) return Status::InvalidArgument("'max_tokens' is required");
  STRATA_RETURN_IF_ERROR(read_int(body, "max_tokens", 1, 1 << 24, &out.max_tokens));
  if (const json* system = find_field(body, "system")) {
    ChatTurn turn{"system", ""};
    STRATA_RETURN_IF_ERROR(parse_text_blocks(*system, "system", &turn.content));
    out.prompt.messages.push_back(std::move(turn));
  }
  STRATA_RETURN_IF_ERROR(parse_messages(body, &out.prompt.messages));
  STRATA_RETURN_IF_ERROR(parse_sampling(body, &out.generate.sampling));
  STRATA_RETURN_IF_ERROR(
      read_string_list(body, "stop_sequences", kMaxStopSequences, &out.generate.stop));
  STRATA_RETURN_IF_ERROR(read_bool(body, "stream", &out.stream));
  STRATA_RETURN_IF_ERROR(reject_if_set(body, "tools"));
  return out;
}

}  // namespace strata::server
