#include "tools/moe_bench.h"

#include <gtest/gtest.h>

#include <string>

namespace strata {
namespace {

Hparams moe_hparams() {
  Hparams hp;
  hp.n_layer = 2;
  hp.n_expert = 8;
  hp.n_expert_used = 2;
  return hp;
}

TEST(MoeBench, ActiveBytesSwapOneSequencesExpertsForTheMeasuredOnes) {
  // decode_weight_bytes = 600 dense + 400 of 2 experts per layer (one sequence's share).
  const std::vector<ExpertReads> reads = {{1, 4, 1600, 0.4}, {4, 4, 4000, 0.8}};  // 10 and 5 steps/s
  MoeBenchReport r = make_moe_bench_report(moe_hparams(), 1000, reads, 1e-5, 32);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_EQ(r.n_steps, 4);
  EXPECT_EQ(r.rows[0].expert_bytes_per_step, 400.0);
  EXPECT_EQ(r.rows[0].active_bytes_per_step, 1000.0);
  EXPECT_EQ(r.rows[1].expert_bytes_per_step, 1000.0);
  EXPECT_EQ(r.rows[1].active_bytes_per_step, 1600.0);
  EXPECT_DOUBLE_EQ(r.rows[0].roofline_ratio, 1000.0 * 10.0 / 1e4);
  EXPECT_DOUBLE_EQ(r.rows[1].roofline_ratio, 1600.0 * 5.0 / 1e4);
}

TEST(MoeBench, JsonCarriesEveryRowsFields) {
  const std::vector<ExpertReads> reads = {{1, 2, 800, 0.1}, {8, 2, 1600, 0.5}};  // 20 and 4 steps/s
  const nlohmann::json j = moe_bench_json(make_moe_bench_report(moe_hparams(), 1000, reads, 0.0, 16));
  EXPECT_EQ(j["n_expert"], 8);
  EXPECT_EQ(j["n_expert_used"], 2);
  EXPECT_EQ(j["prompt_tokens"], 16);
  EXPECT_EQ(j["steps"], 2);
  ASSERT_EQ(j["decode"].size(), 2u);
  const nlohmann::json& row = j["decode"][1];
  EXPECT_EQ(row["seqs"], 8);
  EXPECT_EQ(row["expert_bytes_per_step"], 800.0);
  EXPECT_EQ(row["active_bytes_per_step"], 1400.0);
  EXPECT_EQ(row["steps_per_s"], 4.0);
  EXPECT_EQ(row["roofline_ratio"], 0.0);  // no bandwidth measured
}

TEST(MoeBench, TextNamesTheBatchAndTheRoofline) {
  const std::vector<ExpertReads> reads = {{1, 1, 2000000000, 0.5}};  // 2 steps/s
  const std::string text = format_moe_bench(make_moe_bench_report(moe_hparams(), 3000000000, reads, 12.0, 16));
  EXPECT_NE(text.find("experts x1"), std::string::npos) << text;
  EXPECT_NE(text.find("2.000 GB of experts read per step (2 of 8 used per token)"), std::string::npos) << text;
  EXPECT_NE(text.find("roofline 0.50"), std::string::npos) << text;
}

TEST(MoeBench, NoRowsWithoutTheOneSequenceReference) {
  const std::vector<ExpertReads> reads = {{4, 1, 100, 1.0}};
  EXPECT_TRUE(make_moe_bench_report(moe_hparams(), 1000, reads, 1.0, 16).rows.empty());
}

TEST(MoeBench, MeasuresWholeExpertsAndMoreForMoreSequences) {
  auto model = Model::Load(std::string(STRATA_SHARED_DIR) + "/models/moe/tiny-mixtral.gguf");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const Hparams& hp = (*model)->hparams();
  ThreadPool pool(1);
  const std::vector<int> n_seqs = {1, 4};
  auto reads = measure_expert_reads(**model, pool, n_seqs, 8, 3);
  ASSERT_TRUE(reads.ok()) << reads.status().ToString();
  ASSERT_EQ(reads->size(), 2u);
  const ExpertReads& one = (*reads)[0];
  const ExpertReads& four = (*reads)[1];
  EXPECT_EQ(one.n_steps, 3);
  EXPECT_GT(one.seconds, 0.0);
  // One sequence reads exactly n_expert_used experts per layer per step (all experts have
  // the same size), four read the union of their choices: at least that, at most all.
  const uint64_t per_step_one = one.expert_bytes / 3;
  ASSERT_EQ(one.expert_bytes % 3, 0u);
  ASSERT_EQ(per_step_one % (static_cast<uint64_t>(hp.n_layer) * hp.n_expert_used), 0u);
  const uint64_t expert_bytes = per_step_one / (static_cast<uint64_t>(hp.n_layer) * hp.n_expert_used);
  EXPECT_GT(expert_bytes, 0u);
  EXPECT_EQ(four.expert_bytes % expert_bytes, 0u);
  EXPECT_GE(four.expert_bytes, one.expert_bytes);
  EXPECT_LE(four.expert_bytes, 3 * expert_bytes * hp.n_layer * hp.n_expert);
}

TEST(MoeBench, DenseModelIsRefused) {
  auto model = Model::Load(std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf");
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ThreadPool pool(1);
  const std::vector<int> n_seqs = {1};
  auto reads = measure_expert_reads(**model, pool, n_seqs, 8, 3);
  EXPECT_EQ(reads.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace strata
