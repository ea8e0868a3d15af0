#include "server/tool_call_lfm2.h"

#include <string>
#include <utility>

#include "server/python_literal.h"
#include "server/request_json.h"
#include "server/tool_call_json_array.h"

namespace strata::server {

namespace {

// NAME(KEY=VALUE, ...) at the reader's position.
bool read_lfm2_call(PythonLiteralReader* reader, ParsedToolCall* out) {
  std::string name;
  if (!reader->read_name(&name) || !reader->take('(')) return false;
  RequestJson arguments = RequestJson::object();
  while (!reader->take(')')) {
    std::string key;
    RequestJson value;
    if (!reader->read_name(&key) || !reader->take('=')) return false;  // positional, or not an argument
    if (arguments.size() >= kMaxObjectKeys || arguments.contains(key)) return false;
    if (!reader->read_value(&value)) return false;
    arguments[key] = std::move(value);
    if (reader->take(')')) break;
    if (!reader->take(',')) return false;
  }
  out->name = std::move(name);
  out->arguments_json = arguments.dump(-1, ' ', false, RequestJson::error_handler_t::replace);
  out->arguments_raw = false;
  out->id.clear();
  return true;
}

// [call, call, ...] (or the calls without the brackets) and nothing after.
bool parse_lfm2_python_calls(std::string_view body, std::vector<ParsedToolCall>* out) {
  PythonLiteralReader reader(body);
  const bool bracketed = reader.take('[');
  if (bracketed && reader.take(']')) return false;  // an empty list holds no call
  for (;;) {
    ParsedToolCall call;
    if (!read_lfm2_call(&reader, &call)) return false;
    out->push_back(std::move(call));
    if (bracketed && reader.take(']')) break;
    if (!reader.take(',')) {
      if (bracketed) return false;
      break;
    }
    if (bracketed && reader.take(']')) break;  // a trailing comma
  }
  reader.skip_space();
  return reader.at_end();
}

}  // namespace

bool parse_lfm2_calls(std::string_view body, std::vector<ParsedToolCall>* out) {
  std::vector<ParsedToolCall> calls;
  if (!parse_lfm2_python_calls(body, &calls)) {
    calls.clear();
    if (!parse_json_call_array(body, {"name", "arguments"}, &calls)) return false;
  }
  for (ParsedToolCall& call : calls) out->push_back(std::move(call));
  return true;
}

}  // namespace strata::server
