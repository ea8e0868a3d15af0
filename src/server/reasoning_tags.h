// ReasoningTags: the tags a model writes its reasoning between, before its answer:
// "<think>...</think>" (Qwen3, DeepSeek-R1, GLM-4.5), "[THINK]...[/THINK]" (Mistral's Magistral
// and Ministral 3 Reasoning, whose template shows the tags) or "<|channel>thought\n...<channel|>"
// (Gemma 4). Plain values over static strings.
#pragma once

#include <string_view>

namespace strata::server {

struct ReasoningTags {
  std::string_view open = "<think>";
  std::string_view close = "</think>";
};

inline constexpr ReasoningTags kThinkTags{"<think>", "</think>"};
inline constexpr ReasoningTags kMistralThinkTags{"[THINK]", "[/THINK]"};
inline constexpr ReasoningTags kGemma4ThoughtTags{"<|channel>thought\n", "<channel|>"};

}  // namespace strata::server
