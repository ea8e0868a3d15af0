// Parked K/V: a follow-up turn after a restart is restored from the park store and gives
// exactly what a fresh engine computes from scratch; damaged blocks are recomputed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/engine_test_util.h"
#include "model/test_model.h"

namespace strata::testing {
namespace {

namespace fs = std::filesystem;

class EnginePark : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("engine_park_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  EngineOptions parked(int parallel = 2, const std::string& model_path = "") {
    EngineOptions o;
    o.n_parallel = parallel;
    o.model_path = model_path;
    o.park_dir = dir_.string();
    return o;
  }
  // First turn A in its own engine, which parks A's blocks when it shuts down. Returns
  // the follow-up request: A's prompt, A's answer, then a new turn.
  GenerateRequest first_turn_then_follow_up(const std::string& model_path = "") {
    GenerateRequest a = make_request(70, 12, 5);
    Output first;
    {
      Harness h(parked(2, model_path));
      first = h.wait(h.submit(a));
    }
    GenerateRequest follow = a;
    follow.prompt_tokens.insert(follow.prompt_tokens.end(), first.tokens.begin(), first.tokens.end());
    for (int i = 0; i < 9; ++i) follow.prompt_tokens.push_back(50 + i);
    follow.max_tokens = 10;
    return follow;
  }
  // The follow-up in a new engine on the park directory: identical to a fresh engine's run, with
  // A's 5 full blocks (80 positions) restored. Returns the engine's K/V figures after it.
  KvStats restore_follow_up(const GenerateRequest& follow, const std::string& model_path) {
    EngineOptions solo_base;
    solo_base.model_path = model_path;
    Output solo = run_solo(follow, solo_base);
    Harness h(parked(2, model_path));
    Output out = h.wait(h.submit(follow));
    expect_identical(out, solo, "restored follow-up");
    EXPECT_EQ(out.done.cached_tokens, 80);
    return h.engine().snapshot().kv;
  }
  fs::path dir_;
};

TEST_F(EnginePark, FollowUpAfterRestartIsRestoredAndIdentical) {
  GenerateRequest follow = first_turn_then_follow_up();
  Output solo = run_solo(follow);
  Harness h(parked());
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "restored follow-up");
  // A computed 70 + 11 = 81 positions: 5 full blocks were parked and come back.
  EXPECT_EQ(out.done.cached_tokens, 80);
  EngineSnapshot s = h.engine().snapshot();
  EXPECT_EQ(s.kv.restores, 1u);
  EXPECT_EQ(s.kv.restored_blocks, 5u);
  EXPECT_GT(s.kv.bytes_reused, 0u);
}

TEST_F(EnginePark, MixtureOfExpertsFollowUpAfterRestartIsRestoredAndIdentical) {
  const std::string moe = std::string(STRATA_SHARED_DIR) + "/models/moe/tiny-qwen2moe.gguf";
  GenerateRequest follow = first_turn_then_follow_up(moe);
  EXPECT_EQ(restore_follow_up(follow, moe).restored_blocks, 5u);
}

// Hybrid models (Qwen3.5's delta-net layers, Granite 4.0-H's Mamba-2 layers, beside attention;
// Falcon-H1's Mamba-2 and attention in every layer; Kimi Linear's KDA beside latent attention):
// a follow-up resumes from the parked blocks and the parked recurrent-state snapshot after them.
TEST_F(EnginePark, HybridFollowUpAfterRestartResumesFromParkedBlocksAndState) {
  for (const char* arch : {"qwen35", "granitehybrid-dense", "falcon-h1", "kimi-linear"}) {
    SCOPED_TRACE(arch);
    TestModelSpec spec;
    spec.arch = arch;
    spec.type = DType::kQ8_0;
    spec.n_layer = 4;
    spec.n_embd = 128;
    spec.n_ff = 256;
    spec.n_vocab = 512;
    ASSERT_TRUE(add_vocabulary_from(stories_path(), spec).ok());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const std::string model =
        (dir_.parent_path() / (std::string(arch) + "_park_" + std::to_string(::getpid()) + ".gguf")).string();
    ASSERT_TRUE(write_test_model(spec, model).ok());
    GenerateRequest follow = first_turn_then_follow_up(model);
    int n_states = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n_states += e.path().extension() == ".kvs" ? 1 : 0;
    EXPECT_EQ(n_states, 2);  // after 64 (the first prompt's prompt point) and after 80 (its decode)
    const KvStats kv = restore_follow_up(follow, model);
    EXPECT_EQ(kv.restored_blocks, 5u);
    EXPECT_EQ(kv.restored_states, 1u);
    fs::remove(model);
  }
}

TEST_F(EnginePark, CorruptParkedBlockIsRecomputedNotServed) {
  GenerateRequest follow = first_turn_then_follow_up();
  int n_files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    // Damage the K/V bytes of every parked block but the first written (any one will do).
    std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-7, std::ios::end);
    f.put('\x5a');
    ++n_files;
  }
  ASSERT_EQ(n_files, 5);
  Output solo = run_solo(follow);
  Harness h(parked());
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "follow-up after corruption");
  EXPECT_EQ(out.done.cached_tokens, 0);
}

