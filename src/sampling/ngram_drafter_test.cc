#include "sampling/ngram_drafter.h"

#include <gtest/gtest.h>

#include <vector>

namespace strata {
namespace {

std::vector<int32_t> draft(const std::vector<int32_t>& tokens, NgramDraftOptions o, int k) {
  std::vector<int32_t> out(k, -1);
  out.resize(ngram_draft(tokens, o, out));
  return out;
}

TEST(NgramDrafter, CopiesWhatFollowedTheLatestEarlierOccurrence) {
  // Suffix (7, 8) occurred twice before; the latest is followed by 9, 4.
  std::vector<int32_t> t = {7, 8, 1, 2, 7, 8, 9, 4, 5, 7, 8};
  EXPECT_EQ(draft(t, {1, 2}, 2), (std::vector<int32_t>{9, 4}));
}

TEST(NgramDrafter, PrefersTheLongestMatchingSuffix) {
  // Suffix 3 alone last occurred before 6; the pair (2, 3) occurred before 5.
  std::vector<int32_t> t = {2, 3, 5, 0, 3, 6, 1, 2, 3};
  EXPECT_EQ(draft(t, {1, 2}, 1), (std::vector<int32_t>{5}));
  EXPECT_EQ(draft(t, {1, 1}, 1), (std::vector<int32_t>{6}));
}

TEST(NgramDrafter, NeverCopiesPastTheEndOfTheTokens) {
  std::vector<int32_t> t = {4, 5, 4, 5};
  // Suffix (4, 5) occurred at 0: what follows is (4, 5), then nothing more is known.
  EXPECT_EQ(draft(t, {2, 2}, 8), (std::vector<int32_t>{4, 5}));
}

TEST(NgramDrafter, DraftsNothingWithoutARecurringSuffix) {
  EXPECT_TRUE(draft({1, 2, 3, 4}, {1, 3}, 4).empty());
  EXPECT_TRUE(draft({}, {1, 3}, 4).empty());
  EXPECT_TRUE(draft({5}, {1, 3}, 4).empty());
  EXPECT_TRUE(draft({5, 5, 5}, {1, 3}, 0).empty());
}

TEST(NgramDrafter, ARepeatedTokenDraftsItsRun) {
  EXPECT_EQ(draft({9, 5, 5, 5}, {1, 1}, 3), (std::vector<int32_t>{5}));
  EXPECT_EQ(draft({9, 5, 5, 5}, {1, 2}, 3), (std::vector<int32_t>{5}));
}

}  // namespace
}  // namespace strata
