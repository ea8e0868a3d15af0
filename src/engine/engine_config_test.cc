#include "engine/engine_config.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

Hparams hparams(int n_layer = 6, int head_dim = 64) {
  Hparams hp;
  hp.arch = "llama";
  hp.n_vocab = 100;
  hp.n_ctx_train = 2048;
  hp.n_embd = 128;
  hp.n_layer = n_layer;
  hp.n_head = 2;
  hp.n_head_kv = 2;
  hp.head_dim = head_dim;
  hp.n_ff = 256;
  hp.n_rot = head_dim;
  return hp;
}

EngineOptions options(int parallel, int stages, int groups) {
  EngineOptions o;
  o.n_parallel = parallel;
  o.n_stages = stages;
  o.n_groups = groups;
  return o;
}

TEST(EngineConfig, AutoGroupsIsLargestDivisorNotAboveStages) {
  EXPECT_EQ(auto_batch_groups(8, 1), 1);
  EXPECT_EQ(auto_batch_groups(8, 2), 2);
  EXPECT_EQ(auto_batch_groups(8, 3), 2);
  EXPECT_EQ(auto_batch_groups(6, 4), 3);
  EXPECT_EQ(auto_batch_groups(5, 4), 1);
  EXPECT_EQ(auto_batch_groups(2, 8), 2);
}

TEST(EngineConfig, GroupsThatDoNotDivideParallelAreRejectedByName) {
  auto c = resolve_engine_config(options(4, 2, 3), hparams(), 4);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(c.status().message(), "--batch-groups 3 does not divide --parallel 4");
}

TEST(EngineConfig, StagesSplitLayersIntoContiguousRangesAndThreadsBetweenThem) {
  auto c = resolve_engine_config(options(4, 4, 0), hparams(6), 6);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->stages.size(), 4u);
  EXPECT_EQ(c->stages[0].first_layer, 0);
  EXPECT_EQ(c->stages[0].last_layer, 2);
  EXPECT_EQ(c->stages[1].last_layer, 4);
  EXPECT_EQ(c->stages[2].last_layer, 5);
  EXPECT_EQ(c->stages[3].last_layer, 6);
  EXPECT_EQ(c->stages[0].n_threads + c->stages[1].n_threads + c->stages[2].n_threads + c->stages[3].n_threads, 6);
  EXPECT_EQ(c->options.n_groups, 4);
  EXPECT_EQ(c->slots_per_group, 1);
}

TEST(EngineConfig, MoreStagesThanLayersIsAnError) {
  auto c = resolve_engine_config(options(4, 7, 0), hparams(6), 4);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("--stages 7"), std::string::npos);
}

TEST(EngineConfig, Q8KvNeedsHeadDimMultipleOf32) {
  EngineOptions o = options(1, 1, 0);
  o.kv_type = "q8_0";
  auto bad = resolve_engine_config(o, hparams(6, 8), 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("head_dim % 32"), std::string::npos);
  EXPECT_NE(bad.status().message().find("head_dim is 8"), std::string::npos);
  EXPECT_TRUE(resolve_engine_config(o, hparams(6, 64), 1).ok());
}

TEST(EngineConfig, UnknownKvTypeIsAnError) {
  EngineOptions o = options(1, 1, 0);
  o.kv_type = "q4_0";
  auto c = resolve_engine_config(o, hparams(), 1);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("--kv-type q4_0"), std::string::npos);
}

TEST(EngineConfig, DefaultContextAndPoolCoverEverySlotPlusCacheRoom) {
  auto c = resolve_engine_config(options(4, 1, 0), hparams(), 1);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->options.n_ctx, 2048);
  EXPECT_GE(c->n_kv_blocks, 4 * 2048 / 16 + 2048 / 16);
}

TEST(EngineConfig, KvCacheMibSetsThePoolSize) {
  EngineOptions o = options(1, 1, 0);
  o.kv_type = "f32";
  o.kv_cache_mib = 3;
  auto c = resolve_engine_config(o, hparams(6, 64), 1);
  ASSERT_TRUE(c.ok());
  // 6 layers x K+V x 16 tokens x 2 heads x 64 dims x 4 bytes = 98304 bytes per block.
  EXPECT_EQ(c->kv_block_bytes, 98304u);
  EXPECT_EQ(c->n_kv_blocks, 32);
}

TEST(EngineConfig, NonPositiveCountsAreRejectedByName) {
  EngineOptions o = options(0, 1, 0);
  EXPECT_NE(resolve_engine_config(o, hparams(), 1).status().message().find("--parallel"), std::string::npos);
  o = options(1, 1, 0);
  o.prefill_chunk = 0;
  EXPECT_NE(resolve_engine_config(o, hparams(), 1).status().message().find("--prefill-chunk"), std::string::npos);
}

