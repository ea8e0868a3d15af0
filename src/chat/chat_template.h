// ChatTemplate: turns a conversation into the prompt text a model was trained on, by running
// the model's own Jinja chat template (GGUF key `tokenizer.chat_template`) the way Hugging
// Face transformers does (trim_blocks and lstrip_blocks on; raise_exception and strftime_now
// available; tojson as json.dumps).
//
// A ChatTemplate is immutable after construction; copies share the parsed template, and any
// number of threads may call apply() on the same object at once.
//
// The rendered text contains the model's special tokens as text (including bos_token when the
// template adds it): tokenize it with special tokens recognized and without adding another BOS.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "chat/jinja_render.h"

namespace strata {

namespace jinja {
struct Template;
}

struct ChatMessage {
  std::string role;     // "system", "user", "assistant", "tool"...
  std::string content;
  // Further message fields the template sees (tool_calls, name, reasoning_content...): a JSON
  // object whose keys are added to the message, taking precedence over role and content (so
  // {"content": null} gives an assistant tool-call message a null content). Null when unused.
  // Ordered: the template sees every object's keys in the order they were inserted (a client's
  // tool-call arguments as the client sent them).
  nlohmann::ordered_json extra;
};

class ChatTemplate {
 public:
  // Fails naming the line and column when the source is not a template this interpreter runs.
  static Result<ChatTemplate> Parse(std::string source);
  // The ChatML format (<|im_start|>role\ncontent<|im_end|>\n), the fallback for models
  // without a usable template; is_fallback() is true.
  static ChatTemplate ChatML();

  // Renders the conversation. `extra_context` (a JSON object, or null) supplies further
  // template variables such as tools, documents or enable_thinking; their objects reach the
  // template with their keys in insertion order (`tools|tojson` writes them so). Errors (a template's
  // raise_exception, bad data, limits) come back as a Status naming the template position.
  Result<std::string> apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                            const std::string& bos_token, const std::string& eos_token,
                            const nlohmann::ordered_json& extra_context = {}) const;
  // As above with explicit render options (the clock strftime_now reads, limits); the plain
  // overload uses the wall clock and default limits.
  Result<std::string> apply(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                            const std::string& bos_token, const std::string& eos_token,
                            const nlohmann::ordered_json& extra_context, const jinja::RenderOptions& options) const;

  const std::string& source() const { return source_; }
  bool is_fallback() const { return fallback_; }

 private:
  ChatTemplate(std::string source, std::shared_ptr<const jinja::Template> tmpl, bool fallback);

  std::string source_;
  std::shared_ptr<const jinja::Template> tmpl_;
  bool fallback_ = false;
};

// The model's template when it is present, parses, and renders a one-message conversation;
// otherwise ChatML, with a warning in the log saying why. Never fails.
ChatTemplate template_or_chatml(const std::optional<std::string>& source);

}  // namespace strata
