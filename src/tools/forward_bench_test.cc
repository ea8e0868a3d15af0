#include "tools/forward_bench.h"

#include <gtest/gtest.h>

#include "kernels/kernels.h"
#include "model/contiguous_kv.h"
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

// Greedy decode of n_steps tokens from an empty context, on a cache of its own: what the bench's
// decode from depth 0 must compute.
std::vector<int32_t> decode_from_empty_context(const Model& model, ThreadPool& pool, int n_steps) {
  const int n_vocab = model.hparams().n_vocab;
  auto kv = ContiguousKv::Create(model.kv_layout(DType::kF16, 16), 1, n_steps);
  EXPECT_TRUE(kv.ok()) << kv.status().ToString();
  auto scratch = model.make_scratch(1, n_steps, pool.size());
  std::vector<float> logits(static_cast<size_t>(n_vocab));
  std::vector<int32_t> tokens;
  int32_t next = forward_bench_token(0, n_vocab);
  for (int pos = 0; pos < n_steps; ++pos) {
    const Row row{0, pos, next, true};
    model.forward(std::span<const Row>(&row, 1), **kv, logits.data(), *scratch, pool);
    next = kernels::argmax(logits.data(), n_vocab);
    tokens.push_back(next);
  }
  return tokens;
}

TEST(ForwardBench, DecodeFromDepthZeroIsAFreshGreedyDecode) {
  auto model = Model::Load(kModel);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ThreadPool pool(2);
  ForwardBenchOptions o = small(false);
  o.decode_depth = 0;
  auto r = bench_forward(**model, pool, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->decode_first_pos, 0);
  EXPECT_EQ(r->decode_tokens, decode_from_empty_context(**model, pool, o.decode_steps));
}

TEST(ForwardBench, DecodeDepthDefaultsToAfterThePrompt) {
  auto model = Model::Load(kModel);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ThreadPool pool(2);
  auto after = bench_forward(**model, pool, small(false));
  ForwardBenchOptions o = small(false);
  o.decode_depth = o.prompt_tokens;
  auto at_prompt = bench_forward(**model, pool, o);
  ASSERT_TRUE(after.ok() && at_prompt.ok());
  EXPECT_EQ(after->decode_first_pos, 40);
  EXPECT_EQ(after->decode_tokens.size(), 3u);
  EXPECT_EQ(after->decode_tokens, at_prompt->decode_tokens);
}

TEST(ForwardBench, RejectsADecodeDepthPastThePrompt) {
  auto model = Model::Load(kModel);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ThreadPool pool(1);
  for (int depth : {41, -2}) {
    ForwardBenchOptions o = small(false);
    o.decode_depth = depth;
    auto r = bench_forward(**model, pool, o);
    ASSERT_FALSE(r.ok()) << depth;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find("decode depth " + std::to_string(depth) + " is outside 0..40"), std::string::npos)
        << r.status().message();
  }
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
