// Prompt-lookup drafting: guesses the next tokens of a sequence by finding an earlier place
// where its last few tokens occurred and copying what followed them there.
//
// Pure functions over the caller's tokens; no state, thread-safe. Used by the engine's
// speculative decoding (engine/spec_drafts.h): a guess is only ever a proposal, checked token
// by token against the target model, so a bad guess costs speed, never output.
#pragma once

#include <cstdint>
#include <span>

namespace strata {

struct NgramDraftOptions {
  int n_min = 1;  // shortest suffix matched
  int n_max = 3;  // longest suffix matched; longer matches are tried first
};

// Writes at most out.size() tokens that followed the most recent earlier occurrence of the
// longest suffix of `tokens` (between n_min and n_max tokens long) and returns how many;
// 0 when no suffix recurs. The copied tokens never extend past the end of `tokens`.
int ngram_draft(std::span<const int32_t> tokens, const NgramDraftOptions& options, std::span<int32_t> out);

}  // namespace strata
