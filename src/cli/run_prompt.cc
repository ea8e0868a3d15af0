#include "cli/run_prompt.h"

#include "server/engine_model.h"
#include "tokenizer/tokenizer.h"

namespace strata::cli {

std::vector<int32_t> run_text_prompt(const Tokenizer& tokenizer, const std::string& prompt) {
  return tokenizer.encode(prompt, /*add_special=*/true, /*parse_special=*/false);
}

Result<std::vector<int32_t>> run_chat_prompt(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                             const std::string& prompt) {
  server::PromptInput input;
  input.kind = server::PromptInput::Kind::kChat;
  input.messages.push_back({"user", prompt, nullptr});
  return server::EngineModelText(tokenizer, chat_template).chat_prompt(input);
}

server::ReasoningMode run_reasoning_mode(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                         const std::vector<int32_t>& prompt) {
  return server::chat_reasoning_mode(server::EngineModelText(tokenizer, chat_template), prompt);
}

}  // namespace strata::cli
