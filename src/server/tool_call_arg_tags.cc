#include "server/tool_call_arg_tags.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>

#include "server/tool_call_text.h"

namespace strata::server {

namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kKeyOpen = "<arg_key>";
constexpr std::string_view kKeyClose = "</arg_key>";
constexpr std::string_view kValueOpen = "<arg_value>";
constexpr std::string_view kValueClose = "</arg_value>";


// The text between open and close at the start of *text (after whitespace), which then moves
// past close; nullopt when *text does not start so.
std::optional<std::string_view> take_tagged(std::string_view* text, std::string_view open, std::string_view close) {
  skip_markup_space(text);
  if (!text->starts_with(open)) return std::nullopt;
  const size_t end = text->find(close, open.size());
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view inside = text->substr(open.size(), end - open.size());
  text->remove_prefix(end + close.size());
  return inside;
}

// A JSON value as written, else the text as a string.
OrderedJson arg_value(std::string_view text) {
  OrderedJson parsed = OrderedJson::parse(trim_markup_space(text), nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? OrderedJson(std::string(text)) : parsed;
}


}  // namespace

bool parse_arg_tag_call(std::string_view body, ParsedToolCall* out) {
  const size_t first_key = body.find(kKeyOpen);
  const std::string_view name = trim_markup_space(body.substr(0, first_key));
  if (!is_markup_function_name(name)) return false;
  std::string_view rest = first_key == std::string_view::npos ? std::string_view() : body.substr(first_key);
  OrderedJson arguments = OrderedJson::object();
  for (skip_markup_space(&rest); !rest.empty(); skip_markup_space(&rest)) {
    const std::optional<std::string_view> key = take_tagged(&rest, kKeyOpen, kKeyClose);
    if (!key) return false;
    const std::optional<std::string_view> value = take_tagged(&rest, kValueOpen, kValueClose);
    if (!value) return false;
    arguments[std::string(*key)] = arg_value(*value);
  }
  out->name = std::string(name);
  out->arguments_json = arguments.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  out->arguments_raw = false;
  return true;
}

}  // namespace strata::server
