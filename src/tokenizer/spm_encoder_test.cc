#include "tokenizer/spm_encoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata {
namespace {

using Ids = std::vector<int32_t>;

constexpr int32_t kUnknown = static_cast<int32_t>(TokenType::kUnknown);
constexpr int32_t kSpmControl = static_cast<int32_t>(TokenType::kControl);
constexpr int32_t kSpmNormal = static_cast<int32_t>(TokenType::kNormal);
constexpr int32_t kByte = static_cast<int32_t>(TokenType::kByte);

// A small scored vocabulary; the ids below index it.
struct TinySpm {
  Vocab vocab;
  SpmEncoder encoder;
  TinySpm(std::vector<std::string> texts, std::vector<float> scores, std::vector<int32_t> types)
      : vocab(std::move(texts), std::move(scores), std::move(types)), encoder(vocab, 0) {}
  Ids encode(std::string_view text) const {
    Ids ids;
    encoder.encode(text, &ids);
    return ids;
  }
};

TinySpm tiny_spm(float ab_score, float bc_score) {
  //            0        1      2     3     4     5     6     7     8     9       10        11
  return TinySpm({"<unk>", "<s>", "a", "b", "c", "ab", "bc", "aa", "<", "<s", "<0xC3>", "<0xA9>"},
                 {0, 0, -1, -1, -1, ab_score, bc_score, -3, -1, -2, 0, 0},
                 {kUnknown, kSpmControl, kSpmNormal, kSpmNormal, kSpmNormal, kSpmNormal, kSpmNormal, kSpmNormal,
                  kSpmNormal, kSpmNormal, kByte, kByte});
}

TEST(SpmEncoderTest, MergesTheHighestScoringPairFirst) {
  EXPECT_EQ(tiny_spm(-1.0f, -0.5f).encode("abc"), (Ids{2, 6}));  // a + bc
  EXPECT_EQ(tiny_spm(-0.5f, -1.0f).encode("abc"), (Ids{5, 4}));  // ab + c
}

TEST(SpmEncoderTest, BreaksScoreTiesTowardsTheLeft) {
  EXPECT_EQ(tiny_spm(-1.0f, -1.0f).encode("abc"), (Ids{5, 4}));
  EXPECT_EQ(tiny_spm(-1.0f, -1.0f).encode("aaa"), (Ids{7, 2}));
}

TEST(SpmEncoderTest, FallsBackToByteTokensForUnknownCharacters) {
  EXPECT_EQ(tiny_spm(-1.0f, -1.0f).encode("a\xC3\xA9"), (Ids{2, 10, 11}));  // "aé"
}

TEST(SpmEncoderTest, UsesUnknownWhenAByteTokenIsMissing) {
  EXPECT_EQ(tiny_spm(-1.0f, -1.0f).encode("\xE2\x82\xAC" "a"), (Ids{0, 2}));  // "€a"
}

TEST(SpmEncoderTest, NeverSpellsControlTokensByMerging) {
  // "<s" + ">" would form the control token <s>; ">" is not in the vocabulary either, so the text
  // becomes "<s" and an unknown, never id 1.
  const Ids ids = tiny_spm(-1.0f, -1.0f).encode("<s>");
  EXPECT_EQ(ids, (Ids{9, 0}));
}

TEST(SpmEncoderTest, EncodesEmptyTextAsNothing) {
  EXPECT_TRUE(tiny_spm(-1.0f, -1.0f).encode("").empty());
}

}  // namespace
}  // namespace strata