Hparams hybrid_hparams() {
  Hparams hp = hparams(8);
  hp.arch = "qwen35";
  hp.full_attn_interval = 4;
  hp.ssm_conv_kernel = 4;
  hp.ssm_head_k_dim = 16;
  hp.ssm_n_k_heads = 2;
  hp.ssm_n_v_heads = 4;
  hp.ssm_head_v_dim = 16;
  return hp;
}

// Speculation on a hybrid model: drafts as on any other (a rejection puts the slot's state back:
// engine_spec_test.cc), beside the recurrent state.
TEST(EngineConfig, SpeculativeDecodingOnAHybridModelKeepsItsDrafts) {
  EngineOptions o = options(2, 1, 0);
  o.spec.method = "ngram";
  o.spec.max_draft_tokens = 3;
  auto c = resolve_engine_config(o, hybrid_hparams(), 2);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->max_drafts, 3);
  EXPECT_GT(c->kv_layout.state_floats, 0u);
}

TEST(EngineConfig, HybridModelsKeepKvOnlyForAttentionLayersAndNoPrefixCacheRoom) {
  EngineOptions o = options(2, 1, 0);
  o.n_ctx = 64;
  o.kv_block_tokens = 16;
  auto c = resolve_engine_config(o, hybrid_hparams(), 2);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->kv_layout.n_layer, 2);  // layers 3 and 7 of 8
  EXPECT_EQ(c->kv_layout.state_floats, 6u * (3 * (2 * 2 * 16 + 4 * 16) + 4 * 16 * 16));
  EXPECT_EQ(c->n_kv_blocks, 2 * 4);  // each slot's context, nothing kept for reuse
}

// Gemma 3's shape: 5 of every 6 layers slide over a window of keys.
Hparams windowed_hparams(int n_layer, int window) {
  Hparams hp = hparams(n_layer);
  hp.arch = "gemma3";
  hp.sliding_window = window;
  hp.sliding_period = 6;
  return hp;
}

TEST(EngineConfig, SlidingWindowLayersGetAPoolOfEachSlotsWindowBesideTheFullLayersContexts) {
  EngineOptions o = options(2, 1, 0);
  o.n_ctx = 8192;
  o.prefill_chunk = 256;
  auto c = resolve_engine_config(o, windowed_hparams(12, 1024), 2);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->kv_layout.window_tokens, 1024);
  EXPECT_EQ(c->kv_layout.n_windowed_layers, 10);  // all but layers 5 and 11
  EXPECT_EQ(c->kv_window_block_bytes, 5 * c->kv_block_bytes);
  EXPECT_EQ(c->max_step_tokens, 256);
  // Group 0: each slot's 512 blocks plus a context for the prefix cache; the window pool: each
  // slot's (1023 + 256) / 16 rounded up, + 1, and as many again for the prefix cache.
  EXPECT_EQ(c->n_kv_blocks, 2 * 512 + 512);
  EXPECT_EQ(c->n_kv_window_blocks, 2 * 81 + 2 * 81);
  const uint64_t windowed = static_cast<uint64_t>(c->n_kv_blocks) * c->kv_block_bytes +
                            static_cast<uint64_t>(c->n_kv_window_blocks) * c->kv_window_block_bytes;
  const uint64_t every_layer = static_cast<uint64_t>(c->n_kv_blocks) * c->kv_layout.block_bytes();
  EXPECT_LT(windowed * 2, every_layer);
}

TEST(EngineConfig, KvCacheMibOnAWindowedModelHoldsMoreContextThanOneBlockOfEveryLayer) {
  EngineOptions o = options(1, 1, 0);
  o.kv_type = "f32";
  o.n_ctx = 8192;
  o.prefill_chunk = 256;
  o.kv_cache_mib = 64;
  auto c = resolve_engine_config(o, windowed_hparams(12, 1024), 1);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_GE(c->n_kv_window_blocks, 81);
  const uint64_t used = static_cast<uint64_t>(c->n_kv_blocks) * c->kv_block_bytes +
                        static_cast<uint64_t>(c->n_kv_window_blocks) * c->kv_window_block_bytes;
  EXPECT_LE(used, 64u << 20);
  // More than twice the positions blocks of every layer would hold in the same memory.
  EXPECT_GT(c->n_kv_blocks, static_cast<int>((64u << 20) / c->kv_layout.block_bytes()) * 2);
  o.kv_cache_mib = 1;  // not even every slot's window
  auto small = resolve_engine_config(o, windowed_hparams(12, 1024), 1);
  ASSERT_FALSE(small.ok());
  EXPECT_NE(small.status().message().find("sliding-window"), std::string::npos) << small.status().message();
}

}  // namespace
}  // namespace strata
