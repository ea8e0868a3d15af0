#include "chat/chat_template_probe.h"

#include <string>
#include <string_view>
#include <vector>

namespace strata {

namespace {

using nlohmann::json;

constexpr char kProbeTool[] = "strata_probe_tool";
// How the argument's key reads when the arguments are written as JSON (not JSON text quoted
// again, where its quotes would be escaped).
constexpr char kProbeKeyAsJson[] = "\"strata_probe_argument\":";

// Nine alphanumeric characters: an id Mistral's templates, which demand that form, take.
constexpr char kProbeCallId[] = "probe0001";

json probe_arguments() { return {{"strata_probe_argument", "probe"}}; }

// Whether out shows the probe's argument key as a template that reads arguments writes it: as a
// JSON key, or bare (Gemma 4's KEY:VALUE notation); a Python repr of a dict printed whole
// ('strata_probe_argument') is a template that reads arguments as text.
bool shows_probe_key(const std::string& out) {
  if (out.find(kProbeKeyAsJson) != std::string::npos) return true;
  constexpr std::string_view kKey = "strata_probe_argument";
  for (size_t at = out.find(kKey); at != std::string::npos; at = out.find(kKey, at + 1)) {
    if (at == 0 || (out[at - 1] != '\'' && out[at - 1] != '"' && out[at - 1] != '\\')) return true;
  }
  return false;
}

// True when a user turn followed by one call with these arguments and this content renders,
// showing the call's name and its arguments written as JSON (or, as objects, in the template's
// own notation: shows_probe_key()).
bool renders_probe_call(const ChatTemplate& chat_template, const json& arguments, const json& content) {
  const json call = {{"id", kProbeCallId},
                     {"type", "function"},
                     {"function", {{"name", kProbeTool}, {"arguments", arguments}}}};
  const std::vector<ChatMessage> messages = {
      {"user", "Hi", nullptr},
      {"assistant", "", {{"content", content}, {"tool_calls", json::array({call})}}}};
  Result<std::string> out = chat_template.apply(messages, /*add_generation_prompt=*/false, "", "");
  if (!out.ok() || out->find(kProbeTool) == std::string::npos) return false;
  return arguments.is_object() ? shows_probe_key(*out) : out->find(kProbeKeyAsJson) != std::string::npos;
}

// Renders with either content, "" or null.
bool renders_probe_call(const ChatTemplate& chat_template, const json& arguments) {
  return renders_probe_call(chat_template, arguments, "") || renders_probe_call(chat_template, arguments, nullptr);
}

}  // namespace

ToolCallTurnForm probe_tool_call_turn_form(const ChatTemplate& chat_template) {
  ToolCallTurnForm form;
  if (chat_template.is_fallback()) return form;
  const json as_object = probe_arguments();
  const json as_text = as_object.dump();
  if (renders_probe_call(chat_template, as_object)) return form;
  if (!renders_probe_call(chat_template, as_text)) return form;
  form.arguments_as_text = true;
  form.null_content =
      !renders_probe_call(chat_template, as_text, "") && renders_probe_call(chat_template, as_text, nullptr);
  return form;
}


namespace {

// A user turn, one call with this id, and its result.
bool renders_call_history_with_id(const ChatTemplate& chat_template, const std::string& id) {
  const json call = {{"id", id},
                     {"type", "function"},
                     {"function", {{"name", kProbeTool}, {"arguments", probe_arguments()}}}};
  const std::vector<ChatMessage> messages = {{"user", "Hi", nullptr},
                                             {"assistant", "", {{"tool_calls", json::array({call})}}},
                                             {"tool", "probe result", {{"tool_call_id", id}}}};
  return chat_template.apply(messages, /*add_generation_prompt=*/false, "", "").ok();
}

}  // namespace

bool requires_nine_character_call_ids(const ChatTemplate& chat_template) {
  if (chat_template.is_fallback()) return false;
  return !renders_call_history_with_id(chat_template, "call_0123456789abcdefghijklmn") &&
         renders_call_history_with_id(chat_template, kProbeCallId);
}

bool renders_thinking_chunks(const ChatTemplate& chat_template) {
  if (chat_template.is_fallback()) return false;
  constexpr char kThought[] = "strata_probe_thought";
  const json chunks = json::array({{{"type", "thinking"}, {"thinking", kThought}}, {{"type", "text"}, {"text", "ok"}}});
  const std::vector<ChatMessage> as_chunks = {{"user", "Hi", nullptr}, {"assistant", "", {{"content", chunks}}}};
  const std::vector<ChatMessage> as_fields = {
      {"user", "Hi", nullptr}, {"assistant", "ok", {{"reasoning_content", kThought}, {"thinking", kThought}}}};
  // Shown as text: a template that prints the content whole (Command R7B's) prints the chunks'
  // dicts, keys and all, and reads no chunk.
  const auto shows_thought = [&](const std::vector<ChatMessage>& messages) {
    Result<std::string> out = chat_template.apply(messages, /*add_generation_prompt=*/false, "", "");
    return out.ok() && out->find(kThought) != std::string::npos && out->find("'thinking'") == std::string::npos &&
           out->find("\"thinking\"") == std::string::npos;
  };
  return shows_thought(as_chunks) && !shows_thought(as_fields);
}

namespace {

constexpr char kExampleTool[] = "tool_name";
constexpr char kExampleValue[] = "some_value";
// The example's arguments as JSON text, spaced as Python's json.dumps writes them.
constexpr char kExampleArgumentsText[] = "{\"arg1\": \"some_value\"}";

std::vector<ChatMessage> example_call_turns(const ToolCallTurnForm& form) {
  const json arguments = form.arguments_as_text ? json(kExampleArgumentsText) : json{{"arg1", kExampleValue}};
  const json call = {{"id", "call_1___"},
                     {"type", "function"},
                     {"function", {{"name", kExampleTool}, {"arguments", arguments}}}};
  return {{"user", "Hey", nullptr}, {"assistant", "", {{"content", nullptr}, {"tool_calls", json::array({call})}}}};
}

// Drops a trailing eos_text where minja does: when it sits where the prefix would end it, or just
// before a final newline.
void drop_example_eos(const std::string& prefix, const std::string& eos_text, std::string* full) {
  if (eos_text.empty()) return;
  const size_t last = full->rfind(eos_text);
  if (last == std::string::npos) return;
  const bool at_prefix_end = prefix.size() >= eos_text.size() && last == prefix.size() - eos_text.size();
  const bool before_newline = !full->empty() && full->back() == '\n' && last + eos_text.size() + 1 == full->size();
  if (at_prefix_end || before_newline) full->resize(last);
}

// Bytes of the common prefix that count: a shared '<' is left to the tail.
size_t counted_common_prefix(const std::string& a, const std::string& b) {
  size_t counted = 0;
  for (size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) {
    if (a[i] != '<') counted = i + 1;
  }
  return counted;
}

}  // namespace

bool opens_reasoning_switched_off(const ChatTemplate& chat_template) {
  if (chat_template.is_fallback()) return false;
  const std::vector<ChatMessage> messages = {{"user", "Hi", nullptr}};
  Result<std::string> out = chat_template.apply(messages, /*add_generation_prompt=*/true, "", "",
                                                json{{"enable_thinking", false}});
  return out.ok() && out->ends_with("<think>\n");
}

bool renders_offered_tools(const ChatTemplate& chat_template) {
  if (chat_template.is_fallback()) return false;
  const json tool = {{"type", "function"},
                     {"function",
                      {{"name", kProbeTool},
                       {"description", "A probe tool."},
                       {"parameters", {{"type", "object"}, {"properties", json::object()}}}}}};
  const std::vector<ChatMessage> messages = {{"user", "Hi", nullptr}};
  Result<std::string> out = chat_template.apply(messages, /*add_generation_prompt=*/false, "", "",
                                                json{{"tools", json::array({tool})}});
  return out.ok() && out->find(kProbeTool) != std::string::npos;
}

std::string probe_tool_call_example(const ChatTemplate& chat_template, const ToolCallTurnForm& form,
                                    const std::string& bos_text, const std::string& eos_text) {
  const std::vector<ChatMessage> turns = example_call_turns(form);
  Result<std::string> prefix = chat_template.apply({turns.front()}, /*add_generation_prompt=*/true, bos_text, eos_text);
  Result<std::string> full = chat_template.apply(turns, /*add_generation_prompt=*/false, bos_text, eos_text);
  if (!prefix.ok() || !full.ok()) return "";
  drop_example_eos(*prefix, eos_text, &*full);
  std::string example = full->substr(counted_common_prefix(*prefix, *full));
  if (example.find(kExampleTool) == std::string::npos && example.find(kExampleValue) == std::string::npos) return "";
  return example;
}

}  // namespace strata
