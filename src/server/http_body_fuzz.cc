// libFuzzer target for the HTTP request-body parsers (built by tests/fuzz, run by the
// http_body_fuzz ctest): the bytes of a POST body go through the JSON reader and then through
// each API's parser (OpenAI chat, completions and embeddings, Anthropic messages), grammar and JSON-schema
// compilation included. Any input must either parse or fail with a status the server answers
// as a 400 (invalid, corrupt, unsupported, out of range) with a message; any other status (a
// 500), a crash, an uncaught exception or a sanitizer report is a finding.
// The same bytes also go through the tool-call parser as a model's output, in GLM-4.5's syntax
// (tool_call_arg_tags.h), in DeepSeek-R1's and V3.1's (tool_call_deepseek.h), in Qwen3-Coder's
// (tool_call_xml.h, with tools whose parameters are typed), in Mistral's (tool_call_mistral.h), in
// Kimi K2's (tool_call_kimi.h) and in MiniMax-M2's (tool_call_minimax.h, typed as Qwen3-Coder's),
// whole and streamed byte by byte: the two must find the same calls, and an output without calls
// must come back byte for byte.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/anthropic_request.h"
#include "server/embedding_request.h"
#include "server/json_fields.h"
#include "server/openai_request.h"
#include "server/responses_request.h"
#include "server/tool_call_parser.h"

namespace {

using strata::Code;
using strata::Result;

template <typename T>
void check(const Result<T>& parsed) {
  if (parsed.ok()) return;
  const Code code = parsed.status().code();
  // kNotFound: a previous_response_id the (here empty) response store does not hold.
  const bool client_error = code == Code::kInvalidArgument || code == Code::kCorrupt ||
                            code == Code::kUnsupported || code == Code::kOutOfRange || code == Code::kNotFound;
  if (!client_error) std::abort();
  if (parsed.status().message().empty()) std::abort();
}

// Tools for Qwen3-Coder's and MiniMax-M2's syntaxes: parameters "a" to "g" of f, one of each type.
const strata::server::ToolParamTypes& fuzz_param_types() {
  static const strata::server::ToolParamTypes types(nlohmann::json::parse(R"([{"type": "function",
      "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"},
      "b": {"type": "integer"}, "c": {"type": "number"}, "d": {"type": "boolean"}, "e": {"type": "object"},
      "f": {"type": "array"}, "g": {"type": ["null", "integer"]}}}}}])"));
  return types;
}

void check_tool_output(std::string_view output, const strata::server::ToolCallFormat& format) {
  const strata::server::ParsedOutput whole = strata::server::parse_tool_calls(output, format);
  if (whole.calls.empty() && whole.content != output) std::abort();
  strata::server::ToolCallParser parser(format);
  size_t n_calls = 0;
  for (size_t i = 0; i < output.size(); ++i) {
    for (const auto& piece : parser.feed(output.substr(i, 1))) n_calls += piece.is_call ? 1 : 0;
  }
  for (const auto& piece : parser.finish()) n_calls += piece.is_call ? 1 : 0;
  if (n_calls != whole.calls.size()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  using strata::server::ToolCallSyntax;
  for (ToolCallSyntax syntax : {ToolCallSyntax::kArgTags, ToolCallSyntax::kDeepSeekR1, ToolCallSyntax::kDeepSeekV31,
                                ToolCallSyntax::kMistral, ToolCallSyntax::kKimiK2, ToolCallSyntax::kGemma4,
                                ToolCallSyntax::kCohere, ToolCallSyntax::kNemotron,
                                ToolCallSyntax::kLfm2, ToolCallSyntax::kHunyuan}) {
    check_tool_output(body, syntax);
  }
  check_tool_output(body, strata::server::ToolCallFormat(ToolCallSyntax::kXmlParams, fuzz_param_types()));
  check_tool_output(body, strata::server::ToolCallFormat(ToolCallSyntax::kMiniMaxM2, fuzz_param_types()));
  auto object = strata::server::parse_json_object(body);
  if (!object.ok()) {
    if (object.status().code() != Code::kInvalidArgument) std::abort();
    return 0;
  }
  check(strata::server::parse_chat_completion_request(*object));
  check(strata::server::parse_text_completion_request(*object));
  check(strata::server::parse_anthropic_messages_request(*object));
  check(strata::server::parse_embedding_request(*object));
  check(strata::server::parse_responses_request(*object));
  return 0;
}
