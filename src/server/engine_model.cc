#include "server/engine_model.h"

#include <filesystem>

#include "chat/chat_template.h"
#include "tokenizer/tokenizer.h"

namespace strata::server {

EngineModelText::EngineModelText(const Tokenizer& tokenizer, const ChatTemplate& chat_template)
    : tokenizer_(tokenizer), chat_template_(chat_template) {}

Result<std::vector<int32_t>> EngineModelText::tokenize(std::string_view text, bool add_special) const {
  return tokenizer_.encode(text, add_special, /*parse_special=*/true);
}

std::string EngineModelText::detokenize(const std::vector<int32_t>& tokens) const {
  return tokenizer_.decode(tokens);
}

std::string EngineModelText::token_piece(int32_t token) const { return tokenizer_.token_to_piece(token); }

int EngineModelText::vocab_size() const { return tokenizer_.n_vocab(); }

Result<std::vector<int32_t>> EngineModelText::chat_prompt(const std::vector<ChatTurn>& turns) const {
  std::vector<ChatMessage> messages;
  messages.reserve(turns.size());
  for (const ChatTurn& turn : turns) messages.push_back({turn.role, turn.content, nullptr});
  const int32_t bos = tokenizer_.bos();
  const int32_t eos = tokenizer_.eos();
  STRATA_ASSIGN_OR_RETURN(
      std::string text,
      chat_template_.apply(messages, /*add_generation_prompt=*/true,
                           bos >= 0 ? tokenizer_.token_text(bos) : "", eos >= 0 ? tokenizer_.token_text(eos) : ""));
  std::vector<int32_t> tokens = tokenizer_.encode(text, /*add_special=*/false, /*parse_special=*/true);
  if (tokenizer_.add_bos() && bos >= 0 && (tokens.empty() || tokens.front() != bos)) {
    tokens.insert(tokens.begin(), bos);
  }
  return tokens;
}

Result<LoadedModel> load_engine_model(const EngineOptions& options) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(options));
  LoadedModel model;
  model.text = std::make_unique<EngineModelText>(engine->tokenizer(), engine->chat_template());
  model.engine = std::move(engine);
  model.name = std::filesystem::path(options.model_path).stem().string();
  return model;
}

}  // namespace strata::server
