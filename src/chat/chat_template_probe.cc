#include "chat/chat_template_probe.h"

#include <string>
#include <vector>

namespace strata {

namespace {

using nlohmann::json;

constexpr char kProbeTool[] = "strata_probe_tool";
// How the argument's key reads when the arguments are written as JSON (not JSON text quoted
// again, where its quotes would be escaped).
constexpr char kProbeKeyAsJson[] = "\"strata_probe_argument\":";

json probe_arguments() { return {{"strata_probe_argument", "probe"}}; }

// True when a user turn followed by one call with these arguments and this content renders,
// showing the call's name and its arguments written as JSON.
bool renders_probe_call(const ChatTemplate& chat_template, const json& arguments, const json& content) {
  const json call = {{"id", "call_probe"},
                     {"type", "function"},
                     {"function", {{"name", kProbeTool}, {"arguments", arguments}}}};
  const std::vector<ChatMessage> messages = {
      {"user", "Hi", nullptr},
      {"assistant", "", {{"content", content}, {"tool_calls", json::array({call})}}}};
  Result<std::string> out = chat_template.apply(messages, /*add_generation_prompt=*/false, "", "");
  return out.ok() && out->find(kProbeTool) != std::string::npos && out->find(kProbeKeyAsJson) != std::string::npos;
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

}  // namespace strata
