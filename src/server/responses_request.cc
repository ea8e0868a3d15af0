#include "server/responses_request.h"

#include <fmt/format.h>

#include <utility>

#include "server/json_fields.h"
#include "server/openai_request.h"

namespace strata::server {

namespace {

// A message's content as chat content: a string stays, an array of input_text / output_text
// parts becomes chat text parts.
Result<RequestJson> message_content(const RequestJson& content, const std::string& where) {
  if (content.is_string()) return content;
  if (!content.is_array()) {
    return Status::InvalidArgument(
        fmt::format("'{}.content' must be a string or an array of content parts, got {}", where, describe_value(content)));
  }
  RequestJson parts = RequestJson::array();
  for (size_t p = 0; p < content.size(); ++p) {
    const RequestJson& part = content[p];
    const std::string type = part.is_object() ? string_or_empty(part, "type") : "";
    const RequestJson* text = part.is_object() ? find_field(part, "text") : nullptr;
    if (type != "input_text" && type != "output_text" && type != "text") {
      return Status::Unsupported(fmt::format(
          "'{}.content[{}]': only input_text and output_text parts are supported, got {}", where, p, describe_value(part)));
    }
    if (!text || !text->is_string()) {
      return Status::InvalidArgument(fmt::format("'{}.content[{}].text' must be a string", where, p));
    }
    parts.push_back({{"type", "text"}, {"text", *text}});
  }
  return parts;
}

// The chat messages' state while input items are read: function calls and reasoning join the
// assistant turn they belong to.
struct ChatBuilder {
  RequestJson messages = RequestJson::array();
  RequestJson pending_reasoning;  // a reasoning item's text, for the next assistant turn

