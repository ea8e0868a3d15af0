// The fast forward pass against the plain float64 reference (reference_forward.h) on random
// models of every architecture x weight type.
//
// Both sides decode the weights with the same decoder, so the differences come only from
// rounding in the fast path. Errors are measured relative to the reference logits: rms_rel
// = ||fast - ref|| / ||ref|| over all positions, max_rel = the largest |fast - ref| over the
// RMS of the reference logits at that position.
//
//   F32, F16, BF16 weights: activations stay float32, so only float32 rounding differs
//   (eps 6e-8; dot products of 256-512 terms accumulate ~sqrt(n) eps ~ 1.5e-6). Measured
//   rms_rel ~5e-7, max_rel ~3e-6. Bound: rms_rel < 1e-5, max_rel < 3e-5.
//
//   Quantised weights: the kernels round each matmul input to Q8 (32-wide blocks, scale
//   d = amax / 127), as llama.cpp does. That error is uniform in +-d/2, RMS d / sqrt(12);
//   with amax ~2.1 sigma for a block of 32 it is ~0.5% of the activation RMS. A logit of
//   these 2-layer models sees ~9 such roundings (q/k/v, output, gate/up, down per layer,
//   then the output matrix), and the SiLU gate multiplies two rounded inputs, so the
//   expected rms_rel is ~sqrt(9 + 2) * 0.5% ~ 1.7%. Measured 1.5-1.9%, max_rel 6.5-9.6%
//   (the largest of 6144 near-Gaussian errors, ~4-5 sigma). Bound: rms_rel < 3%,
//   max_rel < 15%. A real bug (wrong rope, a missing bias, a transposed matrix) gives
//   errors of order 100%.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "model/reference_forward_test_util.h"
#include "model/test_model.h"
#include "modelgen/rope_factors.h"

