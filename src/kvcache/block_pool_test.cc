#include "kvcache/block_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace strata {
namespace {

constexpr int kTokens = 4;

std::vector<int32_t> toks(int base) { return {base, base + 1, base + 2, base + 3}; }
BlockHash key_of(int base) { return chain_hash(root_hash(0), toks(base)); }

TEST(BlockPool, HandsOutFreeBlocksLowestFirstThenRunsOut) {
  BlockPool pool(3, 64, kTokens);
  EXPECT_EQ(pool.allocate(), 0);
  EXPECT_EQ(pool.allocate(), 1);
  EXPECT_EQ(pool.allocate(), 2);
  EXPECT_EQ(pool.allocate(), -1);
  EXPECT_EQ(pool.n_used(), 3);
}

TEST(BlockPool, UnpublishedBlockReturnsToFreeListPublishedOneIsCached) {
  BlockPool pool(2, 64, kTokens);
  int a = pool.allocate();
  int b = pool.allocate();
  ASSERT_TRUE(pool.publish(a, key_of(10), toks(10)));
  pool.unref(a);
  pool.unref(b);
  EXPECT_EQ(pool.n_cached(), 1);
  EXPECT_EQ(pool.n_free(), 1);
  EXPECT_EQ(pool.find(key_of(10), toks(10)), a);
}

TEST(BlockPool, FindComparesTokenIdsNotOnlyTheKey) {
  BlockPool pool(1, 64, kTokens);
  int a = pool.allocate();
  ASSERT_TRUE(pool.publish(a, key_of(10), toks(10)));
  EXPECT_EQ(pool.find(key_of(10), toks(11)), -1);
  EXPECT_EQ(pool.find(key_of(11), toks(10)), -1);
}

TEST(BlockPool, DuplicateKeyIsNotPublishedTwice) {
  BlockPool pool(2, 64, kTokens);
  int a = pool.allocate();
  int b = pool.allocate();
  EXPECT_TRUE(pool.publish(a, key_of(1), toks(1)));
  EXPECT_FALSE(pool.publish(b, key_of(1), toks(1)));
  EXPECT_FALSE(pool.is_published(b));
  pool.unref(b);
  EXPECT_EQ(pool.n_free(), 1);
}

TEST(BlockPool, EvictsLeastRecentlyUsedCachedBlockAndCallsHookFirst) {
  BlockPool pool(3, 64, kTokens);
  int blocks[3];
  for (int i = 0; i < 3; ++i) {
    blocks[i] = pool.allocate();
    ASSERT_TRUE(pool.publish(blocks[i], key_of(10 * i), toks(10 * i)));
  }
  // Release order sets recency: 1, then 0, then 2.
  pool.unref(blocks[1]);
  pool.unref(blocks[0]);
  pool.unref(blocks[2]);
  std::vector<int> hooked;
  std::vector<bool> still_published;
  pool.set_evict_hook([&](int b) {
    hooked.push_back(b);
    still_published.push_back(pool.is_published(b));
  });
  EXPECT_EQ(pool.allocate(), blocks[1]);
  EXPECT_EQ(pool.allocate(), blocks[0]);
  EXPECT_EQ(hooked, (std::vector<int>{blocks[1], blocks[0]}));
  EXPECT_EQ(still_published, (std::vector<bool>{true, true}));
  EXPECT_EQ(pool.find(key_of(10), toks(10)), -1);
  EXPECT_EQ(pool.find(key_of(20), toks(20)), blocks[2]);
  EXPECT_EQ(pool.evictions(), 2u);
}

TEST(BlockPool, AColdReleaseIsEvictedFirst) {
  BlockPool pool(4, 64, kTokens);
  int blocks[4];
  for (int i = 0; i < 4; ++i) {
    blocks[i] = pool.allocate();
    ASSERT_TRUE(pool.publish(blocks[i], key_of(10 * i), toks(10 * i)));
  }
  pool.unref(blocks[0]);
  pool.unref_cold(blocks[1]);
  pool.unref(blocks[2]);
  pool.unref_cold(blocks[3]);  // the coldest: evicted before everything else
  EXPECT_EQ(pool.cached_blocks(), (std::vector<int>{blocks[3], blocks[1], blocks[0], blocks[2]}));
  EXPECT_EQ(pool.allocate(), blocks[3]);
  EXPECT_EQ(pool.allocate(), blocks[1]);
  EXPECT_EQ(pool.n_cached(), 2);
  // A cold block taken again and released normally is warm again.
  int c = pool.allocate();
  EXPECT_EQ(c, blocks[0]);
  EXPECT_EQ(pool.find(key_of(20), toks(20)), blocks[2]);
}

TEST(BlockPool, ReferencingACachedBlockProtectsItFromEviction) {
  BlockPool pool(2, 64, kTokens);
  int a = pool.allocate();
  int b = pool.allocate();
  ASSERT_TRUE(pool.publish(a, key_of(1), toks(1)));
  ASSERT_TRUE(pool.publish(b, key_of(2), toks(2)));
  pool.unref(a);
  pool.unref(b);
  pool.ref(a);  // a is now used, b is the only cached block
  EXPECT_EQ(pool.allocate(), b);
  EXPECT_EQ(pool.allocate(), -1);
  EXPECT_EQ(pool.refcount(a), 1);
}

TEST(BlockPool, ReuseRefreshesRecency) {
  BlockPool pool(2, 64, kTokens);
  int a = pool.allocate();
  int b = pool.allocate();
  ASSERT_TRUE(pool.publish(a, key_of(1), toks(1)));
  ASSERT_TRUE(pool.publish(b, key_of(2), toks(2)));
  pool.unref(a);
  pool.unref(b);
  pool.ref(a);
  pool.unref(a);  // a is now the most recently used
  EXPECT_EQ(pool.cached_blocks(), (std::vector<int>{b, a}));
  EXPECT_EQ(pool.allocate(), b);
}

TEST(BlockPool, DropCachedFreesWithoutHook) {
  BlockPool pool(1, 64, kTokens);
  int a = pool.allocate();
  ASSERT_TRUE(pool.publish(a, key_of(1), toks(1)));
  pool.unref(a);
  bool hooked = false;
  pool.set_evict_hook([&](int) { hooked = true; });
  pool.drop_cached(a);
  EXPECT_EQ(pool.n_free(), 1);
  EXPECT_EQ(pool.allocate(), a);
  EXPECT_FALSE(hooked);
}

TEST(BlockPool, BlocksDoNotOverlap) {
  BlockPool pool(3, 100, kTokens);
  EXPECT_EQ(pool.data(1) - pool.data(0), 100);
  EXPECT_EQ(pool.data(2) - pool.data(1), 100);
}

}  // namespace
}  // namespace strata
