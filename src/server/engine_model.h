// The production ModelLoader: creates the Engine from EngineOptions, and the server's ModelText
// from the engine's Tokenizer and a ChatTemplate the loader owns (the model file's, or
// --chat-template-file's). The engine itself speaks tokens only: it knows no template.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "chat/chat_template.h"
#include "chat/chat_template_probe.h"
#include "engine/engine.h"
#include "server/kimi_call_ids.h"
#include "server/model_text.h"
#include "server/server_runner.h"

namespace strata {
class Tokenizer;
}  // namespace strata

namespace strata::server {

// What the server reads off a chat template once: how its model writes tool calls, how the
// template wants tool-call turns handed to it, and whether it takes its thinking switch from
// enable_thinking.
struct TemplateTraits {
  // kMiniMaxM2 when the template writes "<minimax:tool_call>" (MiniMax-M2, M2.1, M2.5; the most
  // specific tag, so looked for first); kArgTags when it writes "<arg_key>" (GLM-4.5, GLM-4.6);
  // kKimiK2 when it writes "<|tool_calls_section_begin|>" and "<|tool_call_begin|>" (Kimi K2); when
  // it writes "<｜tool▁calls▁begin｜>" (DeepSeek), kDeepSeekR1 if it also writes a ```json fence (V3,
  // R1), else kDeepSeekV31; kXmlParams when it writes "<function=" or "<parameter=" (Qwen3-Coder,
  // Qwen3.5, Qwen3.6); kMistral when it writes "[TOOL_CALLS]" and "[ARGS]" (Mistral Small 3.2,
  // Devstral, Magistral, Ministral 3); kJson otherwise (Mistral Nemo's "[TOOL_CALLS][...]" too).
  ToolCallSyntax tool_syntax = ToolCallSyntax::kJson;
  ToolCallTurnForm call_turns;  // chat/chat_template_probe.h
  // The template refuses tool call ids that are not 9 alphanumeric characters (Mistral Small 3.2,
  // Nemo: requires_nine_character_call_ids()): the ids of a tool history go to it as
  // nine_character_call_id() of themselves, in the calls and in the results alike.
  bool nine_character_call_ids = false;
  // The template shows an assistant's reasoning only as a {"type": "thinking"} chunk of its content
  // (Ministral 3 Reasoning: renders_thinking_chunks()): a turn's reasoning goes to it so, with
  // its text as a {"type": "text"} chunk after it, as llama.cpp hands it over.
  bool reasoning_as_thinking_chunk = false;
  // DeepSeek-V3.1's template switches thinking with a `thinking` variable and reads no
  // enable_thinking: like llama.cpp, the server sets `thinking` to enable_thinking (true when the
  // client gives neither; a `thinking` the client gives wins).
  bool thinking_from_enable_thinking = false;
  // North's template switches thinking with a `reasoning` variable (on unless given false, or
  // reasoning_effort "none") and reads no enable_thinking: the server sets `reasoning` to
  // enable_thinking when the client gives it (a `reasoning` the client gives wins), so Anthropic's
  // thinking disabled and the server's own switch reach it.
  bool reasoning_from_enable_thinking = false;
  // Seed-OSS's template sizes its thinking with `thinking_budget` (-1 unlimited, 0 none: the
  // prompt then closes the block) and reads no enable_thinking: the server sets the budget to 0
  // when the client switches thinking off (a budget the client gives wins).
  bool thinking_budget_from_enable_thinking = false;
  // The template ends its generation prompt with "<think>\n" whatever enable_thinking says
  // (DeepSeek-R1's, MiniMax-M2's; a probe render at load, opens_reasoning_switched_off()): with
  // thinking switched off (constrained requests and forced calls, which switch it off unless the
  // client says otherwise, Anthropic's thinking disabled) the server closes the block itself
  // ("</think>\n\n", chat/chat_prompt.h), as llama.cpp does for these templates, so the reply,
  // and any constrained output, is answer, not reasoning.
  bool closes_reasoning_switched_off = false;
  // The template leaves its `tools` out (renders_offered_tools() is false; not ChatML, which
  // writes tools its own way): offered tools go into the system turn as llama.cpp's minja puts
  // them (tool_prompt.h, tools_in_system_turn), with the template's own call as the example.
  bool tools_in_system_turn = false;
  std::string tool_call_example;  // probe_tool_call_example(); set with tools_in_system_turn
  // Kimi K2's templates (tool_syntax kKimiK2) get a tool history with its calls renamed
  // `functions.NAME:INDEX`, numbered as the template numbers them (kimi_call_ids.h).
  KimiCallNumbering kimi_calls = KimiCallNumbering::kNone;
};
// An id a template that demands 9 alphanumeric characters takes: the id itself when it is one,
// else 9 characters of [0-9A-Za-z] from a 64-bit FNV-1a hash of it (the same id always gives the
// same one, so a call and its result still match).
std::string nine_character_call_id(std::string_view id);

// The tags the template's model writes its reasoning (and, Cohere's and Hunyuan's, its answer) in.
ReasoningTags reasoning_tags_of(const ChatTemplate& chat_template);

// bos_text and eos_text: the texts the template is rendered with (the example's probe renders).
TemplateTraits template_traits(const ChatTemplate& chat_template, const std::string& bos_text = "",
                               const std::string& eos_text = "");

// ModelText over a Tokenizer (borrowed: it lives in the engine) and a ChatTemplate (a copy,
// sharing the parsed template). Thread-safe: both are immutable and allow concurrent use.
class EngineModelText : public ModelText {
 public:
  EngineModelText(const Tokenizer& tokenizer, ChatTemplate chat_template);

