#include "kvcache/block_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace strata {
namespace {

BlockHash key(uint64_t i) { return chain_hash(root_hash(0), std::vector<int32_t>{static_cast<int32_t>(i)}); }

TEST(BlockIndex, InsertFindErase) {
  BlockIndex index(8);
  EXPECT_EQ(index.find(key(1)), -1);
  EXPECT_TRUE(index.insert(key(1), 10));
  EXPECT_FALSE(index.insert(key(1), 11));
  EXPECT_EQ(index.find(key(1)), 10);
  EXPECT_TRUE(index.erase(key(1)));
  EXPECT_FALSE(index.erase(key(1)));
  EXPECT_EQ(index.find(key(1)), -1);
}

TEST(BlockIndex, RefusesMoreThanItsCapacity) {
  BlockIndex index(3);
  EXPECT_TRUE(index.insert(key(1), 1));
  EXPECT_TRUE(index.insert(key(2), 2));
  EXPECT_TRUE(index.insert(key(3), 3));
  EXPECT_FALSE(index.insert(key(4), 4));
  EXPECT_EQ(index.size(), 3);
}

TEST(BlockIndex, CollidingHomesSurviveEraseInTheMiddle) {
  // Keys forced onto one home slot: erasing the first must keep the others reachable.
  BlockIndex index(16);
  BlockHash a{5, 0}, b{5 + 64, 64}, c{5 + 128, 128};  // lo ^ hi == 5 for all three
  ASSERT_TRUE(index.insert(a, 1));
  ASSERT_TRUE(index.insert(b, 2));
  ASSERT_TRUE(index.insert(c, 3));
  EXPECT_TRUE(index.erase(a));
  EXPECT_EQ(index.find(b), 2);
  EXPECT_EQ(index.find(c), 3);
  EXPECT_TRUE(index.erase(c));
  EXPECT_EQ(index.find(b), 2);
}

TEST(BlockIndex, MatchesAReferenceMapUnderRandomChurn) {
  BlockIndex index(64);
  std::map<uint64_t, int> ref;
  std::mt19937 rng(42);
  for (int step = 0; step < 20000; ++step) {
    uint64_t k = rng() % 100;
    if (rng() % 2 == 0) {
      bool room = ref.size() < 64;
      bool fresh = ref.count(k) == 0;
      EXPECT_EQ(index.insert(key(k), static_cast<int>(k)), room && fresh);
      if (room && fresh) ref[k] = static_cast<int>(k);
    } else {
      EXPECT_EQ(index.erase(key(k)), ref.erase(k) == 1);
    }
    uint64_t probe = rng() % 100;
    EXPECT_EQ(index.find(key(probe)), ref.count(probe) ? ref[probe] : -1);
  }
  EXPECT_EQ(index.size(), static_cast<int>(ref.size()));
}

}  // namespace
}  // namespace strata
