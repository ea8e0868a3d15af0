#include "kvcache/kv_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <vector>

namespace strata {
namespace {

namespace fs = std::filesystem;

constexpr int kBlockTokens = 4;

KvLayout layout() {
  KvLayout l;
  l.type = DType::kF32;
  l.n_layer = 2;
  l.n_head_kv = 1;
  l.head_dim = 4;
  l.block_tokens = kBlockTokens;
  return l;
}

std::vector<int32_t> seq_tokens(int n, int start = 100) {
  std::vector<int32_t> t(n);
  std::iota(t.begin(), t.end(), start);
  return t;
}

// Stands in for the model: block b's bytes depend on every token up to its end, as real K/V does.
void write_kv(KvCache& kv, int seq, const std::vector<int32_t>& tokens, int from_block, int to_block) {
  size_t bytes = kv.layout().block_bytes();
  for (int b = from_block; b < to_block; ++b) {
    uint64_t h = 0;
    for (int i = 0; i < (b + 1) * kBlockTokens && i < static_cast<int>(tokens.size()); ++i) h = h * 31 + tokens[i];
    std::byte* p = kv.block(seq, 0, b);
    for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<std::byte>((h >> (i % 8)) + i);
  }
}

class KvCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("kvcache_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<KvCache> make(int n_blocks, bool park, int n_seqs = 2) {
    KvCacheOptions o;
    o.layout = layout();
    o.n_blocks = n_blocks;
    o.n_seqs = n_seqs;
    o.max_seq_tokens = 64;
    o.model_id = 1234;
    if (park) o.park_dir = dir_.string();
    o.park_capacity_bytes = 1 << 20;
    auto kv = KvCache::Create(o);
    EXPECT_TRUE(kv.ok()) << kv.status().ToString();
    return kv.ok() ? std::move(kv).value() : nullptr;
  }
  // Runs a whole "request" on seq: admit, compute the non-reused blocks, publish, release.
  Admission run(KvCache& kv, int seq, const std::vector<int32_t>& tokens) {
    int n = static_cast<int>(tokens.size());
    auto a = kv.admit(seq, tokens, n - 1, n);
    EXPECT_TRUE(a.has_value());
    EXPECT_TRUE(kv.grow(seq, n).ok());
    write_kv(kv, seq, tokens, a->reused_tokens / kBlockTokens, kv.blocks_for_tokens(n));
    kv.publish(seq, tokens, n);
    return *a;
  }
  std::vector<std::byte> copy_block(KvCache& kv, int seq, int b) {
    std::byte* p = kv.block(seq, 0, b);
    return {p, p + kv.layout().block_bytes()};
  }
  fs::path dir_;
};

TEST_F(KvCacheTest, FreshPromptReusesNothing) {
  auto kv = make(16, false);
  Admission a = run(*kv, 0, seq_tokens(10));
  EXPECT_EQ(a.reused_tokens, 0);
  EXPECT_EQ(kv->stats().blocks_used, 3);
}

TEST_F(KvCacheTest, SecondRequestSharesFullBlocksAndRecomputesTheLastToken) {
  auto kv = make(16, false);
  auto tokens = seq_tokens(12);  // exactly 3 blocks
  run(*kv, 0, tokens);
  auto shared = copy_block(*kv, 0, 1);
  const std::byte* computed[2] = {kv->block(0, 0, 0), kv->block(0, 0, 1)};
  kv->release(0);
  EXPECT_EQ(kv->stats().blocks_cached, 3);
  Admission a = run(*kv, 1, tokens);
  // The last prompt token must be recomputed for its logits, so block 2 is not reused.
  EXPECT_EQ(a.reused_tokens, 8);
  // The reused blocks are the very ones sequence 0 computed, not copies.
  EXPECT_EQ(kv->block(1, 0, 0), computed[0]);
  EXPECT_EQ(kv->block(1, 0, 1), computed[1]);
  EXPECT_EQ(std::memcmp(kv->block(1, 0, 1), shared.data(), shared.size()), 0);
  KvCacheStats s = kv->stats();
  EXPECT_EQ(s.prefix_hit_tokens, 8u);
  EXPECT_EQ(s.prefix_queries_tokens, 24u);
  EXPECT_EQ(s.bytes_reused, 2 * kv->layout().block_bytes());
}

TEST_F(KvCacheTest, RunningSequencesShareBlocksByPointer) {
  auto kv = make(16, false);
  auto tokens = seq_tokens(10);
  run(*kv, 0, tokens);  // still running: its blocks are referenced
  auto longer = tokens;
  longer.push_back(7);
  Admission a = run(*kv, 1, longer);
  EXPECT_EQ(a.reused_tokens, 8);
  EXPECT_EQ(kv->block(0, 0, 0), kv->block(1, 0, 0));
  EXPECT_EQ(kv->block(0, 0, 1), kv->block(1, 0, 1));
  EXPECT_NE(kv->block(0, 0, 2), kv->block(1, 0, 2));
}

TEST_F(KvCacheTest, DifferentEarlierTokenBreaksTheChain) {
  auto kv = make(16, false);
  auto tokens = seq_tokens(12);
  run(*kv, 0, tokens);
  kv->release(0);
  auto changed = tokens;
  changed[1] = 5;  // block 0 differs, so blocks 1.. differ too even with equal tokens
  EXPECT_EQ(run(*kv, 1, changed).reused_tokens, 0);
}

TEST_F(KvCacheTest, PartialLastBlockIsFreedOnRelease) {
  auto kv = make(16, false);
  run(*kv, 0, seq_tokens(10));
  kv->release(0);
  KvCacheStats s = kv->stats();
  EXPECT_EQ(s.blocks_cached, 2);
  EXPECT_EQ(s.blocks_used, 0);
}

TEST_F(KvCacheTest, AdmissionWaitsWhenThePoolCannotReserveAndChangesNothing) {
  auto kv = make(4, false);
  auto first = kv->admit(0, seq_tokens(8), 7, 12);  // reserves 3 blocks
  ASSERT_TRUE(first.has_value());
  EXPECT_FALSE(kv->admit(1, seq_tokens(8, 500), 7, 8).has_value());  // needs 2, 1 left
  EXPECT_TRUE(kv->admit(1, seq_tokens(4, 500), 3, 4).has_value());
  EXPECT_TRUE(kv->grow(0, 12).ok());
  EXPECT_EQ(kv->stats().blocks_used, 3);
}

TEST_F(KvCacheTest, GrowPastTheContextIsOutOfRange) {
  auto kv = make(32, false);
  ASSERT_TRUE(kv->admit(0, seq_tokens(4), 3, 4).has_value());
  EXPECT_EQ(kv->grow(0, 65).code(), Code::kOutOfRange);
}

TEST_F(KvCacheTest, EvictedBlocksAreParkedAndRestoredByteForByte) {
  auto kv = make(4, true);
  auto a_tokens = seq_tokens(13);  // 3 full blocks + 1 token
  run(*kv, 0, a_tokens);
  std::vector<std::vector<std::byte>> a_blocks;
  for (int b = 0; b < 3; ++b) a_blocks.push_back(copy_block(*kv, 0, b));
  kv->release(0);
  run(*kv, 1, seq_tokens(16, 900));  // needs all 4 blocks: evicts (parks) A's three
  kv->release(1);
  EXPECT_EQ(kv->stats().evictions, 3u);
  EXPECT_EQ(kv->stats().park.parks, 3u);
  auto follow_up = a_tokens;
  follow_up.push_back(42);  // 14 tokens: up to 13 reusable, i.e. 3 blocks
  Admission a = run(*kv, 0, follow_up);
  EXPECT_EQ(a.reused_tokens, 12);
  EXPECT_EQ(a.restored_tokens, 12);
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(std::memcmp(kv->block(0, 0, b), a_blocks[b].data(), a_blocks[b].size()), 0) << "block " << b;
  }
  EXPECT_EQ(kv->stats().restores, 1u);
  EXPECT_EQ(kv->stats().restored_blocks, 3u);
}

