// KvCache with a sliding-window group (WindowBlocks): what a sequence holds, what a later one
// resumes from, what the park store keeps, and what admission promises.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <numeric>
#include <vector>

#include "kvcache/kv_cache.h"

namespace strata {
namespace windowed_kv_test {  // named: the unity build shares a translation unit with kv_cache_test.cc

namespace fs = std::filesystem;

constexpr int kBlockTokens = 4;
constexpr int kWindow = 6;  // a row at p reads keys (p - 6, p]: first_window_block(p) = (p - 5) / 4
constexpr int kStep = 4;    // rows per forward

KvLayout windowed_layout() {
  KvLayout l;
  l.type = DType::kF32;
  l.n_layer = 3;
  l.n_head_kv = 1;
  l.head_dim = 4;
  l.block_tokens = kBlockTokens;
  l.set_windowed(kWindow, {true, false, true});
  return l;
}

std::vector<int32_t> tokens_from(int n, int start) {
  std::vector<int32_t> t(static_cast<size_t>(n));
  std::iota(t.begin(), t.end(), start);
  return t;
}

// Stands in for the model: a block's bytes in either group depend on every token up to its end.
std::byte content(const std::vector<int32_t>& tokens, int group, int b, size_t i) {
  uint64_t h = static_cast<uint64_t>(group) + 7;
  for (int p = 0; p < (b + 1) * kBlockTokens && p < static_cast<int>(tokens.size()); ++p) h = h * 31 + tokens[p];
  return static_cast<std::byte>((h >> (i % 8)) + i);
}

class WindowedKvCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("kvwindow_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<KvCache> make(int n_window_blocks, bool park = false, int n_seqs = 1) {
    KvCacheOptions o;
    o.layout = windowed_layout();
    o.n_blocks = 64;
    o.n_window_blocks = n_window_blocks;
    o.max_step_tokens = kStep;
    o.n_seqs = n_seqs;
    o.max_seq_tokens = 64;
    o.model_id = 77;
    if (park) o.park_dir = dir_.string();
    o.park_capacity_bytes = 1 << 20;
    auto kv = KvCache::Create(o);
    EXPECT_TRUE(kv.ok()) << kv.status().ToString();
    return kv.ok() ? std::move(kv).value() : nullptr;
  }
  // What the engine does: admit, then forwards of kStep rows, each grown, written and published.
  // Returns the admission; max_window_held gets the most window blocks held after a publish.
  Admission run(KvCache& kv, int seq, const std::vector<int32_t>& tokens, int* max_window_held = nullptr) {
    const int n = static_cast<int>(tokens.size());
    auto a = kv.admit(seq, tokens, n - 1, n);
    EXPECT_TRUE(a.has_value());
    if (!a) return {};
    for (int n_past = a->reused_tokens; n_past < n;) {
      const int rows = std::min(kStep, n - n_past);
      EXPECT_TRUE(kv.grow(seq, n_past + rows).ok());
      write(kv, seq, tokens, n_past, n_past + rows);
      n_past += rows;
      kv.publish(seq, tokens, n_past);
      if (max_window_held) *max_window_held = std::max(*max_window_held, kv.stats().window_blocks_used);
    }
    return *a;
  }
  void write(KvCache& kv, int seq, const std::vector<int32_t>& tokens, int from_pos, int to_pos) {
    const KvLayout& l = kv.layout();
    for (int b = from_pos / kBlockTokens; b < kv.blocks_for_tokens(to_pos); ++b) {
      for (int g = 0; g < 2; ++g) {
        std::byte* p = kv.block(seq, g, b);
        for (size_t i = 0; i < l.group_bytes(g); ++i) p[i] = content(tokens, g, b, i);
      }
    }
  }
  // Whether block b of seq holds, in group g, what the model computed for these tokens.
  bool holds(KvCache& kv, int seq, const std::vector<int32_t>& tokens, int g, int b) {
    const std::byte* p = kv.block(seq, g, b);
    for (size_t i = 0; i < kv.layout().group_bytes(g); ++i) {
      if (p[i] != content(tokens, g, b, i)) return false;
    }
    return true;
  }
  fs::path dir_;
};

TEST_F(WindowedKvCacheTest, ASequenceHoldsOnlyTheWindowBlocksItsNextRowsRead) {
  auto kv = make(16);
  int max_held = 0;
  run(*kv, 0, tokens_from(40, 100), &max_held);
  KvCacheStats s = kv->stats();
  EXPECT_EQ(s.blocks_used, 10);  // the full layers keep every position
  // After 40 positions the next row (40) reads keys 35.. : blocks 8 and 9 only.
  EXPECT_EQ(s.window_blocks_used, 2);
  EXPECT_LE(max_held, kv->layout().window_step_blocks(kStep));
  EXPECT_EQ(s.window_blocks_cached, 8);  // the passed blocks stay cached, published
  EXPECT_EQ(s.window_blocks_total, 16);
}

TEST_F(WindowedKvCacheTest, FollowUpResumesFromTheWindowBlocksAtTheEndOfItsPrefix) {
  auto kv = make(16, false, 2);
  const std::vector<int32_t> first = tokens_from(40, 100);
  run(*kv, 0, first);
  kv->release(0);
  std::vector<int32_t> follow = first;
  for (int i = 0; i < 8; ++i) follow.push_back(500 + i);
  Admission a = run(*kv, 1, follow);
  EXPECT_EQ(a.reused_tokens, 40);
  // The resumed blocks hold the first request's bytes in both groups.
  for (int b = 0; b < 10; ++b) EXPECT_TRUE(holds(*kv, 1, first, 0, b)) << b;
  EXPECT_TRUE(holds(*kv, 1, follow, 1, 11));
  EXPECT_EQ(kv->stats().window_blocks_used, 2);  // 10 and 11 for the row at 48
}

TEST_F(WindowedKvCacheTest, PrefixWhoseWindowBlocksWereEvictedFallsBackToOneWhoseAreKept) {
  const std::vector<int32_t> a = tokens_from(40, 100);
  std::vector<int32_t> shares_20 = tokens_from(20, 100);
  for (int i = 0; i < 12; ++i) shares_20.push_back(900 + i);
  {
    auto kv = make(16, false, 2);
    run(*kv, 0, a);
    kv->release(0);
    // Blocks 3 and 4 (the window of a row at 20) left sequence 0 while it ran and stayed cached.
    EXPECT_EQ(run(*kv, 1, shares_20).reused_tokens, 20);
  }
  {
    auto kv = make(windowed_layout().window_step_blocks(kStep), false, 2);
    run(*kv, 0, a);
    kv->release(0);
    // A pool of one sequence's window: the blocks that left early were taken for later ones,
    // but the ones at the end of the whole prefix are still there for its follow-up...
    std::vector<int32_t> follow = a;
    for (int i = 0; i < 8; ++i) follow.push_back(7 + i);
    EXPECT_EQ(run(*kv, 1, follow).reused_tokens, 40);
    kv->release(1);
    // ...while of the first 20 positions only the first block can be resumed: group 0 still
    // has all five, the window pool not blocks 3 and 4, which a row at 20 reads, only block 0
    // (the first a passed, so the last of its passed blocks to be taken again).
    EXPECT_EQ(run(*kv, 0, shares_20).reused_tokens, 4);
    EXPECT_EQ(kv->stats().prefix_hit_tokens, 44u);
  }
}

TEST_F(WindowedKvCacheTest, PrefixWhoseLastWindowWasEvictedResumesWhereAnEarlierWindowIsKept) {
  auto kv = make(12, false, 3);
  const std::vector<int32_t> a = tokens_from(40, 100);
  // a keeps running: it holds blocks 8 and 9; the 8 it passed are cached, the last passed the
  // coldest (7, then 6, ...), and 2 blocks are free.
  run(*kv, 0, a);
  // A fresh 12-token request takes the 2 free blocks and then evicts block 7.
  run(*kv, 1, tokens_from(12, 5000));
  std::vector<int32_t> shares_32(a.begin(), a.begin() + 32);
  for (int i = 0; i < 4; ++i) shares_32.push_back(700 + i);
  // A prefix of 32 positions needs window blocks 6 and 7; one of 28 needs 5 and 6, still kept.
  EXPECT_EQ(run(*kv, 2, shares_32).reused_tokens, 28);
  for (int b = 0; b < 7; ++b) EXPECT_TRUE(holds(*kv, 2, a, 0, b)) << b;
  EXPECT_TRUE(holds(*kv, 2, shares_32, 1, 8));
}

TEST_F(WindowedKvCacheTest, AConversationsLastWindowOutlivesTheBlocksOthersPass) {
  auto kv = make(16, false, 2);
  const std::vector<int32_t> a = tokens_from(40, 100);
  run(*kv, 0, a);
  kv->release(0);
  // A 60-token request needs 15 window blocks, 6 of them free: it takes a's passed blocks and
  // then its own, never the window a's conversation ended with (taken in the order they were
  // released, it would have been 8 of a's passed blocks and then its window).
  run(*kv, 1, tokens_from(60, 5000));
  kv->release(1);
  EXPECT_GT(kv->stats().evictions, 0u);
  std::vector<int32_t> follow = a;
  for (int i = 0; i < 8; ++i) follow.push_back(700 + i);
  EXPECT_EQ(run(*kv, 0, follow).reused_tokens, 40);
}

// A finished conversation counts as warm (allocator rule 3) only as far as a follow-up could
// resume it: once later requests have taken the window blocks its end reads, fewer blocks than
// group 0 still caches (here the first, whose window block a passed first and so lost last).
TEST_F(WindowedKvCacheTest, RetainedBlocksAreThePrefixAFollowUpCouldResume) {
  auto kv = make(windowed_layout().window_step_blocks(kStep), false, 2);
  const std::vector<int32_t> a = tokens_from(40, 100);
  run(*kv, 0, a);
  kv->release(0);
  EXPECT_EQ(kv->retained_blocks(0), 10);
  std::vector<int32_t> other = a;
  for (int i = 0; i < 8; ++i) other.push_back(7 + i);
  run(*kv, 1, other);
  kv->release(1);
  const int retained = kv->retained_blocks(0);
  EXPECT_EQ(retained, 1) << "group 0 still caches all 10 of a's blocks, the window pool only block 0's";
  std::vector<int32_t> follow(a.begin(), a.begin() + 20);
  for (int i = 0; i < 8; ++i) follow.push_back(900 + i);
  EXPECT_EQ(run(*kv, 0, follow).reused_tokens, retained * kBlockTokens);
}

TEST_F(WindowedKvCacheTest, ParkedWindowBlocksAreRestoredByteForByteAfterARestart) {
  const std::vector<int32_t> first = tokens_from(40, 100);
  {
    auto kv = make(16, true);
    run(*kv, 0, first);
    kv->release(0);
    EXPECT_GT(kv->park_idle(), 0);
    EXPECT_EQ(kv->stats().window_blocks_cached, 0);
  }
  int n_window_files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) n_window_files += e.path().extension() == ".kvw";
  EXPECT_EQ(n_window_files, 10);
  auto kv = make(16, true);
  std::vector<int32_t> follow = first;
  for (int i = 0; i < 4; ++i) follow.push_back(300 + i);
  auto adm = kv->admit(0, follow, static_cast<int>(follow.size()) - 1, static_cast<int>(follow.size()));
  ASSERT_TRUE(adm.has_value());
  EXPECT_EQ(adm->reused_tokens, 40);
  EXPECT_EQ(adm->restored_tokens, 40);
  for (int b = 0; b < 10; ++b) EXPECT_TRUE(holds(*kv, 0, first, 0, b)) << b;
  // Only the window at the end was read back: blocks 8 and 9.
  EXPECT_TRUE(holds(*kv, 0, first, 1, 8));
  EXPECT_TRUE(holds(*kv, 0, first, 1, 9));
  EXPECT_EQ(kv->stats().window_blocks_used, 2);
}

