#include "tools/bench_prompts.h"

#include <array>

#include "tokenizer/tokenizer.h"

namespace strata {

namespace {

constexpr std::array<const char*, 6> kSentences = {
    " Once upon a time, there was a little girl named Lily who loved to play in the park.",
    " One day, she found a shiny red ball under a big tree and wanted to show it to her mom.",
    " Her friend Tom came running with his dog, and they played together until the sun went down.",
    " The next morning, the sky was grey, so they built a small house out of boxes and blankets.",
    " A bird landed on the window and sang a happy song, and everyone laughed and clapped.",
    " At the end of the day, Lily said thank you to her friends and went home to sleep.",
};

constexpr std::array<const char*, 4> kTurns = {
    "\nWhat happened next?", "\nAnd then what did Tom do?", "\nTell me more about the bird.",
    "\nHow did the story end?",
};

}  // namespace

std::vector<int32_t> bench_prompt(const Tokenizer& tokenizer, int index, int n_tokens) {
  std::vector<int32_t> ids = tokenizer.encode("Story number " + std::to_string(index) + ":", true, false);
  for (size_t s = static_cast<size_t>(index); static_cast<int>(ids.size()) < n_tokens; ++s) {
    std::vector<int32_t> more = tokenizer.encode(kSentences[s % kSentences.size()], false, false);
    if (more.empty()) more.push_back(ids.back());
    ids.insert(ids.end(), more.begin(), more.end());
  }
  ids.resize(static_cast<size_t>(n_tokens < 1 ? 1 : n_tokens));
  return ids;
}

std::vector<int32_t> bench_turn(const Tokenizer& tokenizer, int index) {
  return tokenizer.encode(kTurns[static_cast<size_t>(index) % kTurns.size()], false, false);
}

}  // namespace strata
