#include "server/tool_prompt.h"

#include <string>
#include <utility>

namespace strata::server {

namespace {

std::string dump(const RequestJson& value) { return value.dump(-1, ' ', false, RequestJson::error_handler_t::replace); }

std::string tools_preamble(const RequestJson& tools) {
  std::string text = "# Tools\n\nYou may call functions. Their signatures are inside <tools></tools>:\n<tools>";
  for (const RequestJson& tool : tools) text += "\n" + dump(tool);
  text +=
      "\n</tools>\n\nTo call one, answer with\n<tool_call>\n"
      "{\"name\": <function-name>, \"arguments\": <args-RequestJson-object>}\n</tool_call>";
  return text;
}

std::string calls_as_text(const ChatTurn& turn) {
  std::string text = turn.content;
  const RequestJson* calls = nullptr;
  if (turn.extra.is_object() && turn.extra.contains("tool_calls")) calls = &turn.extra["tool_calls"];
  if (!calls || !calls->is_array()) return text;
  for (const RequestJson& call : *calls) {
    const RequestJson& function = call.contains("function") ? call["function"] : call;
    const RequestJson arguments = function.contains("arguments") ? function["arguments"] : RequestJson::object();
    if (!text.empty()) text += "\n";
    // Written by hand so that "name" comes first, as models trained on this form expect.
    text += "<tool_call>\n{\"name\": " + dump(function.value("name", "")) +
            ", \"arguments\": " + dump(arguments) + "}\n</tool_call>";
  }
  return text;
}

}  // namespace

std::vector<ChatTurn> tools_as_text(const std::vector<ChatTurn>& turns, const RequestJson& tools) {
  std::vector<ChatTurn> out;
  const bool have_tools = tools.is_array() && !tools.empty();
  if (have_tools && (turns.empty() || turns.front().role != "system")) {
    out.push_back({"system", tools_preamble(tools), nullptr});
  }
  bool after_tool = false;  // the last turn in out holds tool results
  for (const ChatTurn& turn : turns) {
    if (turn.role == "tool") {
      std::string block = "<tool_response>\n" + turn.content + "\n</tool_response>";
      if (after_tool) {
        out.back().content += "\n" + block;
      } else {
        out.push_back({"user", std::move(block), nullptr});
      }
      after_tool = true;
      continue;
    }
    after_tool = false;
    ChatTurn plain{turn.role, calls_as_text(turn), nullptr};
    if (have_tools && out.empty() && turn.role == "system") {
      plain.content += "\n\n" + tools_preamble(tools);
    }
    out.push_back(std::move(plain));
  }
  return out;
}

std::vector<ChatTurn> tools_in_system_turn(const std::vector<ChatTurn>& turns, const RequestJson& tools,
                                           const std::string& call_example) {
  if (!tools.is_array() || tools.empty()) return turns;
  std::string text = "You can call any of the following tools to satisfy the user's requests: " +
                     tools.dump(2, ' ', false, RequestJson::error_handler_t::replace);
  if (!call_example.empty()) text += "\n\nExample tool call syntax:\n\n" + call_example + "\n\n";
  std::vector<ChatTurn> out = turns;
  if (!out.empty() && out.front().role == "system") {
    out.front().content += "\n\n" + text;
  } else {
    out.insert(out.begin(), ChatTurn{"system", std::move(text), nullptr});
  }
  return out;
}

}  // namespace strata::server
