#include "server/tool_call_kimi.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "server/tool_call_text.h"

namespace strata::server {

namespace {

constexpr std::string_view kKimiArgumentBegin = "<|tool_call_argument_begin|>";
constexpr std::string_view kKimiIdPrefix = "functions.";

bool is_kimi_call_index(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// One call's body, after its <|tool_call_begin|>: "ID<|tool_call_argument_begin|>ARGS".
bool parse_kimi_call_body(std::string_view body, ParsedToolCall* out) {
  const size_t sep = body.find(kKimiArgumentBegin);
  if (sep == std::string_view::npos) return false;
  const std::string_view name = kimi_function_name(body.substr(0, sep));
  std::optional<std::string> arguments = markup_object_arguments(body.substr(sep + kKimiArgumentBegin.size()));
  if (name.empty() || !arguments) return false;
  out->name = std::string(name);
  out->arguments_json = std::move(*arguments);
  out->arguments_raw = false;
  return true;
}

}  // namespace

std::string_view kimi_function_name(std::string_view call_id) {
  std::string_view name = trim_markup_space(call_id);
  if (name.starts_with(kKimiIdPrefix)) name.remove_prefix(kKimiIdPrefix.size());
  const size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && is_kimi_call_index(name.substr(colon + 1))) name = name.substr(0, colon);
  return is_markup_function_name(name) ? name : std::string_view();
}

bool parse_kimi_calls(std::string_view section, std::vector<ParsedToolCall>* out) {
  std::vector<ParsedToolCall> calls;
  std::string_view rest = section;
  skip_markup_space(&rest);
  while (!rest.empty()) {
    if (!rest.starts_with(kKimiCallBegin)) return false;
    rest.remove_prefix(kKimiCallBegin.size());
    // The call runs to its end tag, or, that missing, to the next call or the end of the section.
    const size_t end = rest.find(kKimiCallEnd);
    const size_t stop = std::min({end, rest.find(kKimiCallBegin), rest.size()});
    ParsedToolCall call;
    if (!parse_kimi_call_body(rest.substr(0, stop), &call)) return false;
    calls.push_back(std::move(call));
    rest.remove_prefix(stop == end ? end + kKimiCallEnd.size() : stop);
    skip_markup_space(&rest);
  }
  if (calls.empty()) return false;
  for (ParsedToolCall& call : calls) out->push_back(std::move(call));
  return true;
}

bool parse_kimi_lone_call(std::string_view body, std::vector<ParsedToolCall>* out) {
  ParsedToolCall call;
  if (!parse_kimi_call_body(body, &call)) return false;
  out->push_back(std::move(call));
  return true;
}

}  // namespace strata::server