TEST_F(WindowedKvCacheTest, AdmissionWaitsWhenTheWindowPoolCannotPromiseItsBlocks) {
  const int cap = windowed_layout().window_step_blocks(kStep);
  auto kv = make(cap + 1, false, 2);
  ASSERT_TRUE(kv->admit(0, tokens_from(30, 100), 29, 40).has_value());
  const KvCacheStats before = kv->stats();
  EXPECT_FALSE(kv->admit(1, tokens_from(30, 400), 29, 40).has_value());
  EXPECT_EQ(kv->stats().blocks_used, before.blocks_used);  // nothing taken in either pool
  EXPECT_EQ(kv->stats().window_blocks_used, before.window_blocks_used);
  kv->release(0);
  EXPECT_TRUE(kv->admit(1, tokens_from(30, 400), 29, 40).has_value());
}

TEST_F(WindowedKvCacheTest, AShortRequestIsPromisedOnlyTheBlocksItCanUse) {
  auto kv = make(2, false, 2);
  // Requests of 4 positions can only ever use one window block each: two fit a pool of 2.
  ASSERT_TRUE(kv->admit(0, tokens_from(3, 100), 2, 4).has_value());
  ASSERT_TRUE(kv->admit(1, tokens_from(3, 200), 2, 4).has_value());
  EXPECT_TRUE(kv->grow(0, 4).ok());
  EXPECT_TRUE(kv->grow(1, 4).ok());
}

