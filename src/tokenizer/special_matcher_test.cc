#include "tokenizer/special_matcher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata {
namespace {

constexpr int32_t kNormal = static_cast<int32_t>(TokenType::kNormal);
constexpr int32_t kControl = static_cast<int32_t>(TokenType::kControl);
constexpr int32_t kUser = static_cast<int32_t>(TokenType::kUserDefined);

// "<|im_end|>" (id 0) is a control token; "<|im" (1) and "<think>" (2) are user-defined.
Vocab make_vocab() { return Vocab({"<|im_end|>", "<|im", "<think>", "x"}, {}, {kControl, kUser, kUser, kNormal}); }

std::string describe(const std::vector<TextFragment>& fragments) {
  std::string out;
  for (const TextFragment& f : fragments) {
    out += f.token_id >= 0 ? "[" + std::to_string(f.token_id) + "]" : "(" + std::string(f.text) + ")";
  }
  return out;
}

std::string split(const SpecialMatcher& matcher, std::string_view text, bool parse_special) {
  std::vector<TextFragment> fragments;
  matcher.split(text, parse_special, &fragments);
  return describe(fragments);
}

TEST(SpecialMatcherTest, MatchesControlTokensOnlyWhenAsked) {
  Vocab vocab = make_vocab();
  SpecialMatcher matcher(vocab);
  EXPECT_EQ(split(matcher, "a<|im_end|>b", true), "(a)[0](b)");
  // Without parse_special the control token is text, but the user-defined "<|im" still matches.
  EXPECT_EQ(split(matcher, "a<|im_end|>b", false), "(a)[1](_end|>b)");
}

TEST(SpecialMatcherTest, PrefersTheLongestTokenAtAPosition) {
  Vocab vocab = make_vocab();
  SpecialMatcher matcher(vocab);
  EXPECT_EQ(split(matcher, "<|im_end|><|im", true), "[0][1]");
}

TEST(SpecialMatcherTest, MatchesAdjacentTokensAndLeavesPlainTextWhole) {
  Vocab vocab = make_vocab();
  SpecialMatcher matcher(vocab);
  EXPECT_EQ(split(matcher, "<think><think>", false), "[2][2]");
  EXPECT_EQ(split(matcher, "no specials <thin", true), "(no specials <thin)");
  EXPECT_EQ(split(matcher, "", true), "");
}

}  // namespace
}  // namespace strata
