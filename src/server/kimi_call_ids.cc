#include "server/kimi_call_ids.h"

#include <map>
#include <string>

namespace strata::server {

namespace {

constexpr char kKimiProbeTool[] = "strata_probe_tool";

ChatMessage kimi_probe_call_turn(const std::string& id) {
  const nlohmann::ordered_json call = {{"id", id},
                     {"type", "function"},
                     {"function", {{"name", kKimiProbeTool}, {"arguments", nlohmann::ordered_json::object()}}}};
  return {"assistant", "", {{"tool_calls", nlohmann::ordered_json::array({call})}}};
}

ChatMessage kimi_probe_result(const std::string& id) { return {"tool", "ok", {{"tool_call_id", id}}}; }

std::string kimi_function_name_of(const nlohmann::ordered_json& call) {
  const auto function = call.find("function");
  if (function == call.end() || !function->is_object()) return "unknown";
  const auto name = function->find("name");
  return name != function->end() && name->is_string() ? name->get<std::string>() : "unknown";
}

// One assistant turn's calls renamed; n_calls counts the conversation's calls so far.
void number_kimi_turn_calls(KimiCallNumbering numbering, nlohmann::ordered_json* calls, size_t* n_calls,
                            std::map<std::string, std::string>* renamed) {
  size_t in_turn = 0;
  for (nlohmann::ordered_json& call : *calls) {
    if (!call.is_object()) continue;
    const size_t index = numbering == KimiCallNumbering::kPerTurn ? in_turn : *n_calls;
    std::string id = "functions." + kimi_function_name_of(call) + ":" + std::to_string(index);
    const auto old_id = call.find("id");
    if (old_id != call.end() && old_id->is_string()) (*renamed)[old_id->get<std::string>()] = id;
    call["id"] = std::move(id);
    ++in_turn;
    ++*n_calls;
  }
}

}  // namespace

KimiCallNumbering probe_kimi_call_numbering(const ChatTemplate& chat_template) {
  const std::vector<ChatMessage> messages = {{"user", "Hi", nullptr},
                                             kimi_probe_call_turn("call_probe_1"),
                                             kimi_probe_result("call_probe_1"),
                                             kimi_probe_call_turn("call_probe_2"),
                                             kimi_probe_result("call_probe_2")};
  Result<std::string> out = chat_template.apply(messages, /*add_generation_prompt=*/true, "", "");
  const std::string first = std::string("functions.") + kKimiProbeTool + ":0";
  const std::string second = std::string("functions.") + kKimiProbeTool + ":1";
  const bool per_turn = out.ok() && out->find(first) != std::string::npos && out->find(second) == std::string::npos;
  return per_turn ? KimiCallNumbering::kPerTurn : KimiCallNumbering::kConversation;
}

void number_kimi_calls(KimiCallNumbering numbering, std::vector<ChatMessage>* messages) {
  if (numbering == KimiCallNumbering::kNone) return;
  std::map<std::string, std::string> renamed;  // the client's id -> the call's new id
  size_t n_calls = 0;
  for (ChatMessage& message : *messages) {
    if (!message.extra.is_object()) continue;
    if (message.role == "assistant") {
      const auto calls = message.extra.find("tool_calls");
      if (calls != message.extra.end() && calls->is_array()) {
        number_kimi_turn_calls(numbering, &*calls, &n_calls, &renamed);
      }
      continue;
    }
    const auto id = message.extra.find("tool_call_id");
    if (message.role != "tool" || id == message.extra.end() || !id->is_string()) continue;
    const auto found = renamed.find(id->get<std::string>());
    if (found != renamed.end()) *id = found->second;
  }
}

}  // namespace strata::server