  RequestJson& assistant_turn() {
    if (messages.empty() || messages.back()["role"] != "assistant") {
      messages.push_back({{"role", "assistant"}, {"content", nullptr}});
      take_reasoning();
    }
    return messages.back();
  }
  void take_reasoning() {
    if (pending_reasoning.is_null()) return;
    messages.back()["reasoning_content"] = std::exchange(pending_reasoning, nullptr);
  }
};

Status add_message_item(const RequestJson& item, const std::string& where, ChatBuilder* chat) {
  const std::string role = string_or_empty(item, "role");
  if (role != "user" && role != "system" && role != "developer" && role != "assistant") {
    return Status::InvalidArgument(fmt::format(
        "'{}.role' must be \"user\", \"system\", \"developer\" or \"assistant\", got {}", where,
        describe_value(item.contains("role") ? item["role"] : RequestJson())));
  }
  const RequestJson* content = find_field(item, "content");
  if (!content) return Status::InvalidArgument(fmt::format("'{}.content' is required", where));
  STRATA_ASSIGN_OR_RETURN(RequestJson chat_content, message_content(*content, where));
  chat->messages.push_back({{"role", role}, {"content", std::move(chat_content)}});
  if (role == "assistant") chat->take_reasoning();
  return Status::Ok();
}

Status require_string(const RequestJson& item, const char* name, const std::string& where) {
  const RequestJson* v = find_field(item, name);
  if (!v || !v->is_string()) {
    return Status::InvalidArgument(fmt::format("'{}.{}' must be a string", where, name));
  }
  return Status::Ok();
}

Status add_input_item(const RequestJson& item, size_t index, ChatBuilder* chat) {
  const std::string where = fmt::format("input[{}]", index);
  if (!item.is_object()) {
    return Status::InvalidArgument(fmt::format("'{}' must be an object, got {}", where, describe_value(item)));
  }
  const std::string type = item.contains("type") ? string_or_empty(item, "type") : "message";
  if (type == "message") return add_message_item(item, where, chat);
  if (type == "function_call") {
    STRATA_RETURN_IF_ERROR(require_string(item, "call_id", where));
    STRATA_RETURN_IF_ERROR(require_string(item, "name", where));
    STRATA_RETURN_IF_ERROR(require_string(item, "arguments", where));
    RequestJson call = {{"id", item["call_id"]},
                        {"type", "function"},
                        {"function", {{"name", item["name"]}, {"arguments", item["arguments"]}}}};
    RequestJson& turn = chat->assistant_turn();
    if (!turn.contains("tool_calls")) turn["tool_calls"] = RequestJson::array();
    turn["tool_calls"].push_back(std::move(call));
    return Status::Ok();
  }
  if (type == "function_call_output") {
    STRATA_RETURN_IF_ERROR(require_string(item, "call_id", where));
    const RequestJson* output = find_field(item, "output");
    if (!output) return Status::InvalidArgument(fmt::format("'{}.output' is required", where));
    STRATA_ASSIGN_OR_RETURN(RequestJson content, message_content(*output, where + ".output"));
    chat->messages.push_back({{"role", "tool"}, {"tool_call_id", item["call_id"]}, {"content", std::move(content)}});
    return Status::Ok();
  }
  if (type == "reasoning") {
    // The model's earlier reasoning, sent back: its reasoning_text parts (or its summary's), passed
    // to the next assistant turn as a chat client passes reasoning_content.
    std::string text;
    for (const char* field : {"content", "summary"}) {
      const RequestJson* parts = find_field(item, field);
      if (!parts || !parts->is_array() || !text.empty()) continue;
      for (const RequestJson& part : *parts) {
        if (part.is_object() && part.contains("text") && part["text"].is_string()) text += part["text"].get<std::string>();
      }
    }
    chat->pending_reasoning = text;
    return Status::Ok();
  }
  return Status::Unsupported(fmt::format("'{}': input items of type {} are not supported", where, describe_value(item["type"])));
}

Status add_input(const RequestJson& body, ChatBuilder* chat) {
  const RequestJson* input = find_field(body, "input");
  if (!input || (!input->is_string() && !(input->is_array() && !input->empty()))) {
    return Status::InvalidArgument("'input' must be a string or a non-empty array of input items");
  }
  if (input->is_string()) {
    chat->messages.push_back({{"role", "user"}, {"content", *input}});
    return Status::Ok();
  }
  for (size_t i = 0; i < input->size(); ++i) STRATA_RETURN_IF_ERROR(add_input_item((*input)[i], i, chat));
  return Status::Ok();
}

// Flat function tools ({"type": "function", "name", "description", "parameters", "strict"}) in
// the chat form ({"type": "function", "function": {...}}).
Status add_tools(const RequestJson& body, RequestJson* chat) {
  const RequestJson* tools = find_field(body, "tools");
  if (!tools || tools->is_null()) return Status::Ok();
  if (!tools->is_array()) {
    return Status::InvalidArgument(fmt::format("'tools' must be an array, got {}", describe_value(*tools)));
  }
  RequestJson out = RequestJson::array();
  for (size_t i = 0; i < tools->size(); ++i) {
    const RequestJson& tool = (*tools)[i];
    const std::string type = tool.is_object() ? string_or_empty(tool, "type") : "";
    if (type != "function") {
      return Status::Unsupported(fmt::format("'tools[{}]': only function tools are supported, got {}", i,
                                             describe_value(tool.is_object() && tool.contains("type") ? tool["type"] : tool)));
    }
    // Checked here so the error names the Responses field, not the chat form's "function" member.
    const RequestJson* name = find_field(tool, "name");
    if (!name || !name->is_string() || name->get_ref<const std::string&>().empty()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].name' must be a non-empty string", i));
    }
    if (const RequestJson* parameters = find_field(tool, "parameters"); parameters && !parameters->is_object()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].parameters' must be a JSON schema object, got {}", i,
                                                 describe_value(*parameters)));
    }
    RequestJson function = RequestJson::object();
    for (const char* field : {"name", "description", "parameters", "strict"}) {
      if (tool.contains(field)) function[field] = tool[field];
    }
    out.push_back({{"type", "function"}, {"function", std::move(function)}});
  }
  (*chat)["tools"] = std::move(out);
  const RequestJson* choice = find_field(body, "tool_choice");
  if (choice && choice->is_object() && string_or_empty(*choice, "type") == "function") {
    (*chat)["tool_choice"] = {{"type", "function"}, {"function", {{"name", string_or_empty(*choice, "name")}}}};
  } else if (choice) {
    (*chat)["tool_choice"] = *choice;
  }
  return Status::Ok();
}

