#include "server/engine_model.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "chat/chat_prompt.h"
#include "chat/chat_template.h"
#include "gguf/gguf_file.h"
#include "server/tool_call_hunyuan.h"
#include "server/tool_prompt.h"
#include "tokenizer/tokenizer.h"

namespace strata::server {

namespace {

std::string token_text_or_empty(const Tokenizer& tokenizer, int32_t token) {
  return token >= 0 ? tokenizer.token_text(token) : "";
}

bool writes_mistral_think(const ChatTemplate& chat_template) {
  return chat_template.source().find("[THINK]") != std::string::npos;
}

// Gemma 4's thought channel ("<|channel>", not gpt-oss's harmony "<|channel|>").
bool writes_gemma4_thought(const ChatTemplate& chat_template) {
  return chat_template.source().find("<|channel>") != std::string::npos;
}

// Seed-OSS's thinking block.
bool writes_seed_think(const ChatTemplate& chat_template) {
  return chat_template.source().find(kSeedThinkTags.open) != std::string::npos;
}

// Cohere's thinking block (Command R7B, Command A, North).
bool writes_cohere_thinking(const ChatTemplate& chat_template) {
  return chat_template.source().find(kCohereTextTags.open) != std::string::npos;
}

}  // namespace

ReasoningTags reasoning_tags_of(const ChatTemplate& chat_template) {
  if (writes_cohere_thinking(chat_template)) {  // North wraps its answer in <|START_TEXT|>, R7B in <|START_RESPONSE|>
    const bool text = chat_template.source().find(kCohereTextTags.answer_open) != std::string::npos;
    return text ? kCohereTextTags : kCohereResponseTags;
  }
  if (writes_mistral_think(chat_template)) return kMistralThinkTags;
  // Hunyuan-A13B's template asks for its calls as <tool_calls>[...]</tool_calls>; the model wraps its
  // reply, calls included, in <answer>...</answer>.
  if (chat_template.source().find(kHunyuanCallsOpener) != std::string::npos) return kHunyuanTags;
  if (writes_seed_think(chat_template)) return kSeedThinkTags;
  return writes_gemma4_thought(chat_template) ? kGemma4ThoughtTags : kThinkTags;
}

EngineModelText::EngineModelText(const Tokenizer& tokenizer, ChatTemplate chat_template)
    : tokenizer_(tokenizer),
      chat_template_(std::move(chat_template)),
      thinks_(chat_template_.source().find("<think>") != std::string::npos || tokenizer.find_token("<think>") >= 0 ||
              writes_mistral_think(chat_template_) || writes_gemma4_thought(chat_template_) ||
              writes_cohere_thinking(chat_template_) || writes_seed_think(chat_template_)),
      reasoning_tags_(reasoning_tags_of(chat_template_)),
      harmony_(chat_template_.source().find("<|channel|>") != std::string::npos ||
               (tokenizer.find_token("<|channel|>") >= 0 && tokenizer.find_token("<|message|>") >= 0)),
      traits_(template_traits(chat_template_, token_text_or_empty(tokenizer, tokenizer.bos()),
                              token_text_or_empty(tokenizer, tokenizer.eos()))) {}

Result<std::vector<int32_t>> EngineModelText::tokenize(std::string_view text, bool add_special) const {
  return tokenizer_.encode(text, add_special, /*parse_special=*/true);
}

std::string EngineModelText::detokenize(const std::vector<int32_t>& tokens) const {
  return tokenizer_.decode(tokens);
}

std::string EngineModelText::token_piece(int32_t token) const { return tokenizer_.token_to_piece(token); }

int EngineModelText::vocab_size() const { return tokenizer_.n_vocab(); }

namespace {

ToolCallSyntax template_tool_syntax(const std::string& source) {
  if (source.find("<minimax:tool_call>") != std::string::npos) return ToolCallSyntax::kMiniMaxM2;
  if (source.find("<|tool_call>") != std::string::npos) return ToolCallSyntax::kGemma4;
  if (source.find("<|START_ACTION|>") != std::string::npos) return ToolCallSyntax::kCohere;
  if (source.find("<TOOLCALL>") != std::string::npos) return ToolCallSyntax::kNemotron;
  if (source.find(kHunyuanCallsOpener) != std::string::npos) return ToolCallSyntax::kHunyuan;
  // LFM2.5's template writes calls back itself; LFM2's first one only shows the tools in its list markers.
  if (source.find("<|tool_call_start|>") != std::string::npos ||
      source.find("<|tool_list_start|>") != std::string::npos) {
    return ToolCallSyntax::kLfm2;
  }
  if (source.find("<arg_key>") != std::string::npos) return ToolCallSyntax::kArgTags;
  if (source.find("<|tool_calls_section_begin|>") != std::string::npos &&
      source.find("<|tool_call_begin|>") != std::string::npos) {
    return ToolCallSyntax::kKimiK2;
  }
  if (source.find("[TOOL_CALLS]") != std::string::npos && source.find("[ARGS]") != std::string::npos) {
    return ToolCallSyntax::kMistral;
  }
  if (source.find("<｜tool▁calls▁begin｜>") == std::string::npos) {
    const bool xml_params = source.find("<function=") != std::string::npos ||
                            source.find("<parameter=") != std::string::npos;
    return xml_params ? ToolCallSyntax::kXmlParams : ToolCallSyntax::kJson;
  }
  return source.find("```json") != std::string::npos ? ToolCallSyntax::kDeepSeekR1 : ToolCallSyntax::kDeepSeekV31;
}

}  // namespace

TemplateTraits template_traits(const ChatTemplate& chat_template, const std::string& bos_text,
                               const std::string& eos_text) {
  TemplateTraits traits;
  const std::string& source = chat_template.source();
  traits.tool_syntax = template_tool_syntax(source);
  traits.call_turns = probe_tool_call_turn_form(chat_template);
  traits.nine_character_call_ids = requires_nine_character_call_ids(chat_template);
  traits.reasoning_as_thinking_chunk = renders_thinking_chunks(chat_template);
  traits.thinking_from_enable_thinking = traits.tool_syntax == ToolCallSyntax::kDeepSeekV31 &&
                                         source.find("thinking") != std::string::npos &&
                                         source.find("enable_thinking") == std::string::npos;
  traits.reasoning_from_enable_thinking = traits.tool_syntax == ToolCallSyntax::kCohere &&
                                          source.find("reasoning is not undefined") != std::string::npos &&
                                          source.find("enable_thinking") == std::string::npos;
  traits.thinking_budget_from_enable_thinking = source.find("thinking_budget") != std::string::npos &&
                                                source.find("enable_thinking") == std::string::npos;
  if (traits.tool_syntax == ToolCallSyntax::kKimiK2) traits.kimi_calls = probe_kimi_call_numbering(chat_template);
  traits.closes_reasoning_switched_off = opens_reasoning_switched_off(chat_template);
  traits.tools_in_system_turn = !chat_template.is_fallback() && !renders_offered_tools(chat_template);
  if (traits.tools_in_system_turn) {
    traits.tool_call_example = probe_tool_call_example(chat_template, traits.call_turns, bos_text, eos_text);
  }
  return traits;
}

std::string nine_character_call_id(std::string_view id) {
  constexpr std::string_view kAlphanumeric = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  const bool alphanumeric = id.find_first_not_of(kAlphanumeric) == std::string_view::npos;
  if (id.size() == 9 && alphanumeric) return std::string(id);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : id) hash = (hash ^ c) * 0x100000001b3ull;
  std::string out(9, '0');
  for (char& c : out) {
    c = kAlphanumeric[hash % kAlphanumeric.size()];
    hash /= kAlphanumeric.size();
  }
  return out;
}

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
    if (!message.extra.is_object()) message.extra = nlohmann::ordered_json::object();
    message.extra["thinking"] = *turn.reasoning;
    message.extra["reasoning_content"] = *turn.reasoning;
    if (harmony && !turn.reasoning->empty() && has_tool_calls(turn)) message.content.clear();
  }
  return message;
}

