// The one rule that turns chat messages into prompt tokens, shared by `strata run --chat` and
// the server (so a conversation is the same tokens whichever path sends it to the model).
//
// Stateless free function; thread-safe as the Tokenizer and ChatTemplate it reads are.
//
// The rule: the template renders the conversation and the assistant's opener, given the
// vocabulary's BOS and EOS texts (templates that want a BOS render it themselves); the text is
// tokenized with special tokens parsed and nothing added; then, when the vocabulary adds a BOS
// and the text did not start with one, one is put in front. A prompt therefore starts with
// exactly one BOS when the vocabulary wants one, and never with two. For a template known to
// open its reasoning block whatever enable_thinking says, a rendered text that ends inside that
// block although the context switched thinking off is closed first (close_reasoning_switched_off).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "chat/chat_template.h"

namespace strata {

class Tokenizer;

// text, a rendered prompt, with "</think>\n\n" appended when it ends with "<think>\n" although
// context sets enable_thinking to false, for a template that opens the reasoning block whatever
// the switch says (DeepSeek-R1's, MiniMax-M2's): the block is closed empty and the reply starts with the answer,
// as llama.cpp does for those templates. Otherwise (thinking on or not given, no open block) text
// unchanged.
std::string close_reasoning_switched_off(std::string text, const nlohmann::ordered_json& context);

// extra_context: further template variables (tools, enable_thinking...), a JSON object or null.
// close_switched_off_reasoning: the template opens <think> whatever enable_thinking says (the
// server knows which: TemplateTraits), so close_reasoning_switched_off applies. Errors are the
// template's (raise_exception, bad data, limits).
Result<std::vector<int32_t>> chat_prompt_tokens(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                                const std::vector<ChatMessage>& messages,
                                                const nlohmann::ordered_json& extra_context = nullptr,
                                                bool close_switched_off_reasoning = false);

}  // namespace strata
