#include "server/openai_request.h"

#include <charconv>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "server/json_fields.h"
#include "server/output_constraint.h"

namespace strata::server {

namespace {

constexpr int kMaxStopStrings = 16;
constexpr int64_t kMaxTokensLimit = 1 << 24;
constexpr int kMaxTopLogprobs = 20;
constexpr int kMaxChoices = 128;  // OpenAI's limit on n

// logit_bias: {"<token id>": bias in [-100, 100]}. Ids are checked against the vocab later,
// when the tokenizer is at hand.
Status parse_logit_bias(const RequestJson& body, SamplingParams* sampling) {
  const RequestJson* v = find_field(body, "logit_bias");
  if (!v) return Status::Ok();
  if (!v->is_object()) {
    return Status::InvalidArgument(
        fmt::format("'logit_bias' must be an object mapping token ids to numbers, got {}",
                    describe_value(*v)));
  }
  for (const auto& [key, bias] : v->items()) {
    int32_t token = -1;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), token);
    if (ec != std::errc() || end != key.data() + key.size() || token < 0) {
      return Status::InvalidArgument(
          fmt::format("'logit_bias' key \"{}\" is not a token id (a non-negative integer)", key));
    }
    if (!bias.is_number() || bias.get<double>() < -100 || bias.get<double>() > 100) {
      return Status::InvalidArgument(fmt::format(
          "'logit_bias' value for token {} must be a number in [-100, 100], got {}", token,
          describe_value(bias)));
    }
    sampling->logit_bias.emplace_back(token, bias.get<float>());
  }
  return Status::Ok();
}

Status parse_openai_sampling(const RequestJson& body, SamplingParams* s) {
  s->temperature = 1.0f;  // the OpenAI default; send 0 for greedy decoding
  STRATA_RETURN_IF_ERROR(read_float(body, "temperature", 0, 2, &s->temperature));
  STRATA_RETURN_IF_ERROR(read_float(body, "top_p", 0, 1, &s->top_p));
  STRATA_RETURN_IF_ERROR(read_int(body, "top_k", 0, 1 << 20, &s->top_k));
  STRATA_RETURN_IF_ERROR(read_float(body, "min_p", 0, 1, &s->min_p));
  STRATA_RETURN_IF_ERROR(read_float(body, "frequency_penalty", -2, 2, &s->frequency_penalty));
  STRATA_RETURN_IF_ERROR(read_float(body, "presence_penalty", -2, 2, &s->presence_penalty));
  STRATA_RETURN_IF_ERROR(read_float(body, "repeat_penalty", 0, 10, &s->repeat_penalty));
  STRATA_RETURN_IF_ERROR(read_float(body, "repetition_penalty", 0, 10, &s->repeat_penalty));
  STRATA_RETURN_IF_ERROR(read_int(body, "repeat_last_n", 0, 1 << 20, &s->repeat_last_n));
  return parse_logit_bias(body, s);
}

// n: how many answers to generate (each its own engine request, CompletionRequest::n_choices).
// best_of (completions) would pick the n best of more by their logprobs: only best_of = n,
// which picks them all, is taken.
Status parse_n(const RequestJson& body, int* n_choices) {
  STRATA_RETURN_IF_ERROR(read_int(body, "n", 1, kMaxChoices, n_choices));
  int best_of = *n_choices;
  STRATA_RETURN_IF_ERROR(read_int(body, "best_of", 1, kMaxChoices, &best_of));
  if (best_of != *n_choices) {
    return Status::Unsupported(fmt::format("'best_of' other than 'n' ({}) is not supported, got {}", *n_choices, best_of));
  }
  return Status::Ok();
}

