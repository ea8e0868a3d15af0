// Text helpers the tool-call markup parsers share (tool_call_arg_tags.cc, tool_call_deepseek.cc,
// tool_call_kimi.cc): the whitespace they skip around markup, what they take as a function name,
// and arguments as a JSON object. Pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace strata::server {

// Space, tab, CR and LF: what a model writes between markup pieces.
inline constexpr std::string_view kMarkupSpace = " \t\r\n";

inline std::string_view trim_markup_space(std::string_view text) {
  const size_t first = text.find_first_not_of(kMarkupSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kMarkupSpace) - first + 1);
}

inline void skip_markup_space(std::string_view* text) {
  const size_t first = text->find_first_not_of(kMarkupSpace);
  text->remove_prefix(first == std::string_view::npos ? text->size() : first);
}

// A name that holds no whitespace and no markup bracket, and is not empty.
inline bool is_markup_function_name(std::string_view name) {
  return !name.empty() && name.find_first_of(" \t\r\n<>") == std::string_view::npos;
}

// text (whitespace around it allowed) as a JSON object with its keys in the model's order,
// compact; nullopt when it is anything else. Never throws.
inline std::optional<std::string> markup_object_arguments(std::string_view text) {
  using OrderedJson = nlohmann::ordered_json;
  OrderedJson parsed = OrderedJson::parse(trim_markup_space(text), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  return parsed.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace strata::server