// The turn's call ids (its calls', or the one its result answers) as nine_character_call_id().
void shorten_call_ids(ChatMessage* message) {
  if (!message->extra.is_object()) return;
  const auto result_id = message->extra.find("tool_call_id");
  if (result_id != message->extra.end() && result_id->is_string()) {
    *result_id = nine_character_call_id(result_id->get<std::string>());
  }
  const auto calls = message->extra.find("tool_calls");
  if (calls == message->extra.end() || !calls->is_array()) return;
  for (nlohmann::ordered_json& call : *calls) {
    const auto id = call.is_object() ? call.find("id") : call.end();
    if (call.is_object() && id != call.end() && id->is_string()) *id = nine_character_call_id(id->get<std::string>());
  }
}

// An assistant turn's reasoning as the first chunk of its content, its text the second (what
// Ministral 3's template reads; llama.cpp hands reasoning over so for it).
void reasoning_as_thinking_chunk(const ChatTurn& turn, ChatMessage* message) {
  if (!turn.reasoning || turn.role != "assistant") return;
  message->extra.erase("thinking");
  message->extra.erase("reasoning_content");
  message->extra["content"] = nlohmann::ordered_json::array(
      {{{"type", "thinking"}, {"thinking", *turn.reasoning}}, {{"type", "text"}, {"text", turn.content}}});
}

