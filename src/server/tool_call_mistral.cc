#include "server/tool_call_mistral.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "server/tool_call_text.h"

namespace strata::server {

namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr std::string_view kMistralArgs = "[ARGS]";
constexpr std::string_view kMistralCallId = "[CALL_ID]";
// A name or an id longer than this, still without its [ARGS], is no call.
constexpr size_t kMistralMaxNameBytes = 256;

// A function name or a call id: no whitespace, no markup brackets, braces or quotes.
bool is_mistral_word(std::string_view text) {
  return is_markup_function_name(text) && text.find_first_of("[]{}\"") == std::string_view::npos;
}

// Whether `word`, a name or id not yet followed by its tag, may still become one: it is short
// enough and, trimmed of the whitespace before it and of a tag maybe begun at its end, holds
// nothing a word cannot (whitespace may only trail it).
bool may_become_mistral_word(std::string_view word) {
  if (word.size() > kMistralMaxNameBytes) return false;
  const size_t bracket = word.find('[');
  if (bracket != std::string_view::npos) {
    const std::string_view tail = word.substr(bracket);
    if (!kMistralArgs.starts_with(tail) && !kMistralCallId.starts_with(tail)) return false;
    word = word.substr(0, bracket);
  }
  word = trim_markup_space(word);
  return word.empty() || is_mistral_word(word);
}

// The older form right after the opener: a JSON array of call objects (or one object).
MistralCallScan scan_mistral_json_calls(std::string_view rest, size_t offset, std::vector<ParsedToolCall>* calls,
                                        size_t* consumed) {
  const size_t length = json_container_length(rest.substr(offset));
  if (length == std::string_view::npos) return MistralCallScan::kNeedMore;
  std::vector<ParsedToolCall> parsed;
  if (!parse_json_tool_calls(rest.substr(offset, length), &parsed)) return MistralCallScan::kNotACall;
  for (ParsedToolCall& call : parsed) calls->push_back(std::move(call));
  *consumed = offset + length;
  return MistralCallScan::kCall;
}

// The arguments after [ARGS] (at `offset` of rest): a JSON object, compact, keys in order.
MistralCallScan scan_mistral_arguments(std::string_view rest, size_t offset, std::string* arguments,
                                       size_t* consumed) {
  const size_t start = rest.find_first_not_of(kMarkupSpace, offset);
  if (start == std::string_view::npos) return MistralCallScan::kNeedMore;
  if (rest[start] != '{') return MistralCallScan::kNotACall;
  const size_t length = json_container_length(rest.substr(start));
  if (length == std::string_view::npos) return MistralCallScan::kNeedMore;
  const OrderedJson parsed = OrderedJson::parse(rest.substr(start, length), nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return MistralCallScan::kNotACall;
  *arguments = parsed.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
  *consumed = start + length;
  return MistralCallScan::kCall;
}

}  // namespace

size_t json_container_length(std::string_view text) {
  if (text.empty() || (text.front() != '{' && text.front() != '[')) return 0;
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

MistralCallScan scan_mistral_call(std::string_view rest, std::vector<ParsedToolCall>* calls, size_t* consumed) {
  const size_t first = rest.find_first_not_of(kMarkupSpace);
  if (first == std::string_view::npos) return MistralCallScan::kNeedMore;
  if (rest[first] == '{' || (rest[first] == '[' && !kMistralArgs.starts_with(rest.substr(first, kMistralArgs.size())) &&
                             !kMistralCallId.starts_with(rest.substr(first, kMistralCallId.size())))) {
    return scan_mistral_json_calls(rest, first, calls, consumed);
  }
  const size_t args = rest.find(kMistralArgs);
  const size_t id_tag = rest.find(kMistralCallId);
  const size_t name_end = std::min(args, id_tag);
  if (name_end == std::string_view::npos) {
    return may_become_mistral_word(rest) ? MistralCallScan::kNeedMore : MistralCallScan::kNotACall;
  }
  ParsedToolCall call;
  call.name = std::string(trim_markup_space(rest.substr(0, name_end)));
  if (!is_mistral_word(call.name)) return MistralCallScan::kNotACall;
  if (id_tag < args) {
    const size_t id_start = id_tag + kMistralCallId.size();
    if (args == std::string_view::npos) {
      return may_become_mistral_word(rest.substr(id_start)) ? MistralCallScan::kNeedMore : MistralCallScan::kNotACall;
    }
    call.id = std::string(trim_markup_space(rest.substr(id_start, args - id_start)));
    if (!is_mistral_word(call.id)) return MistralCallScan::kNotACall;
  }
  size_t end = 0;
  const MistralCallScan scan = scan_mistral_arguments(rest, args + kMistralArgs.size(), &call.arguments_json, &end);
  if (scan != MistralCallScan::kCall) return scan;
  calls->push_back(std::move(call));
  *consumed = end;
  return MistralCallScan::kCall;
}

}  // namespace strata::server