// "content": a string, or an array of {"type": "text", "text": "..."} parts joined together.
Status parse_message_content(const RequestJson& message, size_t index, std::string* out) {
  const RequestJson* content = find_field(message, "content");
  if (!content) return Status::Ok();  // assistant turns may carry no content
  if (content->is_string()) {
    *out = content->get<std::string>();
    return Status::Ok();
  }
  if (!content->is_array()) {
    return Status::InvalidArgument(fmt::format(
        "'messages[{}].content' must be a string or an array of content parts, got {}", index,
        describe_value(*content)));
  }
  for (size_t p = 0; p < content->size(); ++p) {
    const RequestJson& part = (*content)[p];
    std::string type = string_or_empty(part, "type");
    if (type != "text") {
      return Status::Unsupported(fmt::format(
          "'messages[{}].content[{}]': only {{\"type\": \"text\"}} parts are supported, got {}",
          index, p, describe_value(part)));
    }
    const RequestJson* text = find_field(part, "text");
    if (!text || !text->is_string()) {
      return Status::InvalidArgument(
          fmt::format("'messages[{}].content[{}].text' must be a string", index, p));
    }
    out->append(text->get<std::string>());
  }
  return Status::Ok();
}

// Templates write arguments with tojson, so a JSON string that holds an object is passed as the
// object, its keys in the client's order; anything else is passed as sent. Such an object with
// more than kMaxObjectKeys keys is refused as one in the body is. where: the call's path.
Result<RequestJson> arguments_value(const RequestJson& arguments, const std::string& where) {
  if (!arguments.is_string()) return arguments;
  OrderedJsonParse parsed = parse_ordered_json(arguments.get_ref<const std::string&>());
  if (parsed.error == OrderedJsonParse::Error::kTooManyKeys) {
    const std::string& inner = parsed.message;
    const std::string path = where + ".function.arguments" + (inner.empty() || inner[0] == '[' ? "" : ".") + inner;
    return Status::InvalidArgument(too_many_keys_message(path));
  }
  if (parsed.error != OrderedJsonParse::Error::kNone || !parsed.value.is_object()) return arguments;
  return std::move(parsed.value);
}

// An assistant's "tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}].
Status parse_assistant_tool_calls(const RequestJson& calls, size_t index, ChatTurn* out) {
  if (!calls.is_array()) {
    return Status::InvalidArgument(fmt::format("'messages[{}].tool_calls' must be an array, got {}",
                                               index, describe_value(calls)));
  }
  RequestJson written = RequestJson::array();
  for (size_t c = 0; c < calls.size(); ++c) {
    const RequestJson& call = calls[c];
    const std::string where = fmt::format("messages[{}].tool_calls[{}]", index, c);
    const RequestJson* function = call.is_object() ? find_field(call, "function") : nullptr;
    const RequestJson* id = call.is_object() ? find_field(call, "id") : nullptr;
    if (!id || !id->is_string() || !function || !function->is_object()) {
      return Status::InvalidArgument(fmt::format(
          "'{}' must be {{\"id\": string, \"type\": \"function\", \"function\": {{\"name\", "
          "\"arguments\"}}}}, got {}", where, describe_value(call)));
    }
    const std::string type = string_or_empty(call, "type");
    if (find_field(call, "type") && type != "function") {
      return Status::Unsupported(fmt::format("'{}.type' must be \"function\"", where));
    }
    const RequestJson* name = find_field(*function, "name");
    if (!name || !name->is_string() || name->get<std::string>().empty()) {
      return Status::InvalidArgument(fmt::format("'{}.function.name' must be a non-empty string", where));
    }
    const RequestJson* arguments = find_field(*function, "arguments");
    STRATA_ASSIGN_OR_RETURN(RequestJson value, arguments ? arguments_value(*arguments, where)
                                                         : Result<RequestJson>(RequestJson::object()));
    written.push_back({{"id", *id},
                       {"type", "function"},
                       {"function", {{"name", *name}, {"arguments", std::move(value)}}}});
  }
  if (!written.empty()) out->extra = {{"tool_calls", std::move(written)}};
  return Status::Ok();
}

