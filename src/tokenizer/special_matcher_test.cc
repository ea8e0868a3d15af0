#include "tokenizer/special_matcher.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata {
namespace {

constexpr int32_t kNormalType = static_cast<int32_t>(TokenType::kNormal);
constexpr int32_t kControlType = static_cast<int32_t>(TokenType::kControl);
constexpr int32_t kUserType = static_cast<int32_t>(TokenType::kUserDefined);

// "<|im_end|>" (id 0) is a control token; "<|im" (1) and "<think>" (2) are user-defined.
Vocab special_vocab() {
  return Vocab({"<|im_end|>", "<|im", "<think>", "x"}, {}, {kControlType, kUserType, kUserType, kNormalType});
}

std::string describe(const std::vector<TextFragment>& fragments) {
  std::string out;
  for (const TextFragment& f : fragments) {
    out += f.token_id >= 0 ? "[" + std::to_string(f.token_id) + "]" : "(" + std::string(f.text) + ")";
  }
  return out;
}

std::string split_marked(const SpecialMatcher& matcher, std::string_view text, bool parse_special) {
  std::vector<TextFragment> fragments;
  matcher.split(text, parse_special, &fragments);
  return describe(fragments);
}

TEST(SpecialMatcherTest, MatchesControlTokensOnlyWhenAsked) {
  Vocab vocab = special_vocab();
  SpecialMatcher matcher(vocab);
  EXPECT_EQ(split_marked(matcher, "a<|im_end|>b", true), "(a)[0](b)");
  // Without parse_special the control token is text, but the user-defined "<|im" still matches.
  EXPECT_EQ(split_marked(matcher, "a<|im_end|>b", false), "(a)[1](_end|>b)");
}

TEST(SpecialMatcherTest, PrefersTheLongestTokenAtAPosition) {
  Vocab vocab = special_vocab();
  SpecialMatcher matcher(vocab);
  EXPECT_EQ(split_marked(matcher, "<|im_end|><|im", true), "[0][1]");
}

TEST(SpecialMatcherTest, MatchesAdjacentTokensAndLeavesPlainTextWhole) {
  Vocab vocab = special_vocab();
  SpecialMatcher matcher(vocab);
  EXPECT_EQ(split_marked(matcher, "<think><think>", false), "[2][2]");
  EXPECT_EQ(split_marked(matcher, "no specials <thin", true), "(no specials <thin)");
  EXPECT_EQ(split_marked(matcher, "", true), "");
}

}  // namespace
}  // namespace strata