TEST_F(KvCacheTest, RestoringEarlyBlocksNeverEvictsTheLaterCachedOnes) {
  auto kv = make(6, true);
  auto a_tokens = seq_tokens(17);  // 4 full blocks + 1 token
  run(*kv, 0, a_tokens);
  kv->release(0);                  // LRU: A0 A1 A2 A3
  auto b = kv->admit(1, seq_tokens(4, 900), 3, 12);  // takes 2 free + evicts A0 (parked)
  ASSERT_TRUE(b.has_value());
  ASSERT_TRUE(kv->grow(1, 12).ok());
  kv->release(1);                  // LRU: A1 A2 A3, free: 3
  EXPECT_EQ(kv->stats().park.parks, 1u);
  // A's follow-up: A0 comes from the park store, A1..A3 from the pool (pinned first).
  auto follow = a_tokens;
  follow.push_back(1);
  Admission a = run(*kv, 0, follow);
  EXPECT_EQ(a.reused_tokens, 16);
  EXPECT_EQ(a.restored_tokens, 4);
  EXPECT_EQ(kv->stats().restored_blocks, 1u);
}

TEST_F(KvCacheTest, ParkedBlocksSurviveANewCacheOnTheSameDirectory) {
  auto tokens = seq_tokens(9);
  std::vector<std::byte> block1;
  {
    auto kv = make(8, true);
    run(*kv, 0, tokens);
    block1 = copy_block(*kv, 0, 1);
    kv->release(0);
    EXPECT_EQ(kv->park_idle(), 2);
  }
  auto kv = make(8, true);
  Admission a = run(*kv, 1, tokens);
  EXPECT_EQ(a.restored_tokens, 8);
  EXPECT_EQ(std::memcmp(kv->block(1, 0, 1), block1.data(), block1.size()), 0);
}

