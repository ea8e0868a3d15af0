#include "sampling/truncation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace strata {
namespace {

std::vector<int32_t> all_ids(size_t n) {
  std::vector<int32_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>(i);
  return ids;
}

std::vector<int32_t> sorted_prefix(std::vector<int32_t> ids, size_t n) {
  ids.resize(n);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(Truncation, TopKKeepsTheKBestWithTiesToLowestIds) {
  std::vector<float> logits = {0.5f, 2.0f, 1.0f, 2.0f, 1.0f, 2.0f};
  std::vector<int32_t> ids = all_ids(logits.size());
  size_t n = keep_top_k(ids, logits, 2);
  EXPECT_EQ(sorted_prefix(ids, n), (std::vector<int32_t>{1, 3}));
  ids = all_ids(logits.size());
  EXPECT_EQ(keep_top_k(ids, logits, 0), logits.size());
  EXPECT_EQ(keep_top_k(ids, logits, 99), logits.size());
}

TEST(Truncation, TopPKeepsTheSmallestNucleusReachingP) {
  // Probabilities 0.5, 0.25, 0.15, 0.1 (as logits at temperature 1).
  std::vector<float> logits = {std::log(0.15f), std::log(0.5f), std::log(0.1f), std::log(0.25f)};
  float max_logit = logits[1];
  double total = 0;
  for (float l : logits) total += token_mass(l, max_logit, 1.0f);
  std::vector<int32_t> ids = all_ids(4);
  ASSERT_EQ(keep_top_p(ids, logits, max_logit, 1.0f, total, 0.7f), 2u);
  EXPECT_EQ(ids[0], 1);
  EXPECT_EQ(ids[1], 3);
  ids = all_ids(4);
  EXPECT_EQ(keep_top_p(ids, logits, max_logit, 1.0f, total, 0.1f), 1u);
  EXPECT_EQ(ids[0], 1);
  ids = all_ids(4);
  EXPECT_EQ(keep_top_p(ids, logits, max_logit, 1.0f, total, 1.0f), 4u);
}

TEST(Truncation, TopPWidensBeyondItsFirstSortedPrefix) {
  // 1000 equal tokens: a 0.5 nucleus needs 500 of them, more than the first prefix sorts.
  std::vector<float> logits(1000, 0.0f);
  std::vector<int32_t> ids = all_ids(1000);
  size_t n = keep_top_p(ids, logits, 0.0f, 1.0f, 1000.0, 0.5f);
  EXPECT_EQ(n, 500u);
  EXPECT_EQ(sorted_prefix(ids, n), all_ids(500));
}

TEST(Truncation, MinPKeepsTokensAboveTheFractionOfTheBest) {
  std::vector<int32_t> ids = {7, 3, 9, 1};
  std::vector<float> masses = {1.0f, 0.3f, 0.05f, 0.1f};
  ASSERT_EQ(keep_min_p(ids, masses, 0.1f), 3u);
  EXPECT_EQ(ids[0], 7);
  EXPECT_EQ(ids[1], 3);
  EXPECT_EQ(ids[2], 1);
  EXPECT_EQ(masses[2], 0.1f);
}

TEST(Truncation, DrawWalksTheCumulativeMass) {
  std::vector<int32_t> ids = {5, 6, 7};
  std::vector<float> masses = {1.0f, 0.0f, 3.0f};
  EXPECT_EQ(draw_token(ids, masses, 0.0), 5);
  EXPECT_EQ(draw_token(ids, masses, 0.2499), 5);
  EXPECT_EQ(draw_token(ids, masses, 0.25), 7);  // the zero-mass token is never drawn
  EXPECT_EQ(draw_token(ids, masses, 0.9999999), 7);
}

}  // namespace
}  // namespace strata