namespace strata {
namespace {

using testing::Bounds;
using testing::Case;
using testing::ReferenceForwardTest;
using testing::ReferenceForwardVariantsTest;
using testing::TestModelSpec;
using testing::bounds;
using testing::expect_within;

TEST_P(ReferenceForwardTest, LogitsAgreeWithFloat64Reference) {
  TestModelSpec spec;
  spec.arch = GetParam().arch;
  spec.type = GetParam().type;
  const Errors e = errors(spec, DType::kF32);
  expect_within(testing::test_model_name(spec).c_str(), e.rms_rel, e.max_rel, bounds(spec.type));
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  RecordProperty("max_rel", std::to_string(e.max_rel));
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  for (const char* arch : {"llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "glm4", "smollm3", "mistral3", "ernie4_5",
                           "granite", "minicpm", "seed_oss", "cohere2", "command-r"}) {
    for (DType t : testing::all_weight_types()) {
      // MXFP4 runs IQ4_NL's kernels (gpt-oss files with MXFP4 experts: mkmodel_load_test); llama is enough.
      if (t != DType::kMXFP4 || std::string(arch) == "llama") cases.push_back({arch, t});
    }
  }
  // OLMo 2: no pre-norms, post-norms, QK-norm over whole rows; a float and two quantised types
  // (its matmuls are llama's).
  for (DType t : {DType::kF32, DType::kBF16, DType::kQ8_0, DType::kQ4_K}) cases.push_back({"olmo2", t});
  // EXAONE 3.5 (Llama's layers, NeoX rope), Arcee's AFM (a squared-ReLU feed-forward, no gate) and
  // Hunyuan's dense models (QK-norm after the rotation), Apertus (xIELU without a gate).
  for (const char* arch : {"exaone", "arcee", "hunyuan-dense", "apertus"}) {
    for (DType t : {DType::kF32, DType::kQ8_0}) cases.push_back({arch, t});
  }
  // BitNet: llama.cpp's files (SiLU gate, a scale per matrix) and Microsoft's 2B4T (relu^2 gate),
  // under both names its converter writes.
  for (const char* arch : {"bitnet", "bitnet-b1.58", "bitnet-25"}) {
    for (DType t : {DType::kF32, DType::kQ8_0}) cases.push_back({arch, t});
  }
  // EXAONE 4.0 1.2B's form: OLMo 2's layers with QK-norm per head.
  for (DType t : {DType::kF32, DType::kBF16, DType::kQ8_0}) cases.push_back({"exaone4", t});
  // Gemma 4 with float weights only: its layer_output_scale shrinks the stream after every layer,
  // so the 8-bit rounding of later layers' inputs outweighs the exact embedding and a quantised
  // type's error passes the shared bound (Q8_0 over 4 layers: 6% RMS, Gemma 3's 2%). Its
  // quantised forward's bits are the batch-invariance test's.
  for (const char* arch : {"gemma4", "gemma4-e2b"}) {
    for (DType t : {DType::kF16, DType::kBF16}) cases.push_back({arch, t});
  }
  // Gemma 3n (AltUp's streams, the laurel branch, sparse gates, per-layer inputs, shared K/V) with
  // float weights: its six layers run ~5 matmuls more each than Gemma 3's, and the 8-bit rounding
  // of every matmul's input adds up past the shared bound (Q8_0 3.2%, Q4_K 4.1% RMS: noise, where a
  // wrong step gives tens of percent). Its quantised forward's bits are the batch-invariance test's.
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) cases.push_back({"gemma3n", t});
  // Mixture-of-experts models with float weights only: with quantised weights the inputs are
  // quantised to 8 bits too, and that ~1% noise flips a token's expert choice wherever two
  // router logits nearly tie, which no tolerance on the logits can absorb. The routing, gather
  // and combine code is the same for every weight type, and every type's kernels are checked
  // against this reference on the dense models above.
  for (const char* arch : {"mixtral", "qwen2moe", "qwen3moe", "gpt-oss", "glm4moe", "llama4", "deepseek2", "minimax-m2",
                           "ernie4_5-moe", "granitemoe", "bailingmoe2", "dots1", "gemma4-moe", "cohere2_moe", "minimax-m3", "laguna", "olmoe"}) {
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) cases.push_back({arch, t});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(ArchByType, ReferenceForwardTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string arch = info.param.arch;  // test names take no '-' or '.'
                           for (char& c : arch) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return arch + "_" + std::string(dtype_name(info.param.type));
                         });


// Tensors of different types in one file: bounded like the quantised types.
TEST_F(ReferenceForwardVariantsTest, MixedWeightTypesAgree) {
  TestModelSpec spec;
  spec.arch = "qwen3";
  spec.mixed = true;
  const Errors e = errors(spec, DType::kF32);
  expect_within("mixed", e.rms_rel, e.max_rel, bounds(DType::kQ4_0));
}

// Heads wider than n_embd / n_head (attention.key_length; Qwen3-0.6B has 16 heads of 128
// in a 1024-wide model): q, k, v and the attention output are not n_embd wide.
TEST_F(ReferenceForwardVariantsTest, WideHeadsAgree) {
  TestModelSpec spec;
  spec.arch = "qwen3";
  spec.head_dim = 128;
  spec.type = DType::kQ8_0;
  const Errors e = errors(spec, DType::kQ8_0);
  expect_within("wide heads", e.rms_rel, e.max_rel, bounds(DType::kQ8_0));
}

// rope.scaling.type = linear divides positions by the factor.
TEST_F(ReferenceForwardVariantsTest, LinearRopeScalingAgrees) {
  TestModelSpec spec;
  spec.arch = "llama";
  spec.rope_linear_factor = 4.0f;
  spec.rope_freq_base = 500.0f;  // fast rotations, so a wrong scale shows within 24 positions
  const Errors e = errors(spec, DType::kF32);
  expect_within("linear rope", e.rms_rel, e.max_rel, bounds(DType::kF32));
}

// Llama 3.1-style rope_freqs.weight divides each pair's angle by its factor. Base 500 and
// an original context of 64 make pairs 0-4 keep factor 1, 5-11 ramp and 12-31 slow down
// 8x, all visibly within 24 positions. The same weights checked against a reference
// without the factors must disagree by far more than the bound: the factors are applied.
TEST_F(ReferenceForwardVariantsTest, RopeFreqFactorsAgree) {
  TestModelSpec spec;
  spec.arch = "llama";
  spec.rope_freq_base = 500.0f;
  Llama3RopeScaling scaling;
  scaling.orig_ctx = 64;
  spec.rope_freqs = llama3_rope_factors(64, spec.rope_freq_base, scaling);
  ASSERT_EQ(spec.rope_freqs.front(), 1.0f);
  ASSERT_EQ(spec.rope_freqs.back(), 8.0f);
  const Errors e = errors(spec, DType::kF32);
  expect_within("rope_freqs", e.rms_rel, e.max_rel, bounds(DType::kF32));

  TestModelSpec without = spec;
  without.rope_freqs.clear();
  const Errors ignored = errors(spec, DType::kF32, &without);
  EXPECT_GT(ignored.rms_rel, 100 * bounds(DType::kF32).rms_rel) << "the factors make no difference";
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  RecordProperty("rms_rel_without_factors", std::to_string(ignored.rms_rel));
}

// Gemma 3 with a global layer (the 6th, rope base 500, linear scaling 4) among sliding ones
// (rope base 10000, unscaled): 24 positions over a window of 10 keys. The same weights checked against a reference whose window holds every position
// must disagree by far more than the bound: the window is applied, and only where it slides.
TEST_F(ReferenceForwardVariantsTest, Gemma3SlidingAndGlobalLayersAgree) {
  TestModelSpec spec;
  spec.arch = "gemma3";
  spec.n_layer = 6;
  spec.rope_freq_base = 500.0f;    // the global layer's; the sliding ones rotate with base 10000
  spec.rope_linear_factor = 4.0f;  // the global layer's too (Gemma 3 4B and up: 8); not the sliding ones'
  for (DType kv : {DType::kF32, DType::kQ8_0}) {
    const Errors e = errors(spec, kv);
    expect_within(dtype_name(kv).data(), e.rms_rel, e.max_rel, bounds(kv == DType::kF32 ? DType::kF32 : DType::kQ8_0));
    RecordProperty(std::string("rms_rel_kv_") + std::string(dtype_name(kv)), std::to_string(e.rms_rel));
  }
  TestModelSpec unwindowed = spec;
  unwindowed.sliding_window = 1000;
  const Errors ignored = errors(spec, DType::kF32, &unwindowed);
  EXPECT_GT(ignored.rms_rel, 100 * bounds(DType::kF32).rms_rel) << "the window makes no difference";
  RecordProperty("rms_rel_without_window", std::to_string(ignored.rms_rel));
}

// gpt-oss with YaRN (factor 32 over an original context of 64: pairs past the ramp turn 32
// times slower, every rotation is scaled by 1 + 0.1 ln 32), attention sinks, biases, and a
// 10-key window in its even layers, over 24 positions. The same weights checked against
// references without the window or without YaRN disagree by far more than the bound. An F32
// K/V cache only: a rounded cache's noise flips expert choices where router logits nearly tie
// (see all_cases()); the other K/V types' kernels are checked against this on dense models.
TEST_F(ReferenceForwardVariantsTest, GptOssYarnSinksAndWindowsAgree) {
  TestModelSpec spec;
  spec.arch = "gpt-oss";
  spec.n_layer = 3;
  spec.rope_yarn_factor = 32.0f;
  const Errors e = errors(spec, DType::kF32);
  expect_within("gpt-oss", e.rms_rel, e.max_rel, bounds(DType::kF32));
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  TestModelSpec unwindowed = spec;
  unwindowed.sliding_window = 1000;
  const Errors no_window = errors(spec, DType::kF32, &unwindowed);
  EXPECT_GT(no_window.rms_rel, 100 * bounds(DType::kF32).rms_rel) << "the window makes no difference";
  TestModelSpec unscaled = spec;
  unscaled.rope_yarn_factor = 1.0f;
  const Errors no_yarn = errors(spec, DType::kF32, &unscaled);
  EXPECT_GT(no_yarn.rms_rel, 100 * bounds(DType::kF32).rms_rel) << "YaRN makes no difference";
}

// Gemma 2 with caps small enough to bite (attention scores at 2, logits at 3: the defaults, 50
// and 30, rarely do on these weights), even layers sliding over 10 keys, over 24 positions;
// references without either cap or without the window disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Gemma2SoftcapsAndWindowAgree) {
  TestModelSpec spec;
  spec.arch = "gemma2";
  spec.n_layer = 3;
  spec.attn_softcap = 2.0f;
  spec.final_softcap = 3.0f;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("gemma2", e.rms_rel, e.max_rel, b);
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  TestModelSpec loose_scores = spec;
  loose_scores.attn_softcap = 1000.0f;
  EXPECT_GT(errors(spec, DType::kF32, &loose_scores).rms_rel, 100 * b.rms_rel) << "the score cap makes no difference";
  TestModelSpec loose_logits = spec;
  loose_logits.final_softcap = 1000.0f;
  EXPECT_GT(errors(spec, DType::kF32, &loose_logits).rms_rel, 100 * b.rms_rel) << "the logit cap makes no difference";
  TestModelSpec unwindowed = spec;
  unwindowed.sliding_window = 1000;
  EXPECT_GT(errors(spec, DType::kF32, &unwindowed).rms_rel, 100 * b.rms_rel) << "the window makes no difference";
}

