#include "server/prompt_builder.h"

#include <fmt/format.h>

namespace strata::server {

namespace {

Result<std::vector<int32_t>> prompt_tokens(const PromptInput& prompt, const ModelText& text) {
  switch (prompt.kind) {
    case PromptInput::Kind::kChat:
      return text.chat_prompt(prompt);
    case PromptInput::Kind::kText:
      return text.tokenize(prompt.text, /*add_special=*/true);
    case PromptInput::Kind::kTokens:
      return prompt.tokens;
  }
  return Status::Internal("unknown prompt kind");
}

Status check_token_ids(const std::vector<int32_t>& tokens, int vocab_size, const char* what) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] < 0 || tokens[i] >= vocab_size) {
      return Status::InvalidArgument(fmt::format("{}[{}] = {} is not a token id (vocab has {})",
                                                 what, i, tokens[i], vocab_size));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<GenerateRequest> build_generate_request(const CompletionRequest& request,
                                               const ModelText& text, int n_ctx,
                                               uint64_t fresh_seed) {
  GenerateRequest out = request.generate;
  STRATA_ASSIGN_OR_RETURN(out.prompt_tokens, prompt_tokens(request.prompt, text));
  if (out.prompt_tokens.empty()) {
    return Status::InvalidArgument("the prompt is empty (it has no tokens)");
  }
  STRATA_RETURN_IF_ERROR(check_token_ids(out.prompt_tokens, text.vocab_size(), "prompt"));
  for (const auto& [token, bias] : out.sampling.logit_bias) {
    if (token >= text.vocab_size()) {
      return Status::InvalidArgument(fmt::format(
          "'logit_bias' names token {}, but the vocab has {} tokens", token, text.vocab_size()));
    }
  }
  const int n_prompt = static_cast<int>(out.prompt_tokens.size());
  if (request.max_tokens < 0) {
    out.max_tokens = n_ctx - n_prompt;
    if (out.max_tokens <= 0) {
      return Status::OutOfRange(fmt::format(
          "the prompt has {} tokens, which leaves no room in the {}-token context", n_prompt, n_ctx));
    }
  } else {
    out.max_tokens = request.max_tokens;
    if (static_cast<int64_t>(n_prompt) + out.max_tokens > n_ctx) {
      return Status::OutOfRange(fmt::format(
          "the prompt ({} tokens) plus max_tokens ({}) exceeds the context ({} tokens)", n_prompt,
          out.max_tokens, n_ctx));
    }
  }
  if (!request.seed_given) out.sampling.seed = fresh_seed;
  return out;
}

}  // namespace strata::server
