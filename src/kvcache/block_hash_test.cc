#include "kvcache/block_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

namespace strata {
namespace {

TEST(BlockHash, SameParentAndTokensGiveSameKey) {
  std::vector<int32_t> t = {1, 2, 3, 4};
  EXPECT_EQ(chain_hash(root_hash(7), t), chain_hash(root_hash(7), t));
}

TEST(BlockHash, KeyDependsOnParentTokensOrderAndLength) {
  BlockHash root = root_hash(7);
  std::vector<int32_t> a = {1, 2, 3, 4};
  std::vector<int32_t> swapped = {2, 1, 3, 4};
  std::vector<int32_t> shorter = {1, 2, 3};
  BlockHash k = chain_hash(root, a);
  EXPECT_NE(k, chain_hash(root_hash(8), a));
  EXPECT_NE(k, chain_hash(root, swapped));
  EXPECT_NE(k, chain_hash(root, shorter));
  EXPECT_NE(chain_hash(k, a), k);
}

TEST(BlockHash, NoCollisionsAmongManyNearbyChains) {
  // Blocks differing in one token, at every position, with chained parents: every key and
  // each 64-bit half stays distinct.
  std::set<std::pair<uint64_t, uint64_t>> keys;
  std::set<uint64_t> los, his;
  BlockHash parent = root_hash(1);
  int n = 0;
  for (int pos = 0; pos < 16; ++pos) {
    for (int v = 0; v < 256; ++v) {
      std::vector<int32_t> t(16, 5);
      t[pos] = v;
      BlockHash k = chain_hash(parent, t);
      keys.insert({k.lo, k.hi});
      los.insert(k.lo);
      his.insert(k.hi);
      ++n;
    }
    parent = chain_hash(parent, std::vector<int32_t>(16, pos));
  }
  // (pos, v=5) is the same block for every pos under the same parent only; parents differ.
  EXPECT_EQ(static_cast<int>(keys.size()), n);
  EXPECT_EQ(static_cast<int>(los.size()), n);
  EXPECT_EQ(static_cast<int>(his.size()), n);
}

TEST(BlockHash, SingleBitFlipChangesAboutHalfTheBits) {
  BlockHash root = root_hash(3);
  std::vector<int32_t> t(16, 1000);
  BlockHash a = chain_hash(root, t);
  int total = 0;
  for (int bit = 0; bit < 31; ++bit) {
    std::vector<int32_t> u = t;
    u[9] ^= (1 << bit);
    BlockHash b = chain_hash(root, u);
    total += __builtin_popcountll(a.lo ^ b.lo) + __builtin_popcountll(a.hi ^ b.hi);
  }
  double mean = total / 31.0;
  EXPECT_GT(mean, 50.0);
  EXPECT_LT(mean, 78.0);
}

TEST(BlockHash, HexIsThirtyTwoDigitsHighHalfFirst) {
  BlockHash k{0x1, 0xABCDEF0000000000ull};
  EXPECT_EQ(k.hex(), "abcdef00000000000000000000000001");
}

TEST(HashBytes64, DetectsAnySingleByteChange) {
  std::vector<unsigned char> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 7);
  uint64_t h = hash_bytes64(data.data(), data.size(), 0);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i] ^= 0x10;
    EXPECT_NE(hash_bytes64(data.data(), data.size(), 0), h) << "byte " << i;
    data[i] ^= 0x10;
  }
  EXPECT_EQ(hash_bytes64(data.data(), data.size(), 0), h);
  EXPECT_NE(hash_bytes64(data.data(), data.size(), 1), h);
  EXPECT_NE(hash_bytes64(data.data(), data.size() - 1, 0), h);
}

}  // namespace
}  // namespace strata