TEST_F(KvCacheTest, ParkingALongerConversationWritesOnlyNewBlocks) {
  auto kv = make(16, true);
  auto turn1 = seq_tokens(9);
  run(*kv, 0, turn1);
  kv->release(0);
  ASSERT_EQ(kv->park_idle(), 2);
  uint64_t first_bytes = kv->stats().park.bytes_written;
  auto turn2 = seq_tokens(17);  // same first 9 tokens, then more
  run(*kv, 0, turn2);
  kv->release(0);
  EXPECT_EQ(kv->park_idle(), 2);  // blocks 2 and 3 only
  EXPECT_EQ(kv->stats().park.bytes_written, 2 * first_bytes);
  EXPECT_EQ(kv->park_idle(), 0);
}

TEST_F(KvCacheTest, ParkIdleMovesBlocksOutOfMemory) {
  auto kv = make(16, true);
  auto tokens = seq_tokens(13);
  run(*kv, 0, tokens);
  auto block2 = copy_block(*kv, 0, 2);
  kv->release(0);
  ASSERT_EQ(kv->park_idle(), 3);
  EXPECT_EQ(kv->stats().blocks_cached, 0);
  Admission a = run(*kv, 0, tokens);
  EXPECT_EQ(a.restored_tokens, 12);
  EXPECT_EQ(std::memcmp(kv->block(0, 0, 2), block2.data(), block2.size()), 0);
}

TEST_F(KvCacheTest, ParkIdleWithoutAStoreKeepsBlocksCached) {
  auto kv = make(16, false);
  run(*kv, 0, seq_tokens(13));
  kv->release(0);
  EXPECT_EQ(kv->park_idle(), 0);
  EXPECT_EQ(kv->stats().blocks_cached, 3);
}

TEST_F(KvCacheTest, CorruptParkedBlockStopsTheRestoreThereAndIsRecomputed) {
  auto tokens = seq_tokens(13);
  {
    auto kv = make(8, true);
    run(*kv, 0, tokens);
    kv->release(0);
    ASSERT_EQ(kv->park_idle(), 3);
  }
  // Block 1's file is the one whose first token id (header offset 80) is tokens[4].
  int n_corrupted = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    int32_t first = 0;
    f.seekg(80);
    f.read(reinterpret_cast<char*>(&first), sizeof(first));
    if (first != tokens[4]) continue;
    f.seekp(-1, std::ios::end);
    f.put('\x01');
    ++n_corrupted;
  }
  ASSERT_EQ(n_corrupted, 1);
  auto kv = make(8, true);
  Admission a = run(*kv, 0, tokens);
  EXPECT_EQ(a.restored_tokens, 4);
  EXPECT_EQ(a.reused_tokens, 4);
  EXPECT_EQ(kv->stats().park.corrupt, 1u);
  EXPECT_EQ(kv->stats().park.restores, 1u);  // block 2 was never read
}

TEST_F(KvCacheTest, BlocksOfAnotherModelAreNotRestored) {
  auto tokens = seq_tokens(9);
  {
    auto kv = make(8, true);
    run(*kv, 0, tokens);
    kv->release(0);
    ASSERT_EQ(kv->park_idle(), 2);
  }
  KvCacheOptions o;
  o.layout = layout();
  o.n_blocks = 8;
  o.n_seqs = 1;
  o.max_seq_tokens = 64;
  o.model_id = 999;  // another model
  o.park_dir = dir_.string();
  o.park_capacity_bytes = 1 << 20;
  auto other = std::move(KvCache::Create(o)).value();
  EXPECT_EQ(run(*other, 0, tokens).reused_tokens, 0);
}

