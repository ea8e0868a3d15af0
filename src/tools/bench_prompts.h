// Deterministic text prompts for the engine tools (bench, batch-test, park-test): prompt i
// opens with its own number, so no two prompts share a K/V block, and continues with
// story sentences until it is n_tokens long. Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strata {

class Tokenizer;

// Exactly n_tokens ids (n_tokens >= 1), starting with BOS when the model adds one.
std::vector<int32_t> bench_prompt(const Tokenizer& tokenizer, int index, int n_tokens);
// A short follow-up turn appended to a conversation ("\nAnd then?" style), without BOS.
std::vector<int32_t> bench_turn(const Tokenizer& tokenizer, int index);

}  // namespace strata
