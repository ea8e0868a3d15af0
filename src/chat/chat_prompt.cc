#include "chat/chat_prompt.h"

#include <string>
#include <utility>

#include "tokenizer/tokenizer.h"

namespace strata {

std::string close_reasoning_switched_off(std::string text, const nlohmann::ordered_json& context) {
  if (!context.is_object()) return text;
  const auto enable = context.find("enable_thinking");
  const bool switched_off = enable != context.end() && enable->is_boolean() && !enable->get<bool>();
  if (switched_off && text.ends_with("<think>\n")) text += "</think>\n\n";
  return text;
}

Result<std::vector<int32_t>> chat_prompt_tokens(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                                const std::vector<ChatMessage>& messages,
                                                const nlohmann::ordered_json& extra_context,
                                                bool close_switched_off_reasoning) {
  const int32_t bos = tokenizer.bos();
  const int32_t eos = tokenizer.eos();
  const std::string bos_text = bos >= 0 ? tokenizer.token_text(bos) : "";
  const std::string eos_text = eos >= 0 ? tokenizer.token_text(eos) : "";
  STRATA_ASSIGN_OR_RETURN(std::string text, chat_template.apply(messages, /*add_generation_prompt=*/true,
                                                                bos_text, eos_text, extra_context));
  if (close_switched_off_reasoning) text = close_reasoning_switched_off(std::move(text), extra_context);
  std::vector<int32_t> tokens = tokenizer.encode(text, /*add_special=*/false, /*parse_special=*/true);
  if (tokenizer.add_bos() && bos >= 0 && (tokens.empty() || tokens.front() != bos)) {
    tokens.insert(tokens.begin(), bos);
  }
  return tokens;
}

}  // namespace strata
