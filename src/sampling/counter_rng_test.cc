#include "sampling/counter_rng.h"

#include <gtest/gtest.h>

#include <set>

namespace strata {
namespace {

TEST(CounterRng, DrawDependsOnlyOnSeedAndPosition) {
  double first = counter_uniform(42, 7);
  for (uint64_t p = 0; p < 1000; ++p) counter_uniform(p, p * 3);  // unrelated draws in between
  EXPECT_EQ(counter_uniform(42, 7), first);
  EXPECT_EQ(counter_hash(42, 7), counter_hash(42, 7));
}

TEST(CounterRng, NeighbouringSeedsAndPositionsGiveDistinctDraws) {
  std::set<uint64_t> seen;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    for (uint64_t pos = 0; pos < 30; ++pos) seen.insert(counter_hash(seed, pos));
  }
  EXPECT_EQ(seen.size(), 900u);
  EXPECT_NE(counter_hash(1, 2), counter_hash(2, 1));
}

TEST(CounterRng, UniformDrawsFillTheUnitIntervalEvenly) {
  constexpr int kDraws = 100000;
  int buckets[10] = {};
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    double u = counter_uniform(2024, static_cast<uint64_t>(i));
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    ++buckets[static_cast<int>(u * 10)];
  }
  EXPECT_NEAR(sum / kDraws, 0.5, 0.01);
  // Each bucket expects 10000 draws (standard deviation ~95); allow 5%.
  for (int b : buckets) EXPECT_NEAR(b, kDraws / 10, kDraws / 200);
}

}  // namespace
}  // namespace strata