// Phi-3 (fused q/k/v and gate/up tensors, every layer sliding over 10 keys) with LongRoPE: 16
// short and 16 long factors over an original context of 16, the rope attention factor, and
// rope over half of each head. A context of 16 rotates with the short factors, one of 64 with
// the long ones; references with the other factors, without the attention factor or without
// the window disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Phi3LongRopeWindowAndPartialRotaryAgree) {
  TestModelSpec spec;
  spec.arch = "phi3";
  spec.n_rot = 32;
  spec.rope_attn_factor = 1.19f;
  testing::set_longrope_factors(spec, 16, 16);
  const Bounds b = bounds(DType::kF32);
  const Errors short_ctx = errors(spec, DType::kF32, nullptr, 16);
  expect_within("phi3 short factors", short_ctx.rms_rel, short_ctx.max_rel, b);
  const Errors long_ctx = errors(spec, DType::kF32, nullptr, 64);
  expect_within("phi3 long factors", long_ctx.rms_rel, long_ctx.max_rel, b);
  RecordProperty("rms_rel", std::to_string(long_ctx.rms_rel));
  EXPECT_GT(errors(spec, DType::kF32, nullptr, 64, 16).rms_rel, 100 * b.rms_rel) << "the factors make no difference";
  TestModelSpec unscaled = spec;
  unscaled.rope_attn_factor = 1.0f;
  EXPECT_GT(errors(spec, DType::kF32, &unscaled, 64).rms_rel, 100 * b.rms_rel) << "attn_factor makes no difference";
  TestModelSpec unwindowed = spec;
  unwindowed.sliding_window = 0;
  EXPECT_GT(errors(spec, DType::kF32, &unwindowed, 64).rms_rel, 100 * b.rms_rel) << "the window makes no difference";
}

// GLM-4 with q, k and v in one attn_qkv and their biases in one attn_qkv.bias (older GLM
// files), rope on adjacent pairs over half of each head, and post-norms; a reference without
// the bias disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Glm4FusedQkvBiasAndPostNormsAgree) {
  TestModelSpec spec;
  spec.arch = "glm4";
  spec.fused_qkv = true;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("glm4 fused qkv", e.rms_rel, e.max_rel, b);
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.0.attn_qkv.bias", "blk.1.attn_qkv.bias"};
  EXPECT_GT(errors(spec, DType::kF32, &unbiased).rms_rel, 100 * b.rms_rel) << "the fused bias makes no difference";
}

// An F16 K/V cache rounds K and V to 11 significant bits (relative error up to 2^-11,
// RMS ~1.4e-4); the attention output and then the logits inherit about that, so the
// bound is 1e-3 RMS and 5e-3 max.
TEST_F(ReferenceForwardVariantsTest, F16KvCacheStaysClose) {
  TestModelSpec spec;
  spec.arch = "qwen2";
  const Errors e = errors(spec, DType::kF16);
  expect_within("f16 kv", e.rms_rel, e.max_rel, {1e-3, 5e-3});
}

}  // namespace
}  // namespace strata
