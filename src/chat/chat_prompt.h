// The one rule that turns chat messages into prompt tokens, shared by `strata run --chat` and
// the server (so a conversation is the same tokens whichever path sends it to the model).
//
// Stateless free function; thread-safe as the Tokenizer and ChatTemplate it reads are.
//
// The rule: the template renders the conversation and the assistant's opener, given the
// vocabulary's BOS and EOS texts (templates that want a BOS render it themselves); the text is
// tokenized with special tokens parsed and nothing added; then, when the vocabulary adds a BOS
// and the text did not start with one, one is put in front. A prompt therefore starts with
// exactly one BOS when the vocabulary wants one, and never with two.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "chat/chat_template.h"

namespace strata {

class Tokenizer;

// extra_context: further template variables (tools, enable_thinking...), a JSON object or null.
// Errors are the template's (raise_exception, bad data, limits).
Result<std::vector<int32_t>> chat_prompt_tokens(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                                const std::vector<ChatMessage>& messages,
                                                const nlohmann::ordered_json& extra_context = nullptr);

}  // namespace strata