TEST_F(KvCacheTest, RetainedBlocksCountsThePreviousConversationStillCached) {
  auto kv = make(4, false);
  run(*kv, 0, seq_tokens(9));
  kv->release(0);
  EXPECT_EQ(kv->retained_blocks(0), 2);
  EXPECT_EQ(kv->retained_blocks(1), 0);
  run(*kv, 1, seq_tokens(16, 700));  // evicts both
  EXPECT_EQ(kv->retained_blocks(0), 0);
}

// A hybrid model's cache: 10 floats of recurrent state per sequence; parked when park_dir is set.
std::unique_ptr<KvCache> make_hybrid(int n_snapshots, int n_seqs = 2, const std::string& park_dir = "") {
  KvCacheOptions o;
  o.layout = layout();
  o.layout.state_floats = 10;
  o.n_blocks = 32;
  o.n_seqs = n_seqs;
  o.max_seq_tokens = 64;
  o.model_id = 1234;
  o.n_state_snapshots = n_snapshots;
  o.park_dir = park_dir;
  o.park_capacity_bytes = 1 << 20;
  auto kv = KvCache::Create(o);
  EXPECT_TRUE(kv.ok()) << kv.status().ToString();
  return kv.ok() ? std::move(kv).value() : nullptr;
}

TEST_F(KvCacheTest, HybridModelSequencesWithoutSnapshotsReuseAndShareNothing) {
  auto kv = make_hybrid(0);
  auto tokens = seq_tokens(12);
  Admission first = run(*kv, 0, tokens);
  kv->release(0);
  Admission again = run(*kv, 1, tokens);
  // The blocks alone cannot restore the recurrent state at position 8, so nothing is reused
  // and nothing was kept for reuse.
  EXPECT_EQ(first.reused_tokens, 0);
  EXPECT_EQ(again.reused_tokens, 0);
  EXPECT_EQ(kv->stats().blocks_cached, 0);
  EXPECT_EQ(kv->retained_blocks(0), 0);
}

TEST_F(KvCacheTest, EachSequenceHasItsOwnZeroedRecurrentState) {
  auto kv = make_hybrid(0, 3);
  ASSERT_NE(kv, nullptr);
  float* s0 = kv->recurrent_state(0);
  float* s1 = kv->recurrent_state(1);
  float* s2 = kv->recurrent_state(2);
  ASSERT_NE(s0, nullptr);
  EXPECT_EQ(s1 - s0, 10);
  EXPECT_EQ(s2 - s1, 10);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(s0[i], 0.0f);
  EXPECT_EQ(make(4, false)->recurrent_state(0), nullptr);  // a model without recurrent layers
}

// Stands in for a forward pass of a hybrid model: K/V for positions [from, to) and a state that
// depends on every token before `to`.
void compute(KvCache& kv, int seq, const std::vector<int32_t>& tokens, int from, int to) {
  ASSERT_TRUE(kv.grow(seq, to).ok());
  write_kv(kv, seq, tokens, from / kBlockTokens, kv.blocks_for_tokens(to));
  float* state = kv.recurrent_state(seq);
  for (int i = 0; i < 10; ++i) state[i] = static_cast<float>(to * 100 + tokens[static_cast<size_t>(to - 1)] + i);
  kv.publish(seq, tokens, to);
}

TEST_F(KvCacheTest, HybridFollowUpResumesFromTheStateSnapshotAtTheSharedBoundary) {
  auto kv = make_hybrid(4);
  auto first = seq_tokens(12);
  ASSERT_TRUE(kv->admit(0, first, 11, 12).has_value());
  compute(*kv, 0, first, 0, 12);  // ends on the boundary after block 2
  std::vector<float> at_12(kv->recurrent_state(0), kv->recurrent_state(0) + 10);
  kv->release(0);
  auto follow_up = seq_tokens(18);  // the same 12 tokens, then more
  auto a = kv->admit(1, follow_up, 17, 18);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 12);
  EXPECT_EQ(std::vector<float>(kv->recurrent_state(1), kv->recurrent_state(1) + 10), at_12);
}