TEST(WindowedKvLayout, GroupsTheWindowedLayersApartAndKeepsOneGroupOtherwise) {
  KvLayout l = windowed_layout();
  EXPECT_EQ(l.n_groups(), 2);
  EXPECT_EQ(l.group_of(0), 1);
  EXPECT_EQ(l.group_of(1), 0);
  EXPECT_EQ(l.group_bytes(0), l.layer_bytes(0));
  EXPECT_EQ(l.group_bytes(1), 2 * l.layer_bytes(1));
  EXPECT_EQ(l.k_offset(2, 1), l.layer_bytes(1) + l.token_bytes(1));  // second layer of group 1
  EXPECT_EQ(l.first_window_block(5), 0);
  EXPECT_EQ(l.first_window_block(9), 1);
  KvLayout chunked = windowed_layout();
  chunked.set_windowed(40, {true, false, true}, true);  // Llama 4: a row reads its own chunk
  EXPECT_EQ(chunked.first_window_block(39), 0);
  EXPECT_EQ(chunked.first_window_block(40), 10);
  EXPECT_EQ(chunked.first_window_block(79), 10);
  EXPECT_EQ(chunked.first_window_block(80), 20);
  KvLayout all = windowed_layout();
  all.set_windowed(kWindow, {true, true, true});
  EXPECT_EQ(all.n_groups(), 1);
  EXPECT_EQ(all.group_bytes(0), all.block_bytes());
}

TEST(WindowedKvCacheOptions, AWindowedLayoutNeedsAWindowPoolAndAStepSize) {
  KvCacheOptions o;
  o.layout = windowed_layout();
  o.n_blocks = 8;
  o.n_seqs = 1;
  o.max_seq_tokens = 32;
  o.max_step_tokens = 4;
  auto no_pool = KvCache::Create(o);
  ASSERT_FALSE(no_pool.ok());
  EXPECT_NE(no_pool.status().message().find("sliding-window"), std::string::npos);
  o.n_window_blocks = 4;
  o.max_step_tokens = 0;
  EXPECT_FALSE(KvCache::Create(o).ok());
}

}  // namespace windowed_kv_test
}  // namespace strata