  Result<std::vector<int32_t>> tokenize(std::string_view text, bool add_special) const override;
  std::string detokenize(const std::vector<int32_t>& tokens) const override;
  std::string token_piece(int32_t token) const override;
  int vocab_size() const override;
  // chat_input(), then chat/chat_prompt.h's rule (the one `strata run --chat` uses): exactly
  // one BOS in front for vocabs that add one. Tools and tool turns go to the model's template as
  // `tools` and message fields; with the ChatML fallback they are written out as text
  // (tool_prompt.h).
  Result<std::vector<int32_t>> chat_prompt(const PromptInput& prompt) const override;
  // The template mentions "<think>" or "[THINK]", or the vocabulary has a "<think>" token.
  bool is_thinking_model() const override { return thinks_; }
  // kMistralThinkTags when the template writes "[THINK]", else kThinkTags.
  ReasoningTags reasoning_tags() const override { return reasoning_tags_; }
  // The template writes "<|channel|>", or the vocabulary has "<|channel|>" and "<|message|>"
  // tokens (gpt-oss's o200k_harmony).
  bool writes_harmony() const override { return harmony_; }
  // TemplateTraits::tool_syntax.
  ToolCallSyntax tool_call_syntax() const override { return traits_.tool_syntax; }

 private:
  const Tokenizer& tokenizer_;
  const ChatTemplate chat_template_;
  bool thinks_;
  ReasoningTags reasoning_tags_;
  bool harmony_;
  TemplateTraits traits_;
};

// What the template sees of a chat prompt: tools go to the template as `tools` and each turn's
// extra fields into its message; with the ChatML fallback tools and tool turns are written out
// as text instead (tool_prompt.h). The prompt's template_kwargs become template variables
// (tools, when given, wins over a kwarg of that name). A turn's reasoning becomes its message's
// "thinking" and "reasoning_content" fields (gpt-oss's template reads the first, Qwen3's the
// second); the ChatML fallback shows no reasoning. A tool-call turn goes in the form the template
// takes (traits.call_turns: arguments as compact JSON text, a null content), and a template that
// takes `thinking` gets it from enable_thinking (traits.thinking_from_enable_thinking). Offered
// tools reach a template that leaves them out through the system turn
// (traits.tools_in_system_turn); they still go to it as `tools` too, as llama.cpp does. Tool call
// ids go as nine_character_call_id() when traits.nine_character_call_ids, and a turn's reasoning
// as a thinking chunk of its content when traits.reasoning_as_thinking_chunk. A Kimi K2 template
// gets its history's call ids in its own form (traits.kimi_calls).
struct ChatInput {
  std::vector<ChatMessage> messages;
  nlohmann::ordered_json context;  // an object, or null; keys in insertion order (the client's)
};
ChatInput chat_input(const ChatTemplate& chat_template, const TemplateTraits& traits, const PromptInput& prompt);

// chat_input() rendered with chat_template, followed by the assistant's opener (and, where
// TemplateTraits::closes_reasoning_switched_off, the reasoning block it opens closed when
// thinking is switched off).
Result<std::string> render_chat(const ChatTemplate& chat_template, const PromptInput& prompt,
                                const std::string& bos_text, const std::string& eos_text);

// Engine::Create(options), then the text side; the model's name is the file's stem.
// chat_template_file: a template to use instead of the model's (empty: the model's); a file
// that cannot be read or parsed is an error naming it.
Result<LoadedModel> load_engine_model(const EngineOptions& options, const std::string& chat_template_file = "");

}  // namespace strata::server