TEST_F(KvCacheTest, HybridReuseStopsAtTheLastBoundaryWithASnapshot) {
  auto kv = make_hybrid(4);
  auto first = seq_tokens(14);
  ASSERT_TRUE(kv->admit(0, first, 13, 14).has_value());
  compute(*kv, 0, first, 0, 8);    // a snapshot after block 1
  compute(*kv, 0, first, 8, 14);   // 14 is no boundary: block 2 is cached, without a state
  kv->release(0);
  auto a = kv->admit(1, seq_tokens(20), 19, 20);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 8);
}

TEST_F(KvCacheTest, HybridSequenceKeepsItsPromptPointAndNewestSnapshotOnly) {
  auto kv = make_hybrid(8);
  auto tokens = seq_tokens(16);
  ASSERT_TRUE(kv->admit(0, std::span<const int32_t>(tokens).first(10), 9, 16).has_value());
  for (int to = 4; to <= 16; to += 4) compute(*kv, 0, tokens, to - 4, to);
  // Snapshots at 4, 8 (the prompt point: the last boundary within the 10-token prompt), 12, 16:
  // 4 and 12 were dropped when a newer one came.
  EXPECT_EQ(kv->stats().state_snapshots_used, 2);
  kv->release(0);
  auto a = kv->admit(1, seq_tokens(9), 8, 9);  // shares only up to position 8
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 8);
}

TEST_F(KvCacheTest, HybridSamePromptAgainResumesAtItsPromptPoint) {
  auto kv = make_hybrid(4);
  auto tokens = seq_tokens(20);
  const std::span<const int32_t> prompt = std::span<const int32_t>(tokens).first(16);
  ASSERT_TRUE(kv->admit(0, prompt, 15, 20).has_value());
  compute(*kv, 0, tokens, 0, 12);   // the prompt point: the last boundary before token 15
  compute(*kv, 0, tokens, 12, 16);  // the prompt's end, a boundary too: the newest, for now
  for (int to = 17; to <= 20; ++to) compute(*kv, 0, tokens, to - 1, to);  // decode to the next boundary
  kv->release(0);
  auto a = kv->admit(1, prompt, 15, 20);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 12);
  EXPECT_EQ(prompt_point(16, kBlockTokens), 12);
  EXPECT_EQ(prompt_point(17, kBlockTokens), 16);
  EXPECT_EQ(prompt_point(1, kBlockTokens), 0);
}

TEST(StateCacheTest, PinnedSnapshotsAreNeverEvictedAndReleasedOnesGoLeastRecentlyUsedFirst) {
  StateCache cache(2, 3, 2);
  const float a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, c[3] = {7, 8, 9};
  const int32_t ta[2] = {10, 11}, tb[2] = {20, 21}, tc[2] = {30, 31};
  const BlockHash ka{1, 1}, kb{2, 2}, kc{3, 3};
  std::vector<std::pair<BlockHash, std::vector<float>>> evicted;
  std::vector<int32_t> evicted_tokens;
  cache.set_evict_hook([&](const BlockHash& key, const float* state, std::span<const int32_t> tokens) {
    evicted.push_back({key, std::vector<float>(state, state + 3)});
    evicted_tokens.assign(tokens.begin(), tokens.end());
  });
  ASSERT_TRUE(cache.put(0, ka, a, true, ta));
  ASSERT_TRUE(cache.put(1, kb, b, true, tb));
  EXPECT_FALSE(cache.put(2, kc, c, true, tc));  // both entries pinned by running sequences
  cache.release(0);
  cache.release(1);
  float out[3];
  ASSERT_TRUE(cache.get(ka, out));  // ka is now the more recently used
  EXPECT_TRUE(evicted.empty());
  ASSERT_TRUE(cache.put(2, kc, c, true, tc));
  EXPECT_FALSE(cache.contains(kb));
  // The evicted snapshot went through the hook (the KvCache parks it there) before its entry
  // took kc's state.
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].first, kb);
  EXPECT_EQ(evicted[0].second, (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(evicted_tokens, (std::vector<int32_t>{20, 21}));
  EXPECT_TRUE(cache.get(kc, out));
  EXPECT_EQ(out[2], 9.0f);
  EXPECT_TRUE(cache.get(ka, out));
  EXPECT_EQ(out[0], 1.0f);
  int n_held = 0;
  cache.for_each([&](const BlockHash&, const float*, std::span<const int32_t> tokens) {
    ++n_held;
    EXPECT_EQ(tokens.size(), 2u);
  });
  EXPECT_EQ(n_held, 2);
}

class HybridParkTest : public KvCacheTest {
 protected:
  std::unique_ptr<KvCache> make_parked(int n_snapshots) { return make_hybrid(n_snapshots, 2, dir_.string()); }
  // The first turn: 12 tokens computed (state snapshots at 8, the prompt point, and 12), then
  // parked; returns the state after 12 and the bytes of its 3 blocks.
  std::pair<std::vector<float>, std::vector<std::vector<std::byte>>> first_turn_parked() {
    auto kv = make_parked(4);
    auto first = seq_tokens(12);
    EXPECT_TRUE(kv->admit(0, first, 11, 12).has_value());
    compute(*kv, 0, first, 0, 8);
    compute(*kv, 0, first, 8, 12);
    std::vector<float> at_12(kv->recurrent_state(0), kv->recurrent_state(0) + 10);
    std::vector<std::vector<std::byte>> blocks;
    for (int b = 0; b < 3; ++b) blocks.push_back(copy_block(*kv, 0, b));
    kv->release(0);
    EXPECT_EQ(kv->park_idle(), 5);  // 3 blocks and the 2 snapshots
    EXPECT_EQ(kv->stats().park.states, 2u);
    EXPECT_EQ(kv->stats().park.blocks, 3u);
    return {at_12, blocks};
  }
};

TEST_F(HybridParkTest, FollowUpAfterRestartResumesFromParkedBlocksAndState) {
  auto [at_12, blocks] = first_turn_parked();
  auto kv = make_parked(4);  // a restart: nothing held, the store scanned from the directory
  auto a = kv->admit(1, seq_tokens(18), 17, 18);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 12);
  EXPECT_EQ(a->restored_tokens, 12);
  EXPECT_EQ(std::vector<float>(kv->recurrent_state(1), kv->recurrent_state(1) + 10), at_12);
  for (int b = 0; b < 3; ++b) EXPECT_EQ(copy_block(*kv, 1, b), blocks[static_cast<size_t>(b)]) << b;
  EXPECT_EQ(kv->stats().restored_states, 1u);
}

