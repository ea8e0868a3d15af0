// ModelText: the text side of a loaded model, as the server uses it: tokenizing prompts,
// rendering chats with the model's template, and turning token ids back into text.
//
// The server reaches the tokenizer and chat template only through this interface so that its
// HTTP layer can be tested with a fake model. Implementations must allow concurrent const
// calls from many HTTP threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "server/completion_request.h"
#include "server/reasoning_tags.h"

namespace strata::server {

class ModelText {
 public:
  virtual ~ModelText() = default;

  // add_special: add the model's BOS (and whatever else its vocab adds) around the text.
  // Special-token text such as "<|im_start|>" is parsed as the special token.
  virtual Result<std::vector<int32_t>> tokenize(std::string_view text, bool add_special) const = 0;
  // Concatenated text of the tokens (control tokens render as nothing).
  virtual std::string detokenize(const std::vector<int32_t>& tokens) const = 0;
  // The raw bytes of one token (possibly a partial UTF-8 sequence), for logprobs.
  virtual std::string token_piece(int32_t token) const = 0;
  virtual int vocab_size() const = 0;
  // The conversation rendered with the model's chat template, followed by the opener of the
  // assistant's turn, and tokenized (BOS as the template and vocab want it). The prompt's
  // tools (null for none) go to the template as `tools`, its template_kwargs as variables.
  virtual Result<std::vector<int32_t>> chat_prompt(const PromptInput& prompt) const = 0;
  // True for models that write their reasoning between tags, "<think>...</think>" (Qwen3,
  // DeepSeek-R1: the chat template or the vocabulary knows "<think>") or "[THINK]...[/THINK]"
  // (Magistral, Ministral 3 Reasoning: the template writes "[THINK]"); reasoning_tags() says which.
  virtual bool is_thinking_model() const { return false; }
  virtual ReasoningTags reasoning_tags() const { return kThinkTags; }
  // True for models that answer in OpenAI's harmony format (gpt-oss): analysis and final
  // channels, split by HarmonySplitter (harmony_splitter.h).
  virtual bool writes_harmony() const { return false; }
  // How the model writes its tool calls: JSON inside <tool_call>...</tool_call> (Hermes, Qwen3),
  // GLM-4.5's name and <arg_key>/<arg_value> pairs, DeepSeek's sections, Qwen3-Coder's
  // <function=NAME> with <parameter=KEY> values, or Mistral's markup (tool_call_syntax.h).
  virtual ToolCallSyntax tool_call_syntax() const { return ToolCallSyntax::kJson; }
};

}  // namespace strata::server
