// The prompt tokens of `strata run`: the text as it is (BOS added when the vocabulary wants
// one), or with --chat one user message as the server's chat endpoints make it
// (server::EngineModelText::chat_prompt: chat/chat_prompt.h's rule, with the variables the
// server gives the template); and how --chat splits the reply, as the server splits it.
//
// Stateless free functions; thread-safe as the Tokenizer and ChatTemplate they read are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "chat/chat_template.h"
#include "server/reasoning_splitter.h"

namespace strata {
class Tokenizer;
}  // namespace strata

namespace strata::cli {

std::vector<int32_t> run_text_prompt(const Tokenizer& tokenizer, const std::string& prompt);
// Errors are the template's.
Result<std::vector<int32_t>> run_chat_prompt(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                             const std::string& prompt);
// The split of a --chat reply after `prompt` (server::chat_reasoning_mode): harmony channels when
// the template or vocabulary writes them (gpt-oss), <think> blocks when either knows "<think>".
server::ReasoningMode run_reasoning_mode(const Tokenizer& tokenizer, const ChatTemplate& chat_template,
                                         const std::vector<int32_t>& prompt);

}  // namespace strata::cli
