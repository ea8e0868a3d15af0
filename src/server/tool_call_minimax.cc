#include "server/tool_call_minimax.h"

#include <string>

#include "server/tool_call_params.h"
#include "server/tool_call_text.h"

namespace strata::server {

namespace {

constexpr std::string_view kMiniMaxInvokeOpener = "<invoke name=";
constexpr std::string_view kMiniMaxInvokeCloser = "</invoke>";
constexpr std::string_view kMiniMaxParamOpener = "<parameter name=";
constexpr std::string_view kMiniMaxParamCloser = "</parameter>";
// The ASCII whitespace Python's str.strip() takes off both ends of a value.
constexpr std::string_view kMiniMaxValueSpace = " \t\r\n\v\f";

std::string_view trim_minimax_value(std::string_view value) {
  const size_t first = value.find_first_not_of(kMiniMaxValueSpace);
  if (first == std::string_view::npos) return {};
  return value.substr(first, value.find_last_not_of(kMiniMaxValueSpace) - first + 1);
}

// The name in a `name=` attribute's text: trimmed, then one pair of matching quotes taken off.
std::string_view minimax_attribute_name(std::string_view text) {
  text = trim_markup_space(text);
  const bool quoted = text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front();
  return quoted ? text.substr(1, text.size() - 2) : text;
}

// A tag at the start of *text that begins with prefix and ends at the next '>': its name (not
// empty, no quote, '<' or line break), and *text moves past it. False, *text untouched, otherwise.
bool take_minimax_tag(std::string_view* text, std::string_view prefix, std::string_view* name) {
  if (!text->starts_with(prefix)) return false;
  const size_t end = text->find('>', prefix.size());
  if (end == std::string_view::npos) return false;
  *name = minimax_attribute_name(text->substr(prefix.size(), end - prefix.size()));
  if (name->empty() || name->find_first_of("\"'<\r\n") != std::string_view::npos) return false;
  text->remove_prefix(end + 1);
  return true;
}

// A parameter at the start of *text, which then moves past its closing tag.
bool take_minimax_parameter(std::string_view* text, std::string_view* key, std::string_view* value) {
  std::string_view rest = *text;
  if (!take_minimax_tag(&rest, kMiniMaxParamOpener, key)) return false;
  const size_t end = rest.find(kMiniMaxParamCloser);
  if (end == std::string_view::npos) return false;
  *value = trim_minimax_value(rest.substr(0, end));
  rest.remove_prefix(end + kMiniMaxParamCloser.size());
  *text = rest;
  return true;
}

// An invoke at the start of *text, which then moves past its closing tag.
bool take_minimax_invoke(std::string_view* text, const ToolParamTypes& types, ParsedToolCall* out) {
  std::string_view name;
  if (!take_minimax_tag(text, kMiniMaxInvokeOpener, &name) || !is_markup_function_name(name)) return false;
  return take_typed_call(text, name, kMiniMaxInvokeCloser, types, take_minimax_parameter, out);
}

}  // namespace

bool parse_minimax_invokes(std::string_view body, const ToolParamTypes& types, std::vector<ParsedToolCall>* out) {
  auto take = [&types](std::string_view* text, ParsedToolCall* call) { return take_minimax_invoke(text, types, call); };
  return take_all_calls(body, take, out);
}

}  // namespace strata::server
