// ToolCallSyntax: how a model family writes the body of a `<tool_call>...</tool_call>` block.
// The server picks it from the chat template (ModelText::tool_call_syntax()); ToolCallParser
// reads the output with it.
#pragma once

namespace strata::server {

enum class ToolCallSyntax {
  // Hermes / Qwen: a JSON object {"name": ..., "arguments": {...}}; an output that is bare JSON
  // calls (Llama 3.1, Mistral) is read too.
  kJson,
  // GLM-4.5 / GLM-4.6: the function name, then <arg_key>KEY</arg_key><arg_value>VALUE</arg_value>
  // pairs (whitespace between them allowed); see tool_call_arg_tags.h. A JSON body is read as
  // well (forced calls are constrained to it), bare JSON outputs are not.
  kArgTags,
};

}  // namespace strata::server
