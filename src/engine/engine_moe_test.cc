// The engine's mixture-of-experts routing counts (EngineSnapshot::moe), through tiny MoE
// models in /work/shared, with one stage and with pipelined stages.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "engine/engine_test_util.h"

namespace strata::testing {
namespace {

std::string moe_path(const std::string& name) {
  return std::string(STRATA_SHARED_DIR) + "/models/moe/tiny-" + name + ".gguf";
}

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

// Runs two requests and checks that every processed token was routed n_expert_used times in
// each layer: the tokens through the model are each prompt plus every generated token but
// the last (which is sampled, never fed back).
void expect_routing_matches_tokens(EngineOptions o) {
  Harness h(o);
  ASSERT_TRUE(h.ok());
  const MoeLoad before = h.engine().snapshot().moe;
  ASSERT_GT(before.n_expert, 0);
  EXPECT_EQ(before.tokens.size(), static_cast<size_t>(before.n_layer) * before.n_expert);
  EXPECT_EQ(sum(before.tokens), 0u);
  EXPECT_EQ(before.window_s, 60);
  RequestId a = h.submit(make_request(23, 9, 1, 256));
  RequestId b = h.submit(make_request(40, 5, 2, 256));
  const Output oa = h.wait(a), ob = h.wait(b);
  ASSERT_EQ(oa.tokens.size(), 9u);
  ASSERT_EQ(ob.tokens.size(), 5u);
  const uint64_t n_tokens = (23 + 9 - 1) + (40 + 5 - 1);
  const MoeLoad after = h.engine().snapshot().moe;
  const uint64_t want = n_tokens * after.n_layer * after.n_expert_used;
  EXPECT_EQ(sum(after.tokens), want);
  EXPECT_EQ(after.routed_tokens_total, want);
  EXPECT_GT(after.expert_bytes_read_total, 0u);
  // Every layer routes every token, so each layer's row of the heatmap sums alike.
  for (int l = 0; l < after.n_layer; ++l) {
    uint64_t layer = 0;
    for (int e = 0; e < after.n_expert; ++e) layer += after.tokens[static_cast<size_t>(l) * after.n_expert + e];
    EXPECT_EQ(layer, n_tokens * after.n_expert_used) << "layer " << l;
  }
}

TEST(EngineMoe, RoutedTokensEqualTokensTimesLayersTimesExpertsUsed) {
  EngineOptions o;
  o.model_path = moe_path("qwen3moe");
  o.n_parallel = 2;
  o.n_ctx = 128;
  expect_routing_matches_tokens(o);
}

TEST(EngineMoe, PipelinedStagesCountEveryLayer) {
  EngineOptions o;
  o.model_path = moe_path("mixtral");
  o.n_parallel = 2;
  o.n_ctx = 128;
  o.n_stages = 2;
  o.n_groups = 2;
  o.n_threads = 2;
  o.join_groups = false;
  expect_routing_matches_tokens(o);
}

TEST(EngineMoe, DenseModelReportsNoExperts) {
  EngineOptions o;
  o.n_parallel = 1;
  o.n_ctx = 64;
  Harness h(o);
  ASSERT_TRUE(h.ok());
  h.wait(h.submit(make_request(8, 4, 3)));
  const MoeLoad moe = h.engine().snapshot().moe;
  EXPECT_EQ(moe.n_expert, 0);
  EXPECT_TRUE(moe.tokens.empty());
  EXPECT_EQ(moe.routed_tokens_total, 0u);
  EXPECT_EQ(moe.expert_bytes_read_total, 0u);
}

}  // namespace
}  // namespace strata::testing
