// ReasoningSplitter: separates a thinking model's reasoning ("<think>...</think>", as Qwen3
// and DeepSeek-R1 write it, or "[THINK]...[/THINK]", as Magistral and Ministral 3 Reasoning do:
// ReasoningMode::tags; "<think>" below stands for either) from its answer, as the output streams
// or all at once. gpt-oss's
// harmony channels (analysis: reasoning; final: the answer) are split by HarmonySplitter
// (harmony_splitter.h) when the mode says harmony; what follows is the <think> form.
//
// Reasoning is recognised only at the start of the output: an opening "<think>" after optional
// whitespace, or an output that starts inside reasoning because the prompt already ended with
// "<think>" (starts_open). It runs to the first "</think>"; whitespace right after the closing
// tag is dropped, everything later is content. An output that never opens reasoning is all
// content, byte for byte, except after a prompt that itself closed an (empty) reasoning block
// (starts_closed: Qwen3's and GLM-4.5's templates with enable_thinking false end with
// "<think></think>"), where whitespace before the answer is dropped as after a closing tag. Kimi
// K2 may call tools straight from its reasoning, never closing it (mode.calls_end_reasoning): its
// `<|tool_calls_section_begin|>` or `<|tool_call_begin|>` then ends the reasoning too, and is
// content, left for the tool-call parser (as llama.cpp reads that model); so does Cohere's or
// Hunyuan's answer or call opener (ReasoningTags::answer_open, call_open), and their answer markers
// are left out of the content (North: "<|START_TEXT|>answer<|END_TEXT|>" gives "answer"; Hunyuan's
// "<answer>\nanswer\n</answer>" too, trim_answer dropping the whitespace just inside). Text that may still be
// the start of a tag is held back until it is decided or finish() is called, so no byte is lost
// and no tag leaks into either part.
//
// Reasoning tokens (usage.completion_tokens_details.reasoning_tokens) are the tokens fed while
// reasoning was open, the tags' tokens included.
//
// One instance follows one output on one thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/generation_result.h"
#include "server/model_text.h"
#include "server/reasoning_tags.h"
#include "server/tool_call_parser.h"

namespace strata::server {

// How one request's output is answered: split into reasoning and content or not, whether the
// prompt already opened the reasoning block, and whether the model writes harmony channels
// (gpt-oss) rather than <think> tags.
struct ReasoningMode {
  bool split = false;
  bool starts_open = false;
  bool harmony = false;
  bool starts_closed = false;  // the prompt ended with "</think>" (<think> form only)
  ReasoningTags tags = {};     // the tags of the <think> form: <think> or Mistral's [THINK]
  bool calls_end_reasoning = false;  // Kimi K2's call markup ends reasoning (<think> form only)
};

class HarmonySplitter;

// Reasoning or answer text; with a call (only a harmony reply's, and only when the splitter takes
// calls apart), answer text followed by that call, which is whole and already parsed.
struct ReasoningPiece {
  bool reasoning = false;
  std::string text;
  std::optional<ParsedToolCall> call = std::nullopt;
};

class ReasoningSplitter {
 public:
  explicit ReasoningSplitter(bool starts_open = false);
  // <think> tags, or harmony channels when mode.harmony (split is not consulted). tool_calls: the
  // request offered tools, so a harmony message to a tool comes out as a call
  // (ReasoningPiece::call) rather than as answer text (harmony_splitter.h).
  explicit ReasoningSplitter(const ReasoningMode& mode, bool tool_calls = false);
  ~ReasoningSplitter();

  // One token's text; returns what can be released now (adjacent pieces of one kind merged, and
  // answer text into a call that follows it).
  std::vector<ReasoningPiece> feed(std::string_view text);
  // The end of the output: releases everything held back.
  std::vector<ReasoningPiece> finish();
  int reasoning_tokens() const;
  // The output has a reasoning block (opened by the prompt or by its first tag), empty or not.
  bool saw_reasoning() const;

 private:
  enum class State { kStart, kReasoning, kAfterClose, kContent };
  void drain(std::vector<ReasoningPiece>* out);
  // Inside the reasoning: releases it up to its end (a close, or a Kimi call tag), returning
  // true when it ended.
  bool drain_reasoning(std::vector<ReasoningPiece>* out);
  // In the answer: releases it, less Cohere's answer markers (ReasoningTags::answer_open/close).
  void drain_content(std::vector<ReasoningPiece>* out);
  static void emit(bool reasoning, std::string_view text, std::vector<ReasoningPiece>* out);

  State state_;
  std::string pending_;
  int reasoning_tokens_ = 0;
  int start_tokens_ = 0;  // tokens fed before the output was known to open reasoning or not
  bool opened_ = false;  // reasoning was opened (by the prompt or a tag)
  bool drop_leading_space_ = false;  // the prompt closed a reasoning block (mode.starts_closed)
  bool space_after_marker_ = false;  // ReasoningTags::trim_answer: just after an answer marker
  bool calls_end_reasoning_ = false;  // mode.calls_end_reasoning
  std::unique_ptr<HarmonySplitter> harmony_;  // set for harmony output: does all the work
  ReasoningTags tags_;
};

// The whole output at once (the non-streaming answers). calls: a harmony reply's tool calls when
// taken apart (tool_calls), each placed in content where it came (parse_tool_calls takes them so).
struct SplitOutput {
  std::string reasoning;
  std::string content;
  std::vector<PlacedToolCall> calls;
  bool had_reasoning = false;
};
SplitOutput split_reasoning(std::string_view output, bool starts_open);
SplitOutput split_reasoning(std::string_view output, const ReasoningMode& mode, bool tool_calls = false);

// A gathered result split token by token, so the reasoning-token count is the one a stream of
// the same output reports.
struct SplitResult {
  SplitOutput output;
  int reasoning_tokens = 0;
};
SplitResult split_result_reasoning(const GenerationResult& result, bool starts_open);
SplitResult split_result_reasoning(const GenerationResult& result, const ReasoningMode& mode,
                                   bool tool_calls = false);

// True when a prompt's text ends inside an open reasoning block ("...<think>\n"), as some
// templates write it, so the model's output starts with reasoning and no opening tag.
bool prompt_opens_reasoning(std::string_view prompt_tail, const ReasoningTags& tags = kThinkTags);
// True when a prompt's text ends with a closed reasoning block ("<think></think>" and optional
// whitespace), as templates write it when thinking is switched off.
bool prompt_closes_reasoning(std::string_view prompt_tail, const ReasoningTags& tags = kThinkTags);

// How a chat reply of this model is split after this prompt: harmony channels when the model
// writes harmony, blocks between its reasoning_tags() when it is a thinking model, no split otherwise; starts_open
// when the prompt's last tokens already opened the reasoning, starts_closed when they closed it;
// calls_end_reasoning when the model writes Kimi K2's tool calls. Shared by the server's chat
// routes and `strata run --chat`.
ReasoningMode chat_reasoning_mode(const ModelText& text, const std::vector<int32_t>& prompt);

}  // namespace strata::server
