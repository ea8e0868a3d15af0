// Turns a parsed CompletionRequest into the engine's GenerateRequest: renders and tokenizes
// the prompt, checks token ids against the vocab, sizes max_tokens against the context and
// picks a seed when the client sent none.
//
// Stateless; thread-safe when the ModelText is.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "engine/engine_types.h"
#include "server/completion_request.h"
#include "server/model_text.h"

namespace strata::server {

// n_ctx: the per-request context in tokens. fresh_seed is used when request.seed_given is false.
// Errors: kInvalidArgument (empty prompt, token id outside the vocab), kOutOfRange (prompt plus
// max_tokens do not fit in the context; the message gives all three numbers).
Result<GenerateRequest> build_generate_request(const CompletionRequest& request,
                                               const ModelText& text, int n_ctx,
                                               uint64_t fresh_seed);

}  // namespace strata::server
