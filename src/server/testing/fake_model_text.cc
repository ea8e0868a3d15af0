#include "server/testing/fake_model_text.h"

#include "server/tool_prompt.h"

namespace strata::server::testing {

Result<std::vector<int32_t>> FakeModelText::tokenize(std::string_view text, bool add_special) const {
  std::vector<int32_t> tokens;
  if (add_special) tokens.push_back(kBos);
  for (unsigned char c : text) tokens.push_back(kFirstByte + c);
  return tokens;
}

std::string FakeModelText::detokenize(const std::vector<int32_t>& tokens) const {
  std::string text;
  for (int32_t t : tokens) text += token_piece(t);
  return text;
}

std::string FakeModelText::token_piece(int32_t token) const {
  if (token < kFirstByte || token >= vocab_size()) return "";
  return std::string(1, static_cast<char>(token - kFirstByte));
}

Result<std::vector<int32_t>> FakeModelText::chat_prompt(const PromptInput& prompt) const {
  std::string text;
  for (const ChatTurn& turn : tools_as_text(prompt.messages, prompt.tools)) {
    text += turn.role + ": " + turn.content + "\n";
  }
  text += "assistant: " + prompt_suffix;
  const RequestJson& kwargs = prompt.template_kwargs;
  if (kwargs.is_object() && kwargs.contains("enable_thinking") && kwargs["enable_thinking"] == false) {
    text += text.ends_with("<think>\n") ? "</think>\n\n" : "<think></think>";
  }
  return tokenize(text, /*add_special=*/true);
}

}  // namespace strata::server::testing
