#include "tools/forward_bench.h"

#include <gtest/gtest.h>

#include "model/step_profile.h"

namespace strata {
namespace {

const std::string kModel = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";

ForwardBenchOptions small(bool profile) {
  ForwardBenchOptions o;
  o.prompt_tokens = 40;
  o.prefill_chunk = 16;
  o.decode_steps = 3;
  o.batch_sizes = {2};
  o.profile = profile;
  return o;
}

uint64_t part(const PhaseProfile& p, StepPart part) { return p.parts.part_ns[static_cast<size_t>(part)]; }

TEST(StepProfile, EveryPhaseReportsItsPartsWithinItsWallTime) {
  auto model = Model::Load(kModel);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ThreadPool pool(2);
  auto r = bench_forward(**model, pool, small(true));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->profiles.size(), 3u);
  EXPECT_EQ(r->profiles[0].name, "prefill");
  EXPECT_EQ(r->profiles[0].n_steps, 3);  // 40 tokens in chunks of 16
  EXPECT_EQ(r->profiles[1].name, "decode");
  EXPECT_EQ(r->profiles[2].name, "decode x2");
  for (const PhaseProfile& p : r->profiles) {
    SCOPED_TRACE(p.name);
    // stories260K's matrices are F32: 4 matmul calls per layer in every pass (q, k and v in
    // one; o; gate and up in one; down), plus the output projection in the passes that want
    // logits (only the prompt's last chunk).
    const auto f32 = static_cast<size_t>(DType::kF32);
    const int n_output = p.name == "prefill" ? 1 : p.n_steps;
    EXPECT_EQ(p.parts.matmul_calls[f32],
              static_cast<uint64_t>(p.n_steps) * 4 * (*model)->hparams().n_layer + n_output);
    EXPECT_GT(p.parts.matmul_ns[f32], 0u);
    EXPECT_GT(part(p, StepPart::kAttention), 0u);
    EXPECT_GT(part(p, StepPart::kNorm), 0u);
    EXPECT_GT(part(p, StepPart::kQkvFinish), 0u);
    EXPECT_GT(part(p, StepPart::kEmbed), 0u);
    EXPECT_EQ(part(p, StepPart::kMoe), 0u);  // a dense model
    EXPECT_EQ(part(p, StepPart::kSampling) > 0, p.name != "prefill");
    // The timed regions never overlap, and the pool waits happen inside them.
    EXPECT_LE(static_cast<double>(p.parts.parts_ns()), p.total_s * 1e9);
    EXPECT_LE(static_cast<double>(p.parts.pool_wait_ns), p.total_s * 1e9);
  }
  const std::string table = format_phase_profile(r->profiles[1]);
  for (const char* row : {"profile    decode: 3 steps", "matmul f32", "attention", "norms", "sampling",
                          "other (untimed)", "thread-pool waits"}) {
    EXPECT_NE(table.find(row), std::string::npos) << row << " missing from\n" << table;
  }
}

TEST(StepProfile, OffRecordsNothing) {
  auto model = Model::Load(kModel);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ThreadPool pool(2);
  auto r = bench_forward(**model, pool, small(false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->profiles.empty());
}

TEST(StepProfile, NullProfileTimerReadsNoClockAndWritesNothing) {
  StepProfile p;
  { ProfileTimer t(nullptr, StepPart::kNorm); }
  { ProfileTimer t(nullptr, DType::kQ8_0); }
  { ProfileTimer t(&p, StepPart::kNorm); }
  { ProfileTimer t(&p, DType::kQ8_0); }
  EXPECT_EQ(p.matmul_calls[static_cast<size_t>(DType::kQ8_0)], 1u);
  EXPECT_EQ(p.parts_ns(), p.part_ns[static_cast<size_t>(StepPart::kNorm)] + p.matmul_ns[static_cast<size_t>(DType::kQ8_0)]);
}

}  // namespace
}  // namespace strata
