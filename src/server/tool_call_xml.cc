#include "server/tool_call_xml.h"

#include <string>

#include "server/tool_call_params.h"
#include "server/tool_call_text.h"

namespace strata::server {

namespace {

constexpr std::string_view kXmlParamOpener = "<parameter=";
constexpr std::string_view kXmlParamCloser = "</parameter>";

// A parameter at the start of *text, which then moves past its closing tag: its key (trimmed;
// not empty, no '<' or newline) and its value (one newline stripped at each end). False when
// *text does not start with a whole parameter.
bool take_xml_parameter(std::string_view* text, std::string_view* key, std::string_view* value) {
  if (!text->starts_with(kXmlParamOpener)) return false;
  const size_t key_end = text->find('>', kXmlParamOpener.size());
  if (key_end == std::string_view::npos) return false;
  *key = trim_markup_space(text->substr(kXmlParamOpener.size(), key_end - kXmlParamOpener.size()));
  if (key->empty() || key->find_first_of("<\n") != std::string_view::npos) return false;
  const size_t value_end = text->find(kXmlParamCloser, key_end + 1);
  if (value_end == std::string_view::npos) return false;
  std::string_view inside = text->substr(key_end + 1, value_end - key_end - 1);
  if (inside.starts_with('\n')) inside.remove_prefix(1);
  if (inside.ends_with('\n')) inside.remove_suffix(1);
  *value = inside;
  text->remove_prefix(value_end + kXmlParamCloser.size());
  return true;
}

// A function at the start of *text, which then moves past its closing tag.
bool take_xml_function(std::string_view* text, const ToolParamTypes& types, ParsedToolCall* out) {
  if (!text->starts_with(kXmlFunctionOpener)) return false;
  text->remove_prefix(kXmlFunctionOpener.size());
  const size_t name_end = text->find('>');
  if (name_end == std::string_view::npos) return false;
  const std::string_view name = trim_markup_space(text->substr(0, name_end));
  if (!is_markup_function_name(name)) return false;
  text->remove_prefix(name_end + 1);
  return take_typed_call(text, name, kXmlFunctionCloser, types, take_xml_parameter, out);
}

}  // namespace

bool parse_xml_function_calls(std::string_view body, const ToolParamTypes& types, std::vector<ParsedToolCall>* out) {
  auto take = [&types](std::string_view* text, ParsedToolCall* call) { return take_xml_function(text, types, call); };
  return take_all_calls(body, take, out);
}

}  // namespace strata::server