// text.format: {"type": "text" | "json_object"} or {"type": "json_schema", "name", "schema", "strict"}.
Status add_text_format(const RequestJson& body, RequestJson* chat) {
  const RequestJson* text = find_field(body, "text");
  if (!text || text->is_null()) return Status::Ok();
  if (!text->is_object()) return Status::InvalidArgument(fmt::format("'text' must be an object, got {}", describe_value(*text)));
  const RequestJson* format = find_field(*text, "format");
  if (!format || format->is_null()) return Status::Ok();
  if (!format->is_object()) {
    return Status::InvalidArgument(fmt::format("'text.format' must be an object, got {}", describe_value(*format)));
  }
  if (string_or_empty(*format, "type") != "json_schema") {
    (*chat)["response_format"] = *format;
    return Status::Ok();
  }
  RequestJson schema = RequestJson::object();
  for (const char* field : {"name", "schema", "strict", "description"}) {
    if (format->contains(field)) schema[field] = (*format)[field];
  }
  (*chat)["response_format"] = {{"type", "json_schema"}, {"json_schema", std::move(schema)}};
  return Status::Ok();
}

Status refuse_stored_state(const RequestJson& body) {
  bool background = false;
  STRATA_RETURN_IF_ERROR(read_bool(body, "background", &background));
  if (background) return Status::Unsupported("'background' is not supported: answers are given as they are made");
  if (const RequestJson* conversation = find_field(body, "conversation"); conversation && !conversation->is_null()) {
    return Status::Unsupported("'conversation' is not supported: continue with 'previous_response_id' or send the turns in 'input'");
  }
  return Status::Ok();
}

// The turns previous_response_id continues: none when it is absent.
Result<RequestJson> previous_turns(const RequestJson& body, const PreviousLookup& lookup) {
  const RequestJson* id = find_field(body, "previous_response_id");
  if (!id || id->is_null()) return RequestJson::array();
  if (!id->is_string()) {
    return Status::InvalidArgument(fmt::format("'previous_response_id' must be a string, got {}", describe_value(*id)));
  }
  std::optional<RequestJson> turns = lookup ? lookup(id->get<std::string>()) : std::nullopt;
  if (!turns) {
    return Status::NotFound(fmt::format(
        "'previous_response_id': no response '{}' is stored (answers are kept in memory, up to "
        "--responses-store-mib, until a restart; send the conversation in 'input' instead)",
        id->get<std::string>()));
  }
  return std::move(*turns);
}

}  // namespace

Result<RequestJson> responses_to_chat_body(const RequestJson& body, const RequestJson& previous_messages,
                                           RequestJson* conversation) {
  STRATA_RETURN_IF_ERROR(refuse_stored_state(body));
  ChatBuilder chat;
  chat.messages = previous_messages;
  STRATA_RETURN_IF_ERROR(add_input(body, &chat));
  RequestJson messages = RequestJson::array();
  if (const RequestJson* instructions = find_field(body, "instructions"); instructions && !instructions->is_null()) {
    if (!instructions->is_string()) {
      return Status::InvalidArgument(fmt::format("'instructions' must be a string, got {}", describe_value(*instructions)));
    }
    messages.push_back({{"role", "system"}, {"content", *instructions}});
  }
  for (const RequestJson& message : chat.messages) messages.push_back(message);
  if (conversation) *conversation = std::move(chat.messages);
  RequestJson out = {{"messages", std::move(messages)}};
  int max_output_tokens = 0;
  STRATA_RETURN_IF_ERROR(read_int(body, "max_output_tokens", 1, 1 << 24, &max_output_tokens));
  if (max_output_tokens > 0) out["max_completion_tokens"] = max_output_tokens;
  // The sampling fields are the chat's, under the same names.
  for (const char* field : {"model", "temperature", "top_p", "top_k", "min_p", "seed", "stream", "logit_bias",
                            "frequency_penalty", "presence_penalty", "repetition_penalty", "stop", "speculative",
                            "chat_template_kwargs", "top_logprobs"}) {
    if (const RequestJson* v = find_field(body, field)) out[field] = *v;
  }
  if (out.contains("top_logprobs")) out["logprobs"] = true;
  if (const RequestJson* reasoning = find_field(body, "reasoning"); reasoning && !reasoning->is_null()) {
    if (!reasoning->is_object()) {
      return Status::InvalidArgument(fmt::format("'reasoning' must be an object, got {}", describe_value(*reasoning)));
    }
    if (const RequestJson* effort = find_field(*reasoning, "effort"); effort && !effort->is_null()) {
      out["reasoning_effort"] = *effort;
    }
  }
  STRATA_RETURN_IF_ERROR(add_tools(body, &out));
  STRATA_RETURN_IF_ERROR(add_text_format(body, &out));
  return out;
}

