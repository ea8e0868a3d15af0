#include "server/tool_call_cohere.h"

#include <string>
#include <utility>

#include "server/request_json.h"

namespace strata::server {

namespace {

// One {"tool_call_id", "tool_name", "parameters"} object as a call.
bool parse_cohere_call(const RequestJson& item, ParsedToolCall* out) {
  if (!item.is_object()) return false;
  const auto name = item.find("tool_name");
  if (name == item.end() || !name->is_string() || name->get<std::string>().empty()) return false;
  const auto params = item.find("parameters");
  RequestJson arguments = RequestJson::object();
  bool raw = false;
  if (params != item.end() && params->is_string()) {
    arguments = parse_ordered_json(params->get<std::string>()).value;
    raw = !arguments.is_object();  // a string that is not an object: the call's raw arguments
  } else if (params != item.end() && !params->is_null()) {
    if (!params->is_object()) return false;
    arguments = *params;
  }
  out->name = name->get<std::string>();
  out->arguments_raw = raw;
  out->arguments_json =
      raw ? params->get<std::string>() : arguments.dump(-1, ' ', false, RequestJson::error_handler_t::replace);
  out->id.clear();
  return true;
}

}  // namespace

bool parse_cohere_action(std::string_view body, std::vector<ParsedToolCall>* out) {
  const RequestJson calls = parse_ordered_json(body).value;
  if (!calls.is_array() || calls.empty()) return false;
  std::vector<ParsedToolCall> parsed;
  for (const RequestJson& item : calls) {
    ParsedToolCall call;
    if (!parse_cohere_call(item, &call)) return false;
    parsed.push_back(std::move(call));
  }
  for (ParsedToolCall& call : parsed) out->push_back(std::move(call));
  return true;
}

}  // namespace strata::server
