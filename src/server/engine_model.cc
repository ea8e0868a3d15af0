#include "server/engine_model.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "chat/chat_prompt.h"
#include "chat/chat_template.h"
#include "gguf/gguf_file.h"
#include "server/tool_prompt.h"
#include "tokenizer/tokenizer.h"

namespace strata::server {

EngineModelText::EngineModelText(const Tokenizer& tokenizer, ChatTemplate chat_template)
    : tokenizer_(tokenizer),
      chat_template_(std::move(chat_template)),
      thinks_(chat_template_.source().find("<think>") != std::string::npos || tokenizer.find_token("<think>") >= 0),
      harmony_(chat_template_.source().find("<|channel|>") != std::string::npos ||
               (tokenizer.find_token("<|channel|>") >= 0 && tokenizer.find_token("<|message|>") >= 0)),
      tool_syntax_(chat_template_.source().find("<arg_key>") != std::string::npos ? ToolCallSyntax::kArgTags
                                                                                  : ToolCallSyntax::kJson) {}

Result<std::vector<int32_t>> EngineModelText::tokenize(std::string_view text, bool add_special) const {
  return tokenizer_.encode(text, add_special, /*parse_special=*/true);
}

std::string EngineModelText::detokenize(const std::vector<int32_t>& tokens) const {
  return tokenizer_.decode(tokens);
}

std::string EngineModelText::token_piece(int32_t token) const { return tokenizer_.token_to_piece(token); }

int EngineModelText::vocab_size() const { return tokenizer_.n_vocab(); }

namespace {

bool writes_harmony_turns(const ChatTemplate& chat_template) {
  return chat_template.source().find("<|channel|>") != std::string::npos;
}

bool has_tool_calls(const ChatTurn& turn) {
  if (!turn.extra.is_object()) return false;
  const auto calls = turn.extra.find("tool_calls");
  return calls != turn.extra.end() && calls->is_array() && !calls->empty();
}

// A turn as the template sees it. Earlier reasoning goes in under both names real templates
// read: "thinking" (gpt-oss's harmony template) and "reasoning_content" (Qwen3's).
//
// A harmony template writes a tool-call turn's text and its reasoning to the same analysis
// message, and gpt-oss's refuses a turn with both. Strata itself answers such turns (the
// analysis, a preamble on the commentary channel as text, then the call), and clients send them
// back as they got them, so the reasoning is kept, being what led to the call, and the
// preamble, already shown to the user, is left out of the prompt.
ChatMessage template_message(const ChatTurn& turn, bool harmony) {
  ChatMessage message{turn.role, turn.content, turn.extra};
  if (turn.reasoning) {
    if (!message.extra.is_object()) message.extra = nlohmann::json::object();
    message.extra["thinking"] = *turn.reasoning;
    message.extra["reasoning_content"] = *turn.reasoning;
    if (harmony && !turn.reasoning->empty() && has_tool_calls(turn)) message.content.clear();
  }
  return message;
}

}  // namespace

ChatInput chat_input(const ChatTemplate& chat_template, const PromptInput& prompt) {
  const std::vector<ChatTurn>& turns = prompt.messages;
  const nlohmann::json& tools = prompt.tools;
  // ChatML knows nothing of tools: write them out as text in the Hermes way instead.
  const bool as_text = chat_template.is_fallback();
  const std::vector<ChatTurn> text_turns = as_text ? tools_as_text(turns, tools) : std::vector<ChatTurn>{};
  ChatInput input;
  const bool harmony = writes_harmony_turns(chat_template);
  for (const ChatTurn& turn : as_text ? text_turns : turns) {
    input.messages.push_back(template_message(turn, harmony));
  }
  input.context = prompt.template_kwargs.is_object() ? prompt.template_kwargs : nlohmann::json();
  if (!as_text && tools.is_array() && !tools.empty()) input.context["tools"] = tools;
  return input;
}

Result<std::string> render_chat(const ChatTemplate& chat_template, const PromptInput& prompt,
                                const std::string& bos_text, const std::string& eos_text) {
  const ChatInput input = chat_input(chat_template, prompt);
  return chat_template.apply(input.messages, /*add_generation_prompt=*/true, bos_text, eos_text, input.context);
}

Result<std::vector<int32_t>> EngineModelText::chat_prompt(const PromptInput& prompt) const {
  const ChatInput input = chat_input(chat_template_, prompt);
  return chat_prompt_tokens(tokenizer_, chat_template_, input.messages, input.context);
}

namespace {

Result<ChatTemplate> read_chat_template(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("--chat-template-file " + path + ": cannot be read");
  std::stringstream source;
  source << in.rdbuf();
  Result<ChatTemplate> parsed = ChatTemplate::Parse(source.str());
  if (!parsed.ok()) {
    return Status::InvalidArgument("--chat-template-file " + path + ": " + std::string(parsed.status().message()));
  }
  return parsed;
}

// The file's own template (ChatML when it has none or it does not run); only its metadata is read.
Result<ChatTemplate> model_chat_template(const std::string& model_path) {
  STRATA_ASSIGN_OR_RETURN(GgufFile gguf, GgufFile::Open(model_path));
  return template_or_chatml(gguf.get_string("tokenizer.chat_template"));
}

}  // namespace

Result<LoadedModel> load_engine_model(const EngineOptions& options, const std::string& chat_template_file) {
  std::optional<ChatTemplate> chat_template;
  if (!chat_template_file.empty()) {
    STRATA_ASSIGN_OR_RETURN(ChatTemplate parsed, read_chat_template(chat_template_file));
    chat_template = std::move(parsed);
  }
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(options));
  if (!chat_template) {
    STRATA_ASSIGN_OR_RETURN(ChatTemplate own, model_chat_template(options.model_path));
    chat_template = std::move(own);
  }
  LoadedModel model;
  model.text = std::make_unique<EngineModelText>(engine->tokenizer(), std::move(*chat_template));
  model.engine = std::move(engine);
  model.name = std::filesystem::path(options.model_path).stem().string();
  return model;
}

}  // namespace strata::server