namespace {

// One input item as GET .../input_items lists it (see ResponsesRequest::input_items).
nlohmann::json as_input_item(const nlohmann::json& item) {
  if (!item.is_object() || !item.contains("role")) return item;
  nlohmann::json out = item;
  out["type"] = "message";
  if (out.contains("content") && out["content"].is_string()) {
    const bool assistant = out["role"] == "assistant";
    out["content"] = nlohmann::json::array({{{"type", assistant ? "output_text" : "input_text"}, {"text", out["content"]}}});
  }
  if (!out.contains("status")) out["status"] = "completed";
  return out;
}

nlohmann::json input_items_of(const RequestJson& body) {
  const nlohmann::json input = nlohmann::json::parse(body["input"].dump());
  nlohmann::json items = nlohmann::json::array();
  if (input.is_string()) {
    items.push_back(as_input_item({{"role", "user"}, {"content", input}}));
  } else {
    for (const nlohmann::json& item : input) items.push_back(as_input_item(item));
  }
  return items;
}

}  // namespace

nlohmann::json name_input_items(nlohmann::json items, const std::string& response_id) {
  for (size_t i = 0; i < items.size(); ++i) {
    nlohmann::json& item = items[i];
    if (!item.is_object() || item.contains("id")) continue;
    const bool message = item.value("type", "") == "message";
    item["id"] = std::string(message ? "msg_" : "item_") + std::to_string(i) + "_" + response_id;
  }
  return items;
}

Result<ResponsesRequest> parse_responses_request(const RequestJson& body, const PreviousLookup& previous) {
  STRATA_ASSIGN_OR_RETURN(RequestJson turns, previous_turns(body, previous));
  ResponsesRequest out;
  STRATA_ASSIGN_OR_RETURN(RequestJson chat, responses_to_chat_body(body, turns, &out.conversation));
  STRATA_ASSIGN_OR_RETURN(out.completion, parse_chat_completion_request(chat));
  STRATA_RETURN_IF_ERROR(read_bool(body, "store", &out.store));
  out.input_items = input_items_of(body);
  RequestJson echo = RequestJson::object();
  echo["instructions"] = body.contains("instructions") ? body["instructions"] : RequestJson();
  echo["max_output_tokens"] = body.contains("max_output_tokens") ? body["max_output_tokens"] : RequestJson();
  echo["temperature"] = out.completion.generate.sampling.temperature;
  echo["top_p"] = out.completion.generate.sampling.top_p;
  echo["tools"] = body.contains("tools") && body["tools"].is_array() ? body["tools"] : RequestJson::array();
  echo["tool_choice"] = body.contains("tool_choice") ? body["tool_choice"] : RequestJson("auto");
  echo["parallel_tool_calls"] = body.contains("parallel_tool_calls") ? body["parallel_tool_calls"] : RequestJson(true);
  echo["text"] = body.contains("text") && body["text"].is_object() ? body["text"]
                                                                  : RequestJson{{"format", {{"type", "text"}}}};
  echo["reasoning"] = body.contains("reasoning") ? body["reasoning"] : RequestJson();
  echo["metadata"] = body.contains("metadata") ? body["metadata"] : RequestJson::object();
  echo["previous_response_id"] = body.contains("previous_response_id") ? body["previous_response_id"] : RequestJson();
  echo["store"] = out.store;
  // Converted once here: every response object of the answer (a stream sends several) repeats it.
  out.echo = nlohmann::json::parse(echo.dump());
  return out;
}

}  // namespace strata::server
