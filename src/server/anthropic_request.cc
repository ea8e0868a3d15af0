#include "server/anthropic_request.h"

#include <string>

#include <fmt/format.h>

#include "server/json_fields.h"
#include "server/output_constraint.h"

namespace strata::server {

namespace {

constexpr int kMaxStopSequences = 16;

// {"type": "text", "text": ...}, appended to out.
Status parse_text_block(const RequestJson& block, const std::string& where, std::string* out) {
  if (string_or_empty(block, "type") != "text") {
    return Status::Unsupported(fmt::format("'{}': only text, tool_use, thinking and redacted_thinking "
                                           "(assistant) and tool_result (user) blocks are supported, got {}",
                                           where, describe_value(block)));
  }
  const RequestJson* text = find_field(block, "text");
  if (!text || !text->is_string()) {
    return Status::InvalidArgument(fmt::format("'{}.text' must be a string", where));
  }
  out->append(text->get<std::string>());
  return Status::Ok();
}

// A string, or an array of text blocks joined together.
Status parse_text_blocks(const RequestJson& value, const std::string& where, std::string* out) {
  if (value.is_string()) {
    *out = value.get<std::string>();
    return Status::Ok();
  }
  if (!value.is_array()) {
    return Status::InvalidArgument(fmt::format("'{}' must be a string or an array of blocks, got {}",
                                               where, describe_value(value)));
  }
  for (size_t b = 0; b < value.size(); ++b) {
    STRATA_RETURN_IF_ERROR(parse_text_block(value[b], fmt::format("{}[{}]", where, b), out));
  }
  return Status::Ok();
}

// {"type": "tool_use", "id", "name", "input": {...}} as a template tool call.
Status parse_tool_use(const RequestJson& block, const std::string& where, RequestJson* calls) {
  const RequestJson* id = find_field(block, "id");
  const RequestJson* name = find_field(block, "name");
  const RequestJson* input = find_field(block, "input");
  if (!id || !id->is_string() || !name || !name->is_string() || (input && !input->is_object())) {
    return Status::InvalidArgument(fmt::format(
        "'{}' must be {{\"type\": \"tool_use\", \"id\": string, \"name\": string, \"input\": object}}, got {}",
        where, describe_value(block)));
  }
  calls->push_back({{"id", *id},
                    {"type", "function"},
                    {"function", {{"name", *name}, {"arguments", input ? *input : RequestJson::object()}}}});
  return Status::Ok();
}

// An assistant's earlier reasoning: {"type": "thinking", "thinking", "signature"?}, its text
// added to the turn's reasoning (blocks joined by a blank line; the signature is not checked), or
// {"type": "redacted_thinking", "data"}, encrypted by another server and so left out.
Status parse_thinking_block(const RequestJson& block, const std::string& where, ChatTurn* turn) {
  const bool redacted = string_or_empty(block, "type") == "redacted_thinking";
  const char* field = redacted ? "data" : "thinking";
  const RequestJson* text = find_field(block, field);
  if (!text || !text->is_string()) {
    return Status::InvalidArgument(fmt::format("'{}.{}' must be a string, got {}", where, field,
                                               text ? describe_value(*text) : std::string("nothing")));
  }
  if (const RequestJson* signature = find_field(block, "signature"); signature && !signature->is_string()) {
    return Status::InvalidArgument(fmt::format("'{}.signature' must be a string, got {}", where,
                                               describe_value(*signature)));
  }
  if (redacted) return Status::Ok();
  if (turn->reasoning) turn->reasoning->append("\n\n");
  turn->reasoning = turn->reasoning.value_or("") + text->get<std::string>();
  return Status::Ok();
}

// {"type": "tool_result", "tool_use_id", "content": string or text blocks} as a "tool" turn.
Status parse_tool_result(const RequestJson& block, const std::string& where, ChatTurn* out) {
  const RequestJson* id = find_field(block, "tool_use_id");
  if (!id || !id->is_string()) {
    return Status::InvalidArgument(fmt::format("'{}.tool_use_id' must be a string", where));
  }
  out->role = "tool";
  out->extra = {{"tool_call_id", *id}};
  if (const RequestJson* content = find_field(block, "content")) {
    STRATA_RETURN_IF_ERROR(parse_text_blocks(*content, where + ".content", &out->content));
  }
  return Status::Ok();
}

// One message's blocks: tool results become tool turns ahead of the message's own turn, which
// is kept unless the message held nothing but tool results.
Status parse_message_blocks(const RequestJson& content, const std::string& role, const std::string& where,
                            std::vector<ChatTurn>* turns) {
  if (!content.is_array()) {
    ChatTurn turn{role, "", nullptr};
    STRATA_RETURN_IF_ERROR(parse_text_blocks(content, where, &turn.content));
    turns->push_back(std::move(turn));
    return Status::Ok();
  }
  ChatTurn turn{role, "", nullptr};
  RequestJson calls = RequestJson::array();
  bool only_results = !content.empty();
  for (size_t b = 0; b < content.size(); ++b) {
    const RequestJson& block = content[b];
    const std::string block_where = fmt::format("{}[{}]", where, b);
    const std::string type = string_or_empty(block, "type");
    if (type == "tool_use" && role == "assistant") {
      STRATA_RETURN_IF_ERROR(parse_tool_use(block, block_where, &calls));
    } else if ((type == "thinking" || type == "redacted_thinking") && role == "assistant") {
      STRATA_RETURN_IF_ERROR(parse_thinking_block(block, block_where, &turn));
    } else if (type == "tool_result" && role == "user") {
      ChatTurn result;
      STRATA_RETURN_IF_ERROR(parse_tool_result(block, block_where, &result));
      turns->push_back(std::move(result));
      continue;
    } else {
      STRATA_RETURN_IF_ERROR(parse_text_block(block, block_where, &turn.content));
    }
    only_results = false;
  }
  if (!calls.empty()) turn.extra = {{"tool_calls", std::move(calls)}};
  if (!only_results) turns->push_back(std::move(turn));
  return Status::Ok();
}

Status parse_messages(const RequestJson& body, std::vector<ChatTurn>* turns) {
  const RequestJson* messages = find_field(body, "messages");
  if (!messages || !messages->is_array() || messages->empty()) {
    return Status::InvalidArgument("'messages' must be a non-empty array of messages");
  }
  for (size_t i = 0; i < messages->size(); ++i) {
    const RequestJson& m = (*messages)[i];
    const RequestJson* role = m.is_object() ? find_field(m, "role") : nullptr;
    std::string role_name = role && role->is_string() ? role->get<std::string>() : "";
    if (role_name != "user" && role_name != "assistant") {
      return Status::InvalidArgument(
          fmt::format("'messages[{}].role' must be \"user\" or \"assistant\"", i));
    }
    const RequestJson* content = find_field(m, "content");
    if (!content) {
      return Status::InvalidArgument(fmt::format("'messages[{}].content' is required", i));
    }
    STRATA_RETURN_IF_ERROR(
        parse_message_blocks(*content, role_name, fmt::format("messages[{}].content", i), turns));
  }
  return Status::Ok();
}

// "tools": [{"name", "description"?, "input_schema"}], written in OpenAI's form for templates
// ({"type": "function", "function": {"name", "description"?, "parameters": input_schema}}).
Status parse_anthropic_tools(const RequestJson& tools, RequestJson* out) {
  if (!tools.is_array()) {
    return Status::InvalidArgument(fmt::format("'tools' must be an array, got {}", describe_value(tools)));
  }
  *out = RequestJson::array();
  for (size_t t = 0; t < tools.size(); ++t) {
    const RequestJson& tool = tools[t];
    const std::string type = string_or_empty(tool, "type");
    if (!tool.is_object() || (!type.empty() && type != "custom")) {
      return Status::Unsupported(fmt::format(
          "'tools[{}]': only client tools {{\"name\", \"description\", \"input_schema\"}} are "
          "supported, got {}", t, describe_value(tool)));
    }
    const RequestJson* name = find_field(tool, "name");
    const RequestJson* description = find_field(tool, "description");
    const RequestJson* schema = find_field(tool, "input_schema");
    if (!name || !name->is_string() || name->get<std::string>().empty()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].name' must be a non-empty string", t));
    }
    if (description && !description->is_string()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].description' must be a string", t));
    }
    if (!schema || !schema->is_object()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].input_schema' must be a JSON schema object", t));
    }
    // OpenAI's order (name, description, parameters); the schema keeps the client's own.
    RequestJson function = {{"name", *name}};
    if (description) function["description"] = *description;
    function["parameters"] = *schema;
    out->push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  return Status::Ok();
}

