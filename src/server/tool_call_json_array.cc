#include "server/tool_call_json_array.h"

#include <string>
#include <utility>

#include "server/request_json.h"

namespace strata::server {

namespace {

// One call object as a call.
bool parse_json_call(const RequestJson& item, JsonCallKeys keys, ParsedToolCall* out) {
  if (!item.is_object()) return false;
  const auto name = item.find(keys.name);
  if (name == item.end() || !name->is_string() || name->get<std::string>().empty()) return false;
  const auto args = item.find(keys.arguments);
  RequestJson arguments = RequestJson::object();
  bool raw = false;
  if (args != item.end() && args->is_string()) {
    arguments = parse_ordered_json(args->get<std::string>()).value;
    raw = !arguments.is_object();  // a string that is not an object: the call's raw arguments
  } else if (args != item.end() && !args->is_null()) {
    if (!args->is_object()) return false;
    arguments = *args;
  }
  out->name = name->get<std::string>();
  out->arguments_raw = raw;
  out->arguments_json =
      raw ? args->get<std::string>() : arguments.dump(-1, ' ', false, RequestJson::error_handler_t::replace);
  out->id.clear();
  return true;
}

}  // namespace

bool parse_json_call_array(std::string_view body, JsonCallKeys keys, std::vector<ParsedToolCall>* out) {
  const RequestJson calls = parse_ordered_json(body).value;
  if (!calls.is_array() || calls.empty()) return false;
  std::vector<ParsedToolCall> parsed;
  for (const RequestJson& item : calls) {
    ParsedToolCall call;
    if (!parse_json_call(item, keys, &call)) return false;
    parsed.push_back(std::move(call));
  }
  for (ParsedToolCall& call : parsed) out->push_back(std::move(call));
  return true;
}

}  // namespace strata::server
