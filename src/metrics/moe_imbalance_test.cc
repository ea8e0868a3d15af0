#include "metrics/moe_imbalance.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

MoeLoad load(int n_layer, int n_expert, std::vector<uint64_t> tokens) {
  MoeLoad m;
  m.n_layer = n_layer;
  m.n_expert = n_expert;
  m.n_expert_used = 2;
  m.window_s = 60;
  m.tokens = std::move(tokens);
  return m;
}

TEST(MoeExpertImbalance, EvenLoadIsOne) {
  EXPECT_EQ(moe_expert_imbalance(load(2, 4, {5, 5, 5, 5, 9, 9, 9, 9})), 1.0);
}

TEST(MoeExpertImbalance, WorstLayerBusiestOverMean) {
  // Layer 0: max 6, mean 3 -> 2; layer 1: max 12, mean 4 -> 3.
  EXPECT_EQ(moe_expert_imbalance(load(2, 4, {6, 2, 2, 2, 12, 4, 0, 0})), 3.0);
}

TEST(MoeExpertImbalance, OneExpertTakingEverythingIsNExpert) {
  EXPECT_EQ(moe_expert_imbalance(load(1, 8, {0, 0, 7, 0, 0, 0, 0, 0})), 8.0);
}

TEST(MoeExpertImbalance, LayersWithoutTokensAreSkipped) {
  EXPECT_EQ(moe_expert_imbalance(load(2, 2, {0, 0, 3, 1})), 1.5);
}

TEST(MoeExpertImbalance, AbsentWithoutTokensOrExperts) {
  EXPECT_FALSE(moe_expert_imbalance(load(2, 2, {0, 0, 0, 0})).has_value());
  EXPECT_FALSE(moe_expert_imbalance(MoeLoad{}).has_value());
  EXPECT_FALSE(moe_expert_imbalance(load(2, 2, {1, 2, 3})).has_value());  // wrong size
}

}  // namespace
}  // namespace strata