// "tool_choice": {"type": "auto" | "any" | "none" | "tool", "name"}. "any" and "tool" constrain
// the output to one call (output_constraint.h); "tool" offers only the named one.
Status parse_tool_choice(const RequestJson& body, CompletionRequest* out) {
  const RequestJson* choice = find_field(body, "tool_choice");
  if (!choice) return Status::Ok();
  const std::string type = string_or_empty(*choice, "type");
  if (type == "none") out->prompt.tools = nullptr;
  if (type == "auto" || type == "none") return Status::Ok();
  if (type != "any" && type != "tool") {
    return Status::InvalidArgument(fmt::format(
        "'tool_choice' must be {{\"type\": \"auto\" | \"any\" | \"tool\" | \"none\"}}, got {}",
        describe_value(*choice)));
  }
  if (!out->prompt.tools.is_array()) {
    return Status::InvalidArgument(fmt::format("'tool_choice' {} needs 'tools'", describe_value(*choice)));
  }
  if (type == "any") return force_tool_call(out->prompt.tools, out);
  const std::string name = string_or_empty(*choice, "name");
  for (const RequestJson& tool : out->prompt.tools) {
    if (tool["function"]["name"] == name) {
      out->prompt.tools = RequestJson::array({tool});
      return force_tool_call(out->prompt.tools, out);
    }
  }
  return Status::InvalidArgument(
      fmt::format("'tool_choice' names tool \"{}\", which is not in 'tools'", name));
}

