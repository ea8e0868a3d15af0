#include "server/tool_call_deepseek.h"

#include <optional>
#include <string>
#include <utility>

#include "server/tool_call_text.h"

namespace strata::server {

namespace {

constexpr std::string_view kDeepSeekCallBegin = "<｜tool▁call▁begin｜>";
constexpr std::string_view kDeepSeekCallEnd = "<｜tool▁call▁end｜>";
constexpr std::string_view kDeepSeekToolSep = "<｜tool▁sep｜>";
constexpr std::string_view kDeepSeekFence = "```";

// R1's right-hand side: "NAME\n```json\nARGS\n```" (the language tag optional).
bool parse_deepseek_fenced_call(std::string_view type, std::string_view rest, ParsedToolCall* out) {
  if (trim_markup_space(type) != "function") return false;
  const size_t line_end = rest.find('\n');
  if (line_end == std::string_view::npos) return false;
  const std::string_view name = trim_markup_space(rest.substr(0, line_end));
  std::string_view fenced = trim_markup_space(rest.substr(line_end + 1));
  const bool is_fenced = fenced.size() >= 2 * kDeepSeekFence.size() && fenced.starts_with(kDeepSeekFence) &&
                         fenced.ends_with(kDeepSeekFence);
  if (!is_fenced) return false;
  fenced = fenced.substr(kDeepSeekFence.size(), fenced.size() - 2 * kDeepSeekFence.size());
  if (fenced.starts_with("json")) fenced.remove_prefix(4);
  const std::optional<std::string> arguments = markup_object_arguments(fenced);
  if (!is_markup_function_name(name) || !arguments) return false;
  out->name = std::string(name);
  out->arguments_json = *arguments;
  return true;
}

// One call's body (between its begin, when written, and <｜tool▁call▁end｜>).
bool parse_deepseek_call(std::string_view body, ToolCallSyntax syntax, ParsedToolCall* out) {
  body = trim_markup_space(body);
  if (body.starts_with(kDeepSeekCallBegin)) body.remove_prefix(kDeepSeekCallBegin.size());
  const size_t sep = body.find(kDeepSeekToolSep);
  if (sep == std::string_view::npos) return false;
  const std::string_view left = body.substr(0, sep);
  const std::string_view right = body.substr(sep + kDeepSeekToolSep.size());
  ParsedToolCall call;
  if (syntax == ToolCallSyntax::kDeepSeekR1) {
    if (!parse_deepseek_fenced_call(left, right, &call)) return false;
  } else {
    const std::string_view name = trim_markup_space(left);
    const std::optional<std::string> arguments = markup_object_arguments(right);
    if (!is_markup_function_name(name) || !arguments) return false;
    call.name = std::string(name);
    call.arguments_json = *arguments;
  }
  *out = std::move(call);
  return true;
}

}  // namespace

bool is_deepseek_syntax(ToolCallSyntax syntax) {
  return syntax == ToolCallSyntax::kDeepSeekR1 || syntax == ToolCallSyntax::kDeepSeekV31;
}

bool parse_deepseek_calls(std::string_view section, ToolCallSyntax syntax, std::vector<ParsedToolCall>* out) {
  if (!is_deepseek_syntax(syntax)) return false;
  std::vector<ParsedToolCall> calls;
  for (std::string_view rest = section; !trim_markup_space(rest).empty();) {
    const size_t end = rest.find(kDeepSeekCallEnd);
    if (end == std::string_view::npos) return false;
    ParsedToolCall call;
    if (!parse_deepseek_call(rest.substr(0, end), syntax, &call)) return false;
    calls.push_back(std::move(call));
    rest.remove_prefix(end + kDeepSeekCallEnd.size());
  }
  if (calls.empty()) return false;
  for (ParsedToolCall& call : calls) out->push_back(std::move(call));
  return true;
}

}  // namespace strata::server
