// ReasoningTags: the tags a model writes its reasoning between, before its answer:
// "<think>...</think>" (Qwen3, DeepSeek-R1, GLM-4.5), "[THINK]...[/THINK]" (Mistral's Magistral
// and Ministral 3 Reasoning, whose template shows the tags), "<|channel>thought\n...<channel|>"
// (Gemma 4), "<seed:think>...</seed:think>" (Seed-OSS) or "<|START_THINKING|>...<|END_THINKING|>"
// (Cohere's Command R7B, Command A and North), and for Cohere's and Hunyuan-A13B's the markers its answer is
// wrapped in. Plain values over static strings.
#pragma once

#include <string_view>

namespace strata::server {

struct ReasoningTags {
  std::string_view open = "<think>";
  std::string_view close = "</think>";
  // Cohere's: the answer's wrapper ("<|START_TEXT|>...<|END_TEXT|>" in North's,
  // "<|START_RESPONSE|>...<|END_RESPONSE|>" in Command R7B's), left out of the content, and the
  // opener of its tool calls. Each of answer_open and call_open also ends a reasoning block the
  // model did not close (North may go straight from thinking to its answer). Empty: none.
  std::string_view answer_open = {};
  std::string_view answer_close = {};
  std::string_view call_open = {};
  // Hunyuan's: whitespace right inside the answer wrapper (after answer_open, before answer_close)
  // and after it is left out too ("<answer>\nHi.\n</answer>\n" gives "Hi.").
  bool trim_answer = false;
};

inline constexpr ReasoningTags kThinkTags{"<think>", "</think>"};
inline constexpr ReasoningTags kMistralThinkTags{"[THINK]", "[/THINK]"};
inline constexpr ReasoningTags kGemma4ThoughtTags{"<|channel>thought\n", "<channel|>"};
inline constexpr ReasoningTags kSeedThinkTags{"<seed:think>", "</seed:think>"};
inline constexpr ReasoningTags kCohereTextTags{"<|START_THINKING|>", "<|END_THINKING|>", "<|START_TEXT|>",
                                               "<|END_TEXT|>", "<|START_ACTION|>"};
// Hunyuan-A13B: "<think>...</think>" then its reply wrapped in "<answer>...</answer>", its calls
// (tool_call_hunyuan.h) inside the wrapper.
inline constexpr ReasoningTags kHunyuanTags{"<think>", "</think>", "<answer>", "</answer>", "<tool_calls>", true};
inline constexpr ReasoningTags kCohereResponseTags{"<|START_THINKING|>", "<|END_THINKING|>", "<|START_RESPONSE|>",
                                                   "<|END_RESPONSE|>", "<|START_ACTION|>"};

}  // namespace strata::server