// A "tool" message: the result of one call, named by tool_call_id.
Status parse_tool_message(const RequestJson& message, size_t index, ChatTurn* out) {
  const RequestJson* id = find_field(message, "tool_call_id");
  if (!id || !id->is_string()) {
    return Status::InvalidArgument(fmt::format(
        "'messages[{}].tool_call_id' must be a string (the id of the call this message answers)", index));
  }
  out->extra = {{"tool_call_id", *id}};
  if (const RequestJson* name = find_field(message, "name"); name && name->is_string()) {
    out->extra["name"] = *name;
  }
  return Status::Ok();
}

// An assistant's earlier reasoning as clients send it back: "reasoning_content" (what this
// server answers) or "reasoning" (vLLM's newer name), a string or null (absent);
// "reasoning_content" wins when both are sent.
Status parse_message_reasoning(const RequestJson& message, size_t index, ChatTurn* out) {
  for (const char* field : {"reasoning", "reasoning_content"}) {
    const RequestJson* value = find_field(message, field);
    if (!value) continue;
    if (!value->is_string()) {
      return Status::InvalidArgument(fmt::format("'messages[{}].{}' must be a string, got {}", index, field,
                                                 describe_value(*value)));
    }
    if (out->role != "assistant") {
      return Status::InvalidArgument(
          fmt::format("'messages[{}].{}' is only allowed on assistant messages", index, field));
    }
    out->reasoning = value->get<std::string>();
  }
  return Status::Ok();
}

Status parse_chat_message(const RequestJson& message, size_t index, ChatTurn* out) {
  if (!message.is_object()) {
    return Status::InvalidArgument(
        fmt::format("'messages[{}]' must be an object, got {}", index, describe_value(message)));
  }
  const RequestJson* role = find_field(message, "role");
  if (!role || !role->is_string()) {
    return Status::InvalidArgument(fmt::format("'messages[{}].role' must be a string", index));
  }
  out->role = role->get<std::string>();
  if (out->role == "developer") out->role = "system";  // OpenAI's newer name for system
  if (out->role != "system" && out->role != "user" && out->role != "assistant" && out->role != "tool") {
    return Status::Unsupported(fmt::format(
        "'messages[{}].role' \"{}\" is not supported (use system, developer, user, assistant or tool)",
        index, out->role));
  }
  if (const RequestJson* calls = find_field(message, "tool_calls")) {
    if (out->role != "assistant") {
      return Status::InvalidArgument(
          fmt::format("'messages[{}].tool_calls' is only allowed on assistant messages", index));
    }
    STRATA_RETURN_IF_ERROR(parse_assistant_tool_calls(*calls, index, out));
  }
  if (out->role == "tool") STRATA_RETURN_IF_ERROR(parse_tool_message(message, index, out));
  STRATA_RETURN_IF_ERROR(parse_message_reasoning(message, index, out));
  return parse_message_content(message, index, &out->content);
}

// "tools": [{"type": "function", "function": {"name", "description"?, "parameters"?}}].
Status parse_openai_tools(const RequestJson& tools, RequestJson* out) {
  if (!tools.is_array()) {
    return Status::InvalidArgument(
        fmt::format("'tools' must be an array of function tools, got {}", describe_value(tools)));
  }
  *out = RequestJson::array();
  for (size_t t = 0; t < tools.size(); ++t) {
    const RequestJson& tool = tools[t];
    if (string_or_empty(tool, "type") != "function") {
      return Status::Unsupported(fmt::format(
          "'tools[{}]': only {{\"type\": \"function\"}} tools are supported, got {}", t,
          describe_value(tool)));
    }
    const RequestJson* function = find_field(tool, "function");
    const RequestJson* name = function && function->is_object() ? find_field(*function, "name") : nullptr;
    if (!name || !name->is_string() || name->get<std::string>().empty()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].function.name' must be a non-empty string", t));
    }
    const RequestJson* description = find_field(*function, "description");
    if (description && !description->is_string()) {
      return Status::InvalidArgument(fmt::format("'tools[{}].function.description' must be a string", t));
    }
    const RequestJson* parameters = find_field(*function, "parameters");
    if (parameters && !parameters->is_object()) {
      return Status::InvalidArgument(fmt::format(
          "'tools[{}].function.parameters' must be a JSON schema object, got {}", t,
          describe_value(*parameters)));
    }
    // The tool as sent, less any other fields: "type" and "function" in the client's order.
    RequestJson kept = RequestJson::object();
    for (const auto& [key, value] : tool.items()) {
      if (key == "type" || key == "function") kept[key] = value;
    }
    out->push_back(std::move(kept));
  }
  return Status::Ok();
}