TEST_F(EnginePark, BlocksParkedWithAnotherKvTypeAreNotUsed) {
  GenerateRequest follow = first_turn_then_follow_up();
  EngineOptions o = parked();
  o.kv_type = "f32";
  Output solo = run_solo(follow, o);
  Harness h(o);
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "f32 engine");
  EXPECT_EQ(out.done.cached_tokens, 0);
}

// A Phi-3 model with LongRoPE rotates with its short factors in a 64-token context and with the
// long ones in a 128-token one: K/V parked under one choice is recomputed under the other, and
// restored under the same.
TEST_F(EnginePark, BlocksParkedUnderTheOtherLongRopeFactorsAreNotUsed) {
  TestModelSpec spec;
  spec.arch = "phi3";
  spec.n_vocab = 512;
  spec.sliding_window = 0;
  set_longrope_factors(spec, 32, 64);
  ASSERT_TRUE(add_vocabulary_from(stories_path(), spec).ok());
  fs::create_directories(dir_);
  const std::string model = (dir_.parent_path() / ("phi3_longrope_" + std::to_string(::getpid()) + ".gguf")).string();
  ASSERT_TRUE(write_test_model(spec, model).ok());
  auto with_context = [&](int n_ctx) {
    EngineOptions o = parked(2, model);
    o.n_ctx = n_ctx;
    return o;
  };
  GenerateRequest a = make_request(30, 8, 5);
  Output first;
  {
    Harness h(with_context(64));
    first = h.wait(h.submit(a));
  }
  GenerateRequest follow = a;
  follow.prompt_tokens.insert(follow.prompt_tokens.end(), first.tokens.begin(), first.tokens.end());
  for (int i = 0; i < 9; ++i) follow.prompt_tokens.push_back(50 + i);
  follow.max_tokens = 6;
  {
    Harness h(with_context(128));
    Output out = h.wait(h.submit(follow));
    expect_identical(out, run_solo(follow, with_context(128)), "long factors");
    EXPECT_EQ(out.done.cached_tokens, 0);
  }
  Harness h(with_context(64));
  Output out = h.wait(h.submit(follow));
  EngineOptions solo = with_context(64);
  solo.park_dir.clear();
  expect_identical(out, run_solo(follow, solo), "short factors");
  EXPECT_EQ(out.done.cached_tokens, 32);
  fs::remove(model);
}

TEST_F(EnginePark, EvictionParksAndALaterRequestRestoresWithoutRestart) {
  EngineOptions o = parked(1);
  o.kv_cache_mib = 1;  // stories260K f16 blocks are 10 KiB: a 102-block pool
  GenerateRequest a = make_request(600, 8, 1);   // leaves 37 full blocks cached
  GenerateRequest b = make_request(1200, 8, 2);  // needs 76 blocks: evicts A's first 11
  Harness h(o);
  Output a_out = h.wait(h.submit(a));
  h.wait(h.submit(b));
  EngineSnapshot after_b = h.engine().snapshot();
  EXPECT_GT(after_b.kv.evictions, 0u);
  EXPECT_GT(after_b.kv.parks, 0u);
  GenerateRequest follow = a;
  follow.prompt_tokens.insert(follow.prompt_tokens.end(), a_out.tokens.begin(), a_out.tokens.end());
  follow.prompt_tokens.push_back(77);
  Output solo = run_solo(follow);
  Output out = h.wait(h.submit(follow));
  expect_identical(out, solo, "follow-up restored after eviction");
  EngineSnapshot s = h.engine().snapshot();
  EXPECT_EQ(s.kv.restores, 1u);
  EXPECT_EQ(s.kv.restored_blocks, 11u);
  EXPECT_EQ(out.done.cached_tokens, 592);  // 607 positions computed by A: 37 full blocks
}

TEST_F(EnginePark, ExplicitParkWritesOnlyNewBlocksTheSecondTime) {
  Harness h(parked(1));
  GenerateRequest a = make_request(70, 8, 3);
  Output a_out = h.wait(h.submit(a));
  h.engine().park_idle();
  EngineSnapshot first = h.engine().snapshot();
  EXPECT_EQ(first.kv.parked_blocks, 4u);  // 77 computed positions
  GenerateRequest longer = a;
  longer.prompt_tokens.insert(longer.prompt_tokens.end(), a_out.tokens.begin(), a_out.tokens.end());
  for (int i = 0; i < 10; ++i) longer.prompt_tokens.push_back(90 + i);
  Output longer_out = h.wait(h.submit(longer));
  EXPECT_EQ(longer_out.done.cached_tokens, 64);  // park_idle() moved A's blocks: restored
  h.engine().park_idle();
  EngineSnapshot second = h.engine().snapshot();
  EXPECT_EQ(second.kv.restores, 1u);
  EXPECT_EQ(second.kv.parked_blocks, 5u);  // 95 computed positions: one new block
  EXPECT_EQ(second.kv.park_bytes_written - first.kv.park_bytes_written, first.kv.park_bytes_written / 4);
}

}  // namespace
}  // namespace strata::testing