TEST_F(HybridParkTest, DamagedParkedStateResumesFromAnEarlierOne) {
  first_turn_parked();
  auto kv = make_parked(4);
  // The state after 12 is filed under block 2's key: damage its last float.
  int damaged = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    if (e.path().extension() != ".kvs") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    // Both states' files; the one after 12 holds 12 * 100 + token 111 + i.
    float last;
    std::memcpy(&last, bytes.data() + bytes.size() - sizeof(float), sizeof(float));
    if (last != 12 * 100 + 111 + 9) continue;
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-2, std::ios::end);
    f.put('\x5a');
    ++damaged;
  }
  ASSERT_EQ(damaged, 1);
  auto a = kv->admit(1, seq_tokens(18), 17, 18);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 8);
  EXPECT_EQ(kv->recurrent_state(1)[0], static_cast<float>(8 * 100 + 107));
  EXPECT_EQ(kv->stats().park.corrupt, 1u);
  EXPECT_EQ(kv->stats().park.states, 1u);  // the damaged file is gone
}

TEST_F(HybridParkTest, EvictedSnapshotIsParkedAndServedWithoutRestart) {
  auto kv = make_parked(1);  // one snapshot entry: the next sequence's first snapshot evicts A's
  auto a_tokens = seq_tokens(8);
  ASSERT_TRUE(kv->admit(0, a_tokens, 7, 8).has_value());
  compute(*kv, 0, a_tokens, 0, 8);
  std::vector<float> a_at_8(kv->recurrent_state(0), kv->recurrent_state(0) + 10);
  kv->release(0);
  EXPECT_EQ(kv->stats().park.states, 0u);
  auto b_tokens = seq_tokens(8, 500);
  ASSERT_TRUE(kv->admit(1, b_tokens, 7, 8).has_value());
  compute(*kv, 1, b_tokens, 0, 4);
  EXPECT_EQ(kv->stats().park.states, 1u);  // A's snapshot, parked on eviction
  kv->release(1);
  auto follow = seq_tokens(12);
  auto a = kv->admit(0, follow, 11, 12);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->reused_tokens, 8);
  EXPECT_EQ(std::vector<float>(kv->recurrent_state(0), kv->recurrent_state(0) + 10), a_at_8);
  EXPECT_EQ(kv->stats().restored_states, 1u);
}

}  // namespace
}  // namespace strata