// "tool_choice": "auto" | "none" | "required" | {"type": "function", "function": {"name"}}.
// A named function is the one tool the template sees; "required" and a named function
// constrain the output to one call (output_constraint.h).
Status apply_tool_choice(const RequestJson& body, CompletionRequest* out) {
  const RequestJson* choice = find_field(body, "tool_choice");
  if (!choice) return Status::Ok();
  const bool have_tools = out->prompt.tools.is_array();
  const RequestJson* function = choice->is_object() ? find_field(*choice, "function") : nullptr;
  const RequestJson* name = function && function->is_object() ? find_field(*function, "name") : nullptr;
  if (*choice == "none") {
    out->prompt.tools = nullptr;
    return Status::Ok();
  }
  if (*choice == "auto") return Status::Ok();
  if ((*choice == "required" || (name && name->is_string())) && !have_tools) {
    return Status::InvalidArgument(
        fmt::format("'tool_choice' {} needs 'tools' to choose from", describe_value(*choice)));
  }
  if (*choice == "required") return Status::Ok();
  if (!name || !name->is_string() || string_or_empty(*choice, "type") != "function") {
    return Status::InvalidArgument(fmt::format(
        "'tool_choice' must be \"auto\", \"none\", \"required\" or {{\"type\": \"function\", "
        "\"function\": {{\"name\": ...}}}}, got {}", describe_value(*choice)));
  }
  for (const RequestJson& tool : out->prompt.tools) {
    if (tool["function"]["name"] == *name) {
      out->prompt.tools = RequestJson::array({tool});
      return Status::Ok();
    }
  }
  return Status::InvalidArgument(fmt::format(
      "'tool_choice' names function \"{}\", which is not in 'tools'", name->get<std::string>()));
}

Status parse_chat_tools(const RequestJson& body, CompletionRequest* out) {
  if (const RequestJson* tools = find_field(body, "tools"); tools && !(tools->is_array() && tools->empty())) {
    STRATA_RETURN_IF_ERROR(parse_openai_tools(*tools, &out->prompt.tools));
  }
  STRATA_RETURN_IF_ERROR(apply_tool_choice(body, out));
  out->parse_tool_calls = out->prompt.tools.is_array();
  const RequestJson* choice = find_field(body, "tool_choice");
  if (choice && (*choice == "required" || choice->is_object())) {
    STRATA_RETURN_IF_ERROR(force_tool_call(out->prompt.tools, out));
  }
  return Status::Ok();
}

// Completions "prompt": a string, an array of token ids, or a one-element array of either.
Status parse_text_prompt(const RequestJson& body, PromptInput* out) {
  const RequestJson* prompt = find_field(body, "prompt");
  if (!prompt) return Status::InvalidArgument("'prompt' is required");
  const RequestJson* p = prompt;
  if (p->is_array() && p->size() == 1 && ((*p)[0].is_string() || (*p)[0].is_array())) {
    p = &(*p)[0];
  }
  if (p->is_string()) {
    out->kind = PromptInput::Kind::kText;
    out->text = p->get<std::string>();
    return Status::Ok();
  }
  bool all_ids = p->is_array() && !p->empty();
  if (all_ids) {
    for (const RequestJson& t : *p) {
      all_ids = all_ids && t.is_number_integer() && t.get<int64_t>() >= 0 && t.get<int64_t>() <= INT32_MAX;
    }
  }
  if (!all_ids) {
    return Status::InvalidArgument(fmt::format(
        "'prompt' must be a string or a non-empty array of token ids (one prompt per request), "
        "got {}",
        describe_value(*prompt)));
  }
  out->kind = PromptInput::Kind::kTokens;
  for (const RequestJson& t : *p) out->tokens.push_back(static_cast<int32_t>(t.get<int64_t>()));
  return Status::Ok();
}

}  // namespace