// "thinking": {"type": "enabled", "budget_tokens": n} | {"type": "disabled"} switches a thinking
// model's reasoning on or off through the template's enable_thinking (the budget is not
// enforced: max_tokens bounds reasoning and answer together).
Status parse_thinking(const RequestJson& body, PromptInput* out) {
  const RequestJson* thinking = find_field(body, "thinking");
  if (!thinking || thinking->is_null()) return Status::Ok();
  const std::string type = string_or_empty(*thinking, "type");
  if (type != "enabled" && type != "disabled") {
    return Status::InvalidArgument(fmt::format(
        "'thinking' must be {{\"type\": \"enabled\", \"budget_tokens\": n}} or {{\"type\": \"disabled\"}}, got {}",
        describe_value(*thinking)));
  }
  out->template_kwargs = {{"enable_thinking", type == "enabled"}};
  return Status::Ok();
}

Status parse_anthropic_sampling(const RequestJson& body, SamplingParams* s) {
  s->temperature = 1.0f;  // Anthropic's default
  STRATA_RETURN_IF_ERROR(read_float(body, "temperature", 0, 1, &s->temperature));
  STRATA_RETURN_IF_ERROR(read_float(body, "top_p", 0, 1, &s->top_p));
  STRATA_RETURN_IF_ERROR(read_int(body, "top_k", 0, 1 << 20, &s->top_k));
  return Status::Ok();
}

}  // namespace

Result<CompletionRequest> parse_anthropic_messages_request(const RequestJson& body) {
  CompletionRequest out;
  out.prompt.kind = PromptInput::Kind::kChat;
  STRATA_RETURN_IF_ERROR(read_string(body, "model", &out.model));
  if (!find_field(body, "max_tokens")) return Status::InvalidArgument("'max_tokens' is required");
  STRATA_RETURN_IF_ERROR(read_int(body, "max_tokens", 1, 1 << 24, &out.max_tokens));
  if (const RequestJson* system = find_field(body, "system")) {
    ChatTurn turn{"system", "", nullptr};
    STRATA_RETURN_IF_ERROR(parse_text_blocks(*system, "system", &turn.content));
    out.prompt.messages.push_back(std::move(turn));
  }
  STRATA_RETURN_IF_ERROR(parse_messages(body, &out.prompt.messages));
  STRATA_RETURN_IF_ERROR(parse_anthropic_sampling(body, &out.generate.sampling));
  STRATA_RETURN_IF_ERROR(
      read_string_list(body, "stop_sequences", kMaxStopSequences, &out.generate.stop));
  STRATA_RETURN_IF_ERROR(read_bool(body, "stream", &out.stream));
  if (const RequestJson* tools = find_field(body, "tools"); tools && !(tools->is_array() && tools->empty())) {
    STRATA_RETURN_IF_ERROR(parse_anthropic_tools(*tools, &out.prompt.tools));
  }
  STRATA_RETURN_IF_ERROR(parse_tool_choice(body, &out));
  STRATA_RETURN_IF_ERROR(parse_thinking(body, &out.prompt));
  // Not part of Anthropic's API: the same GBNF "grammar" field the OpenAI endpoints take.
  STRATA_RETURN_IF_ERROR(parse_openai_output_format(body, &out));
  out.parse_tool_calls = out.prompt.tools.is_array();
  return out;
}

}  // namespace strata::server