// A tool-call turn in the form the template takes (ToolCallTurnForm); other turns unchanged.
void shape_call_turn(const ToolCallTurnForm& form, ChatMessage* message) {
  if (!message->extra.is_object() || !message->extra.contains("tool_calls")) return;
  const nlohmann::ordered_json& sent = message->extra["tool_calls"];
  if (!sent.is_array() || sent.empty()) return;
  // Before any reference into extra is held: adding a key to an ordered object moves its members.
  if (form.null_content && message->content.empty()) message->extra["content"] = nullptr;
  if (!form.arguments_as_text) return;
  for (nlohmann::ordered_json& call : message->extra["tool_calls"]) {
    nlohmann::ordered_json* function = call.is_object() && call.contains("function") ? &call["function"] : nullptr;
    if (!function || !function->is_object() || !function->contains("arguments")) continue;
    nlohmann::ordered_json& arguments = (*function)["arguments"];
    if (!arguments.is_string()) {
      arguments = arguments.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    }
  }
}

// `thinking` from enable_thinking, on when neither is given (DeepSeek-V3.1; see TemplateTraits).
void set_thinking_from_enable_thinking(nlohmann::ordered_json* context) {
  if (context->is_null()) *context = nlohmann::ordered_json::object();
  if (context->contains("thinking")) return;
  const auto enable = context->find("enable_thinking");
  const bool thinking = enable == context->end() || !enable->is_boolean() || enable->get<bool>();
  (*context)["thinking"] = thinking;  // after the lookup: the insertion moves the members
}

// `reasoning` from enable_thinking when the client gave that (North; see TemplateTraits).
void set_reasoning_from_enable_thinking(nlohmann::ordered_json* context) {
  if (!context->is_object() || context->contains("reasoning")) return;
  const auto enable = context->find("enable_thinking");
  if (enable == context->end() || !enable->is_boolean()) return;
  const bool reasoning = enable->get<bool>();
  (*context)["reasoning"] = reasoning;  // after the lookup: the insertion moves the members
}

// `thinking_budget` 0 when the client switched thinking off (Seed-OSS; see TemplateTraits).
void set_thinking_budget_from_enable_thinking(nlohmann::ordered_json* context) {
  if (!context->is_object() || context->contains("thinking_budget")) return;
  const auto enable = context->find("enable_thinking");
  if (enable == context->end() || !enable->is_boolean() || enable->get<bool>()) return;
  (*context)["thinking_budget"] = 0;  // after the lookup: the insertion moves the members
}

}  // namespace

ChatInput chat_input(const ChatTemplate& chat_template, const TemplateTraits& traits, const PromptInput& prompt) {
  const std::vector<ChatTurn>& turns = prompt.messages;
  const nlohmann::ordered_json& tools = prompt.tools;
  // ChatML knows nothing of tools: write them out as text in the Hermes way instead.
  const bool as_text = chat_template.is_fallback();
  std::vector<ChatTurn> rewritten;
  if (as_text) rewritten = tools_as_text(turns, tools);
  const bool in_system = !as_text && traits.tools_in_system_turn && tools.is_array() && !tools.empty();
  if (in_system) rewritten = tools_in_system_turn(turns, tools, traits.tool_call_example);
  ChatInput input;
  const bool harmony = writes_harmony_turns(chat_template);
  for (const ChatTurn& turn : as_text || in_system ? rewritten : turns) {
    input.messages.push_back(template_message(turn, harmony));
    shape_call_turn(traits.call_turns, &input.messages.back());
    if (traits.nine_character_call_ids) shorten_call_ids(&input.messages.back());
    if (traits.reasoning_as_thinking_chunk) reasoning_as_thinking_chunk(turn, &input.messages.back());
  }
  if (!as_text) number_kimi_calls(traits.kimi_calls, &input.messages);
  input.context = prompt.template_kwargs.is_object() ? prompt.template_kwargs : nlohmann::ordered_json();
  if (!as_text && tools.is_array() && !tools.empty()) input.context["tools"] = tools;
  if (traits.thinking_from_enable_thinking) set_thinking_from_enable_thinking(&input.context);
  if (traits.reasoning_from_enable_thinking) set_reasoning_from_enable_thinking(&input.context);
  if (traits.thinking_budget_from_enable_thinking) set_thinking_budget_from_enable_thinking(&input.context);
  return input;
}

Result<std::string> render_chat(const ChatTemplate& chat_template, const PromptInput& prompt,
                                const std::string& bos_text, const std::string& eos_text) {
  const TemplateTraits traits = template_traits(chat_template, bos_text, eos_text);
  const ChatInput input = chat_input(chat_template, traits, prompt);
  STRATA_ASSIGN_OR_RETURN(std::string text, chat_template.apply(input.messages, /*add_generation_prompt=*/true,
                                                                bos_text, eos_text, input.context));
  if (!traits.closes_reasoning_switched_off) return text;
  return close_reasoning_switched_off(std::move(text), input.context);
}

Result<std::vector<int32_t>> EngineModelText::chat_prompt(const PromptInput& prompt) const {
  const ChatInput input = chat_input(chat_template_, traits_, prompt);
  return chat_prompt_tokens(tokenizer_, chat_template_, input.messages, input.context,
                            traits_.closes_reasoning_switched_off);
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