// "chat_template_kwargs": further variables for the chat template ({"enable_thinking": false}).
Status parse_template_kwargs(const RequestJson& body, PromptInput* out) {
  const RequestJson* kwargs = find_field(body, "chat_template_kwargs");
  if (!kwargs || kwargs->is_null()) return Status::Ok();
  if (!kwargs->is_object()) {
    return Status::InvalidArgument(fmt::format(
        "'chat_template_kwargs' must be an object of template variables, got {}", describe_value(*kwargs)));
  }
  out->template_kwargs = *kwargs;
  return Status::Ok();
}

namespace {

// "reasoning_effort" (OpenAI's reasoning models): "low", "medium" or "high" reaches the template
// as its reasoning_effort variable (gpt-oss's harmony template writes "Reasoning: <effort>" into
// its system message; templates that do not read it ignore it). "minimal", OpenAI's lowest for
// other models, is taken as "low", the lowest gpt-oss knows, and "xhigh" as "high", the highest.
// "none" (GPT-5.1's: no reasoning) switches a thinking model's reasoning off through
// enable_thinking, as Anthropic's thinking disabled does, and sets no effort. chat_template_kwargs'
// own reasoning_effort or enable_thinking, when a request sends both, wins.
Status parse_reasoning_effort(const RequestJson& body, PromptInput* out) {
  const RequestJson* effort = find_field(body, "reasoning_effort");
  if (!effort) return Status::Ok();
  const std::string value = effort->is_string() ? effort->get<std::string>() : std::string();
  if (value != "none" && value != "minimal" && value != "low" && value != "medium" && value != "high" &&
      value != "xhigh") {
    return Status::InvalidArgument(fmt::format(
        "'reasoning_effort' must be \"none\", \"minimal\", \"low\", \"medium\", \"high\" or \"xhigh\", got {}",
        describe_value(*effort)));
  }
  if (!out->template_kwargs.is_object()) out->template_kwargs = RequestJson::object();
  if (value == "none") {
    if (!out->template_kwargs.contains("enable_thinking")) out->template_kwargs["enable_thinking"] = false;
    return Status::Ok();
  }
  if (!out->template_kwargs.contains("reasoning_effort")) {
    out->template_kwargs["reasoning_effort"] = value == "minimal" ? "low" : value == "xhigh" ? "high" : value;
  }
  return Status::Ok();
}

}  // namespace

Result<CompletionRequest> parse_chat_completion_request(const RequestJson& body) {
  CompletionRequest out;
  out.prompt.kind = PromptInput::Kind::kChat;
  const RequestJson* messages = find_field(body, "messages");
  if (!messages || !messages->is_array() || messages->empty()) {
    return Status::InvalidArgument("'messages' must be a non-empty array of messages");
  }
  for (size_t i = 0; i < messages->size(); ++i) {
    ChatTurn turn;
    STRATA_RETURN_IF_ERROR(parse_chat_message((*messages)[i], i, &turn));
    out.prompt.messages.push_back(std::move(turn));
  }
  STRATA_RETURN_IF_ERROR(parse_template_kwargs(body, &out.prompt));
  STRATA_RETURN_IF_ERROR(parse_reasoning_effort(body, &out.prompt));
  STRATA_RETURN_IF_ERROR(parse_chat_tools(body, &out));
  STRATA_RETURN_IF_ERROR(parse_openai_common_fields(body, &out));
  SamplingParams& s = out.generate.sampling;
  STRATA_RETURN_IF_ERROR(read_bool(body, "logprobs", &s.logprobs));
  STRATA_RETURN_IF_ERROR(read_int(body, "top_logprobs", 0, kMaxTopLogprobs, &s.n_top_logprobs));
  if (s.n_top_logprobs > 0 && !s.logprobs) {
    return Status::InvalidArgument("'top_logprobs' needs 'logprobs': true");
  }
  return out;
}

