// ToolCallSyntax: how a model family writes its tool calls: the body of a
// `<tool_call>...</tool_call>` block, or DeepSeek's, Qwen3-Coder's, Mistral's, Kimi K2's,
// MiniMax-M2's, Gemma 4's, Cohere's, Nemotron Nano 2's or LFM2's own markup. The server picks it from the chat template (ModelText::tool_call_syntax()); ToolCallParser
// reads the output with it.
// ToolCallFormat: that syntax with what one request offered (its tools' parameter types), which
// is all a parser needs to read that request's calls.
#pragma once

#include <utility>

#include "server/tool_param_types.h"

namespace strata::server {

enum class ToolCallSyntax {
  // Hermes / Qwen: a JSON object {"name": ..., "arguments": {...}}; an output that is bare JSON
  // calls (Llama 3.1, Mistral) is read too.
  kJson,
  // GLM-4.5 / GLM-4.6: the function name, then <arg_key>KEY</arg_key><arg_value>VALUE</arg_value>
  // pairs (whitespace between them allowed); see tool_call_arg_tags.h. A JSON body is read as
  // well (forced calls are constrained to it), bare JSON outputs are not.
  kArgTags,
  // DeepSeek-V3 / R1: `<｜tool▁calls▁begin｜>` sections of
  // `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` calls with their arguments in a ```json fence;
  // see tool_call_deepseek.h. `<tool_call>` blocks holding JSON are read as well (forced calls),
  // bare JSON outputs are not.
  kDeepSeekR1,
  // DeepSeek-V3.1: the same sections with `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS` calls; otherwise
  // as kDeepSeekR1.
  kDeepSeekV31,
  // Qwen3-Coder, Qwen3.5, Qwen3.6, Step 3.5, Seed-OSS: `<function=NAME>` holding
  // `<parameter=KEY>\nVALUE\n</parameter>` pairs in `<tool_call>` (Seed-OSS: `<seed:tool_call>`)
  // blocks, each value bare text typed by the tool's schema (tool_call_xml.h, tool_param_types.h).
  // A JSON body is read as well (forced calls), bare JSON outputs are not.
  kXmlParams,
  // Mistral Small 3.2, Devstral Small 1.1, Magistral, Ministral 3: `[TOOL_CALLS]NAME[ARGS]JSON`
  // calls, `[CALL_ID]ID` between name and [ARGS] when the model writes ids (Small 3.2); the older
  // `[TOOL_CALLS][{...}]` after the same opener too; see tool_call_mistral.h. `<tool_call>` blocks
  // holding JSON are read as well (forced calls), bare JSON outputs are not.
  kMistral,
  // Kimi K2 (Instruct, Thinking): `<|tool_calls_section_begin|>` sections of
  // `<|tool_call_begin|>functions.NAME:INDEX<|tool_call_argument_begin|>ARGS<|tool_call_end|>` calls;
  // see tool_call_kimi.h. `<tool_call>` blocks holding JSON are read as well (forced calls), bare
  // JSON outputs are not.
  kKimiK2,
  // MiniMax-M2, M2.1, M2.5: `<minimax:tool_call>` blocks of `<invoke name="NAME">` holding
  // `<parameter name="KEY">VALUE</parameter>` pairs, each value bare text typed by the tool's
  // schema as in kXmlParams (tool_call_minimax.h). `<tool_call>` blocks holding JSON are read as
  // well (forced calls), bare JSON outputs are not.
  kMiniMaxM2,
  // Gemma 4: `<|tool_call>call:NAME{KEY:VALUE,...}<tool_call|>` calls, strings between `<|"|>` marks
  // (tool_call_gemma4.h). `<tool_call>` blocks holding JSON are read as well (forced calls), bare
  // JSON outputs are not.
  kGemma4,
  // Cohere's Command R7B, Command A and North: `<|START_ACTION|>[{"tool_call_id": ..., "tool_name":
  // NAME, "parameters": {...}}, ...]<|END_ACTION|>` (tool_call_cohere.h). `<tool_call>` blocks
  // holding JSON are read as well (forced calls), bare JSON outputs are not.
  kCohere,
  // NVIDIA Nemotron Nano 2: `<TOOLCALL>[{"name": NAME, "arguments": {...}}, ...]</TOOLCALL>`
  // (tool_call_nemotron.h). `<tool_call>` blocks holding JSON are read as well (forced calls),
  // bare JSON outputs are not.
  kNemotron,
  // Liquid AI LFM2 / LFM2.5: `<|tool_call_start|>[NAME(KEY=VALUE, ...), ...]<|tool_call_end|>`, the
  // values Python literals (tool_call_lfm2.h). `<tool_call>` blocks holding JSON are read as well
  // (forced calls), bare JSON outputs are not.
  kLfm2,
  // Tencent Hunyuan-A13B: `<tool_calls>[{"name": NAME, "arguments": {...}}, ...]</tool_calls>`
  // (tool_call_hunyuan.h), the calls read as Nemotron's. `<tool_call>` blocks holding JSON are read
  // as well (forced calls), bare JSON outputs are not.
  kHunyuan,
};

struct ToolCallFormat {
  // Implicit on purpose: a syntax alone is a format with no tools known (kXmlParams and
  // kMiniMaxM2 arguments then all stay strings).
  ToolCallFormat(ToolCallSyntax syntax = ToolCallSyntax::kJson, ToolParamTypes param_types = {})
      : syntax(syntax), param_types(std::move(param_types)) {}

  ToolCallSyntax syntax;
  ToolParamTypes param_types;  // of the tools the request offered
};

}  // namespace strata::server
