#include "chat/chat_template.h"

#include "base/clock.h"
#include "base/log.h"
#include "chat/jinja_json.h"
#include "chat/jinja_parser.h"

namespace strata {
namespace {

constexpr char kChatMLSource[] =
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

Result<jinja::Value> message_value(const ChatMessage& message) {
  jinja::Dict dict;
  dict.set("role", jinja::Value::String(message.role));
  dict.set("content", jinja::Value::String(message.content));
  if (message.extra.is_null()) return jinja::Value::MakeDict(std::move(dict));
  if (!message.extra.is_object()) {
    return Status::InvalidArgument("chat message extra fields must be a JSON object, got " +
                                   std::string(message.extra.type_name()));
  }
  for (const auto& [key, field] : message.extra.items()) {
    STRATA_ASSIGN_OR_RETURN(jinja::Value v, jinja::value_from_json(field));
    dict.set(key, std::move(v));
  }
  return jinja::Value::MakeDict(std::move(dict));
}

}  // namespace

ChatTemplate::ChatTemplate(std::string source, std::shared_ptr<const jinja::Template> tmpl, bool fallback)
    : source_(std::move(source)), tmpl_(std::move(tmpl)), fallback_(fallback) {}

Result<ChatTemplate> ChatTemplate::Parse(std::string source) {
  Result<std::unique_ptr<jinja::Template>> parsed = jinja::parse(source);
  if (!parsed.ok()) return Status(parsed.status().code(), "chat template: " + parsed.status().message());
  std::shared_ptr<const jinja::Template> tmpl = std::move(parsed).value();
  return ChatTemplate(std::move(source), std::move(tmpl), false);
}

ChatTemplate ChatTemplate::ChatML() {
  Result<ChatTemplate> parsed = Parse(kChatMLSource);
  ChatTemplate chatml = std::move(parsed).value();  // a constant that parses; covered by tests
  chatml.fallback_ = true;
  return chatml;
}

Result<std::string> ChatTemplate::apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                                        const std::string& bos_token, const std::string& eos_token,
                                        const nlohmann::ordered_json& extra_context) const {
  jinja::RenderOptions options;
  options.now_s = static_cast<int64_t>(wall_s());
  return apply(messages, add_generation_prompt, bos_token, eos_token, extra_context, options);
}

Result<std::string> ChatTemplate::apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                                        const std::string& bos_token, const std::string& eos_token,
                                        const nlohmann::ordered_json& extra_context,
                                        const jinja::RenderOptions& options) const {
  jinja::Dict context;
  if (!extra_context.is_null() && !extra_context.is_object()) {
    return Status::InvalidArgument("chat template context must be a JSON object, got " +
                                   std::string(extra_context.type_name()));
  }
  if (extra_context.is_object()) {
    for (const auto& [key, field] : extra_context.items()) {
      STRATA_ASSIGN_OR_RETURN(jinja::Value v, jinja::value_from_json(field));
      context.append_new_key(key, std::move(v));  // a JSON object's keys are unique
    }
  }
  jinja::Value::List message_values;
  for (const ChatMessage& message : messages) {
    STRATA_ASSIGN_OR_RETURN(jinja::Value v, message_value(message));
    message_values.push_back(std::move(v));
  }
  context.set("messages", jinja::Value::MakeInputList(std::move(message_values)));
  context.set("add_generation_prompt", jinja::Value::Bool(add_generation_prompt));
  context.set("bos_token", jinja::Value::String(bos_token));
  context.set("eos_token", jinja::Value::String(eos_token));
  Result<std::string> text = jinja::render(*tmpl_, context, options);
  if (!text.ok()) return Status(text.status().code(), "chat template: " + text.status().message());
  return text;
}

ChatTemplate template_or_chatml(const std::optional<std::string>& source) {
  if (!source) {
    STRATA_LOG_WARN("the model has no chat template (tokenizer.chat_template); using ChatML");
    return ChatTemplate::ChatML();
  }
  Result<ChatTemplate> parsed = ChatTemplate::Parse(*source);
  if (!parsed.ok()) {
    STRATA_LOG_WARN("cannot use the model's chat template ({}); using ChatML", parsed.status().message());
    return ChatTemplate::ChatML();
  }
  // A template that cannot render the simplest conversation would fail every request.
  Result<std::string> trial = parsed->apply({{"user", "Hello", nullptr}}, true, "", "");
  if (!trial.ok()) {
    STRATA_LOG_WARN("the model's chat template fails on a one-message conversation ({}); using ChatML",
                    trial.status().message());
    return ChatTemplate::ChatML();
  }
  return std::move(parsed).value();
}

}  // namespace strata