Result<CompletionRequest> parse_text_completion_request(const RequestJson& body) {
  CompletionRequest out;
  STRATA_RETURN_IF_ERROR(parse_text_prompt(body, &out.prompt));
  STRATA_RETURN_IF_ERROR(parse_openai_common_fields(body, &out));
  bool echo = false;
  STRATA_RETURN_IF_ERROR(read_bool(body, "echo", &echo));
  if (echo) return Status::Unsupported("'echo' is not supported");
  STRATA_RETURN_IF_ERROR(reject_if_set(body, "suffix"));
  STRATA_RETURN_IF_ERROR(reject_if_set(body, "tools"));
  // Completions' "logprobs" is the number of alternatives to report (0 = only the chosen token).
  int n_logprobs = -1;
  STRATA_RETURN_IF_ERROR(read_int(body, "logprobs", 0, kMaxTopLogprobs, &n_logprobs));
  if (n_logprobs >= 0) {
    out.generate.sampling.logprobs = true;
    out.generate.sampling.n_top_logprobs = n_logprobs;
  }
  return out;
}

// "speculative": true (the server's --spec drafting, the default), false (none), or the most
// tokens to draft per step. The output is the same either way; only its speed changes.
static Status parse_speculative(const RequestJson& body, GenerateRequest* g) {
  const RequestJson* v = find_field(body, "speculative");
  if (v == nullptr) return Status::Ok();
  if (v->is_boolean()) {
    g->speculative_tokens = v->get<bool>() ? -1 : 0;
    return Status::Ok();
  }
  if (v->is_number_integer() && v->get<int64_t>() >= 0 && v->get<int64_t>() <= 32) {
    g->speculative_tokens = static_cast<int>(v->get<int64_t>());
    return Status::Ok();
  }
  return Status::InvalidArgument(
      fmt::format("'speculative' must be true, false or a number of draft tokens 0..32, got {}", describe_value(*v)));
}

Status parse_openai_common_fields(const RequestJson& body, CompletionRequest* out) {
  STRATA_RETURN_IF_ERROR(read_string(body, "model", &out->model));
  STRATA_RETURN_IF_ERROR(parse_n(body, &out->n_choices));
  STRATA_RETURN_IF_ERROR(read_int(body, "max_tokens", 1, kMaxTokensLimit, &out->max_tokens));
  STRATA_RETURN_IF_ERROR(
      read_int(body, "max_completion_tokens", 1, kMaxTokensLimit, &out->max_tokens));
  STRATA_RETURN_IF_ERROR(parse_openai_sampling(body, &out->generate.sampling));
  if (find_field(body, "seed")) {
    STRATA_RETURN_IF_ERROR(read_uint64(body, "seed", &out->generate.sampling.seed));
    out->seed_given = true;
  }
  STRATA_RETURN_IF_ERROR(read_string_list(body, "stop", kMaxStopStrings, &out->generate.stop));
  STRATA_RETURN_IF_ERROR(read_bool(body, "ignore_eos", &out->generate.ignore_eos));
  STRATA_RETURN_IF_ERROR(parse_speculative(body, &out->generate));
  STRATA_RETURN_IF_ERROR(read_bool(body, "stream", &out->stream));
  if (const RequestJson* opts = find_field(body, "stream_options")) {
    if (!opts->is_object()) {
      return Status::InvalidArgument(fmt::format("'stream_options' must be an object, got {}",
                                                 describe_value(*opts)));
    }
    STRATA_RETURN_IF_ERROR(read_bool(*opts, "include_usage", &out->include_usage));
  }
  STRATA_RETURN_IF_ERROR(parse_openai_output_format(body, out));
  // The legacy "functions" API is not offered; "tools" replaces it.
  return reject_if_set(body, "functions");
}

}  // namespace strata::server
