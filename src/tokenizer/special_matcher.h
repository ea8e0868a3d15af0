// SpecialMatcher: finds special tokens spelled out in text ("<|im_end|>", "<think>") so they
// become their own ids instead of being split into ordinary tokens.
//
// Indexes the control, unknown and user-defined tokens of a Vocab (which must outlive it).
// User-defined tokens are always matched (as Hugging Face does for added tokens); control and
// unknown tokens only when the caller asks (parse_special). Matching is leftmost-longest: at each
// position the longest token that starts there wins. Immutable; safe from any thread.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "tokenizer/vocab.h"

namespace strata {

struct TextFragment {
  int32_t token_id;       // -1: a run of ordinary text in `text`
  std::string_view text;  // the bytes this fragment covers
};

class SpecialMatcher {
 public:
  explicit SpecialMatcher(const Vocab& vocab);

  // Appends the fragments of text, which tile it in order.
  void split(std::string_view text, bool parse_special, std::vector<TextFragment>* out) const;

  // Whether split() ever produces this id (a token it indexes).
  static bool is_matchable_type(TokenType type);

 private:
  int32_t match_at(std::string_view rest, bool parse_special) const;

  const Vocab& vocab_;
  std::array<std::vector<int32_t>, 256> by_first_byte_;  // each list longest text first
};

}  // namespace strata
