// What the markup parsers whose calls hold named text parameters share (tool_call_xml.cc:
// Qwen3-Coder's <function=NAME>; tool_call_minimax.cc: MiniMax-M2's <invoke name="NAME">): a
// call's run of parameters typed by the offered tools' schemas, and a body of calls read whole
// or not at all. Each parser keeps only its own tags. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/tool_call_parser.h"
#include "server/tool_call_text.h"
#include "server/tool_param_types.h"

namespace strata::server {

// Reads parameters with take_param(&text, &key, &value), markup space between them skipped, until
// *text starts with closer, then moves *text past closer. *out becomes name's call, each value
// typed by types (a key given twice keeps its last value). False when a parameter does not read.
template <typename TakeParam>
bool take_typed_call(std::string_view* text, std::string_view name, std::string_view closer,
                     const ToolParamTypes& types, TakeParam take_param, ParsedToolCall* out) {
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson arguments = OrderedJson::object();
  for (skip_markup_space(text); !text->starts_with(closer); skip_markup_space(text)) {
    std::string_view key, value;
    if (!take_param(text, &key, &value)) return false;
    arguments[std::string(key)] = types.typed_argument(name, key, value);
  }
  text->remove_prefix(closer.size());
  out->name = std::string(name);
  out->arguments_json = arguments.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  out->arguments_raw = false;
  return true;
}

// body's calls, each read by take_call(&body, &call) with markup space around them, appended to
// *out; false (*out untouched) when body holds no call, or anything that does not read as one.
template <typename TakeCall>
bool take_all_calls(std::string_view body, TakeCall take_call, std::vector<ParsedToolCall>* out) {
  std::vector<ParsedToolCall> calls;
  for (skip_markup_space(&body); !body.empty(); skip_markup_space(&body)) {
    ParsedToolCall call;
    if (!take_call(&body, &call)) return false;
    calls.push_back(std::move(call));
  }
  if (calls.empty()) return false;
  for (ParsedToolCall& call : calls) out->push_back(std::move(call));
  return true;
}

}  // namespace strata::server
