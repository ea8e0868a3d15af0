// FakeModelText (tests only): a byte-level ModelText. Token 1 is BOS, token 2 is EOS, and byte
// b is token b + 3, so prompts and replies are easy to predict in tests. Chats render as
// "<role>: <content>\n" lines followed by "assistant: " and prompt_suffix, with tools and tool
// turns written out as text first (tool_prompt.h). Immutable once the server runs; thread-safe.
#pragma once

#include "server/model_text.h"

namespace strata::server::testing {

class FakeModelText : public ModelText {
 public:
  static constexpr int32_t kBos = 1;
  static constexpr int32_t kEos = 2;
  static constexpr int32_t kFirstByte = 3;

  Result<std::vector<int32_t>> tokenize(std::string_view text, bool add_special) const override;
  std::string detokenize(const std::vector<int32_t>& tokens) const override;
  std::string token_piece(int32_t token) const override;
  int vocab_size() const override { return kFirstByte + 256; }
  // template_kwargs {"enable_thinking": false} appends "<think></think>" as Qwen3's template
  // does, so tests can see the variables arrive; after a prompt_suffix that opened "<think>\n" it
  // appends "</think>\n\n", as the server does for MiniMax-M2's template.
  Result<std::vector<int32_t>> chat_prompt(const PromptInput& prompt) const override;
  // The fake reads "<think>" like a thinking model, so replies that start with it are split.
  bool is_thinking_model() const override { return true; }
  // Set like `harmony` for a model that writes Mistral's [THINK]...[/THINK].
  ReasoningTags reasoning_tags() const override { return tags; }
  // With `harmony` set (before the server takes requests) it answers like gpt-oss instead:
  // replies are split as harmony channels.
  bool writes_harmony() const override { return harmony; }
  // Set like `harmony` for a model that writes its tool calls otherwise than in JSON (GLM-4.5's,
  // DeepSeek's, Qwen3-Coder's, MiniMax-M2's: tool_call_syntax.h).
  ToolCallSyntax tool_call_syntax() const override { return tool_syntax; }

  bool harmony = false;
  ToolCallSyntax tool_syntax = ToolCallSyntax::kJson;
  ReasoningTags tags = kThinkTags;
  // Written after "assistant: ", as a template's generation prompt ends (set like `harmony`):
  // "<think>\n" opens the reasoning in the prompt, as MiniMax-M2's and Qwen3.5's templates do.
  std::string prompt_suffix;
};

}  // namespace strata::server::testing
