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
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <ostream>
#include <string>
#include <vector>

#include "model/contiguous_kv.h"
#include "model/model.h"
#include "model/reference_forward.h"
#include "model/test_model.h"
#include "modelgen/rope_factors.h"

namespace strata {
namespace {

namespace fs = std::filesystem;
using testing::TestModelSpec;

constexpr int kTokens = 24;

struct Bounds {
  double rms_rel;
  double max_rel;
};

Bounds bounds(DType type) {
  switch (type) {
    case DType::kF32: case DType::kF16: case DType::kBF16: return {1e-5, 3e-5};
    default: return {3e-2, 0.15};
  }
}

struct Case {
  std::string arch;
  DType type;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.arch << "-" << dtype_name(c.type); }

class ReferenceForwardTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-model-ref-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  struct Errors {
    double max_rel = INFINITY;  // largest |fast - reference| / RMS(reference logits at that position)
    double rms_rel = INFINITY;  // ||fast - reference|| / ||reference|| over all positions
  };

  // The fast path on spec's model against the reference on ref_spec's (spec's when null), the
  // model fitted to a context of n_ctx tokens and the reference to ref_n_ctx (n_ctx when < 0):
  // what picks Phi-3's LongRoPE factors.
  Errors errors(const TestModelSpec& spec, DType kv_type, const TestModelSpec* ref_spec = nullptr, int n_ctx = kTokens,
                int ref_n_ctx = -1) {
    const std::string path = (dir_ / (testing::test_model_name(spec) + ".gguf")).string();
    Status st = testing::write_test_model(spec, path);
    EXPECT_TRUE(st.ok()) << st.ToString();
    auto model = Model::Load(path);
    std::string ref_path = path;
    if (ref_spec != nullptr) {
      ref_path = (dir_ / ("ref-" + testing::test_model_name(*ref_spec) + ".gguf")).string();
      st = testing::write_test_model(*ref_spec, ref_path);
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    auto gguf = GgufFile::Open(ref_path);
    EXPECT_TRUE(model.ok() && gguf.ok());
    if (!model.ok() || !gguf.ok()) return {};
    auto ref = testing::ReferenceForward::Load(*gguf, ref_n_ctx < 0 ? n_ctx : ref_n_ctx);
    EXPECT_TRUE(ref.ok()) << ref.status().ToString();
    if (!ref.ok()) return {};

    (*model)->fit_context(n_ctx);
    const Model& m = **model;
    const int n_vocab = m.hparams().n_vocab;
    auto kv = std::move(ContiguousKv::Create(m.kv_layout(kv_type, 16), 1, kTokens).value());
    auto scratch = m.make_scratch(kTokens, kTokens);
    ThreadPool pool(2);
    std::mt19937 rng(spec.seed);
    std::vector<int32_t> tokens;
    std::vector<Row> rows;
    for (int pos = 0; pos < kTokens; ++pos) {
      tokens.push_back(static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab)));
      rows.push_back(Row{0, pos, tokens.back(), true});
    }
    std::vector<float> logits(static_cast<size_t>(kTokens) * n_vocab);
    m.forward(rows, *kv, logits.data(), *scratch, pool);
    const testing::LogitErrors e = testing::logit_errors(*ref, tokens, logits.data());
    return {e.max_rel, e.rms_rel};
  }

  fs::path dir_;
};

void expect_within(const char* what, double rms_rel, double max_rel, const Bounds& b) {
  EXPECT_LT(rms_rel, b.rms_rel) << what << " rms_rel";
  EXPECT_LT(max_rel, b.max_rel) << what << " max_rel";
}

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
  for (const char* arch : {"llama", "qwen2", "qwen3", "gemma2", "gemma3", "phi3", "glm4", "smollm3", "mistral3", "ernie4_5"}) {
    for (DType t : testing::all_weight_types()) {
      // MXFP4 runs IQ4_NL's kernels (gpt-oss files with MXFP4 experts: mkmodel_load_test); llama is enough.
      if (t != DType::kMXFP4 || std::string(arch) == "llama") cases.push_back({arch, t});
    }
  }
  // Mixture-of-experts models with float weights only: with quantised weights the inputs are
  // quantised to 8 bits too, and that ~1% noise flips a token's expert choice wherever two
  // router logits nearly tie, which no tolerance on the logits can absorb. The routing, gather
  // and combine code is the same for every weight type, and every type's kernels are checked
  // against this reference on the dense models above.
  for (const char* arch : {"mixtral", "qwen2moe", "qwen3moe", "gpt-oss", "glm4moe", "llama4", "deepseek2", "minimax-m2",
                           "ernie4_5-moe"}) {
    for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) cases.push_back({arch, t});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(ArchByType, ReferenceForwardTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string arch = info.param.arch;  // test names take no '-'
                           std::replace(arch.begin(), arch.end(), '-', '_');
                           return arch + "_" + std::string(dtype_name(info.param.type));
                         });

class ReferenceForwardVariantsTest : public ReferenceForwardTest {};

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

// GLM-4.5 (glm4moe) over 3 layers: a dense first layer, then experts chosen by sigmoid gate
// values plus a selection bias, weighted times 2.5, beside an ungated shared expert; rope over
// half of each head; a NextN block in the file that must not run. References that route by
// softmax, drop the selection bias or the weight scale, or run the NextN block as a fourth
// layer disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Glm4MoeSigmoidRoutingBiasAndScaleAgree) {
  TestModelSpec spec;
  spec.arch = "glm4moe";
  spec.n_layer = 3;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("glm4moe", e.rms_rel, e.max_rel, b);
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  TestModelSpec softmax = spec;
  softmax.metadata_overrides.emplace_back("glm4moe.expert_gating_func", GgufValue::U32(1));
  EXPECT_GT(errors(spec, DType::kF32, &softmax).rms_rel, 100 * b.rms_rel) << "sigmoid gating makes no difference";
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias"};
  EXPECT_GT(errors(spec, DType::kF32, &unbiased).rms_rel, 100 * b.rms_rel) << "the selection bias makes no difference";
  TestModelSpec unscaled = spec;
  unscaled.expert_weights_scale = 1.0f;
  EXPECT_GT(errors(spec, DType::kF32, &unscaled).rms_rel, 100 * b.rms_rel) << "the weight scale makes no difference";
  TestModelSpec with_nextn = spec;
  with_nextn.metadata_overrides.emplace_back("glm4moe.nextn_predict_layers", GgufValue::U32(0));
  EXPECT_GT(errors(spec, DType::kF32, &with_nextn).rms_rel, 100 * b.rms_rel) << "the NextN block makes no difference";
}

// MiniMax-M2 over 3 layers: QK-norm over each whole q and k row, rope over half of each head,
// experts by sigmoid gate values plus a selection bias. References that route by softmax or
// without the bias disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, MiniMaxM2WholeRowQkNormAndBiasedSigmoidRoutingAgree) {
  TestModelSpec spec;
  spec.arch = "minimax-m2";
  spec.n_layer = 3;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("minimax-m2", e.rms_rel, e.max_rel, b);
  TestModelSpec softmax = spec;
  softmax.expert_gating_func = 1;
  EXPECT_GT(errors(spec, DType::kF32, &softmax).rms_rel, 100 * b.rms_rel) << "sigmoid gating makes no difference";
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.0.exp_probs_b.bias", "blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias"};
  EXPECT_GT(errors(spec, DType::kF32, &unbiased).rms_rel, 100 * b.rms_rel) << "the selection bias makes no difference";
}

// ERNIE 4.5's experts over 3 layers (a dense one, then two MoE layers with a shared expert):
// chosen by softmax probability plus a selection bias, renormalised. References without the
// bias, or with sigmoid gates, disagree by far more than the bound; so does a model that adds the
// bias to the logits instead of the probabilities (what route_row did before ERNIE).
TEST_F(ReferenceForwardVariantsTest, Ernie45SoftmaxRoutingWithSelectionBiasAgrees) {
  TestModelSpec spec;
  spec.arch = "ernie4_5-moe";
  spec.n_layer = 3;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("ernie4_5-moe", e.rms_rel, e.max_rel, b);
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias"};
  EXPECT_GT(errors(spec, DType::kF32, &unbiased).rms_rel, 100 * b.rms_rel) << "the selection bias makes no difference";
  TestModelSpec sigmoid = spec;
  sigmoid.metadata_overrides.emplace_back("ernie4_5-moe.expert_gating_func", GgufValue::U32(2));
  EXPECT_GT(errors(spec, DType::kF32, &sigmoid).rms_rel, 100 * b.rms_rel) << "softmax gating makes no difference";
}

// Ministral 3 over 24 positions: YaRN 4 over an original context of 8 positions with its own
// ramp (beta_fast 16, beta_slow 2) and a magnitude ratio (yarn_log_multiplier 0.5), and q's
// temperature in every layer, which grows every 8 positions. References without the
// temperature, the ratio or the file's ramp disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Mistral3TemperatureAndYarnAgree) {
  TestModelSpec spec;
  spec.arch = "mistral3";
  spec.rope_yarn_factor = 4.0f;
  spec.rope_yarn_orig_ctx = 8;
  spec.rope_yarn_log_mul = 0.5f;
  spec.rope_yarn_beta_fast = 16.0f;
  spec.rope_yarn_beta_slow = 2.0f;
  spec.attn_temp_scale = 0.5f;
  spec.rope_freq_base = 500.0f;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("mistral3", e.rms_rel, e.max_rel, b);
  TestModelSpec cold = spec;
  cold.attn_temp_scale = 0.0f;
  EXPECT_GT(errors(spec, DType::kF32, &cold).rms_rel, 100 * b.rms_rel) << "the temperature makes no difference";
  TestModelSpec no_ratio = spec;
  no_ratio.rope_yarn_log_mul = 0.0f;
  EXPECT_GT(errors(spec, DType::kF32, &no_ratio).rms_rel, 100 * b.rms_rel) << "the mscale ratio makes no difference";
  TestModelSpec default_ramp = spec;
  default_ramp.rope_yarn_beta_fast = 32.0f;
  default_ramp.rope_yarn_beta_slow = 1.0f;
  EXPECT_GT(errors(spec, DType::kF32, &default_ramp).rms_rel, 100 * b.rms_rel) << "the file's ramp makes no difference";
}

// Llama 4 over 8 layers and 24 positions: layers 4 and 8 without rope, q scaled there by a
// temperature that grows every 4 positions; the others attending within chunks of 10 keys and
// L2-normed q and k; experts (by sigmoid weights on their input) in every other layer, dense
// layers between, an ungated shared expert. References without the chunks, the temperature or
// the L2 norm disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Llama4NopeLayersChunksTemperatureAndL2NormAgree) {
  TestModelSpec spec;
  spec.arch = "llama4";
  spec.n_layer = 8;
  spec.moe_layer_step = 2;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("llama4", e.rms_rel, e.max_rel, b);
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  TestModelSpec unchunked = spec;
  unchunked.attn_chunk = 1000;
  EXPECT_GT(errors(spec, DType::kF32, &unchunked).rms_rel, 100 * b.rms_rel) << "the chunks make no difference";
  TestModelSpec cold = spec;
  cold.attn_temp_scale = 0.0f;
  EXPECT_GT(errors(spec, DType::kF32, &cold).rms_rel, 100 * b.rms_rel) << "the temperature makes no difference";
  TestModelSpec unnormed = spec;
  unnormed.qk_l2_norm = false;
  EXPECT_GT(errors(spec, DType::kF32, &unnormed).rms_rel, 100 * b.rms_rel) << "the L2 norm makes no difference";
}

// SmolLM3 over 4 layers, the 4th without rope: a reference whose 4th layer rotates disagrees by
// far more than the bound.
TEST_F(ReferenceForwardVariantsTest, SmolLM3LayerWithoutRopeAgrees) {
  TestModelSpec spec;
  spec.arch = "smollm3";
  spec.n_layer = 4;
  spec.rope_freq_base = 500.0f;  // fast rotations, so a rope in the 4th layer shows within 24 positions
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("smollm3", e.rms_rel, e.max_rel, b);
  TestModelSpec rotating = spec;  // the same weights
  rotating.arch = "llama";
  EXPECT_GT(errors(spec, DType::kF32, &rotating).rms_rel, 100 * b.rms_rel) << "the rope-less layer makes no difference";
}

// DeepSeek's latent attention over 3 layers (a dense one, then experts), against the reference's
// plain form (full keys and values expanded per position): with a compressed query (V3) or
// without (V2-Lite), the per-head maps as attn_kv_b or split into attn_k_b / attn_v_b, softmax
// routing (V2) or sigmoid with a selection bias (V3), YaRN with its score scale, and an F16 latent
// cache. A reference without the score scale (yarn_log_multiplier) disagrees by far more than
// the bound. The max_rel bound is twice the float one: the absorbed form adds two float
// reductions per score (a query's latent part, then its 288-term dot with the latent row), and
// YaRN's scale (1.46) sharpens the softmax; measured rms_rel 0.9-3.0e-6, max_rel 4e-6 to 3.3e-5
// over both forms, both routings, with and without YaRN.
TEST_F(ReferenceForwardVariantsTest, DeepSeek2LatentAttentionFormsAndYarnAgree) {
  TestModelSpec spec;
  spec.arch = "deepseek2";
  spec.n_layer = 3;
  spec.rope_yarn_factor = 8.0f;
  spec.rope_yarn_orig_ctx = 16;
  spec.rope_yarn_log_mul = 0.1f;
  const Bounds b = {1e-5, 6e-5};
  const Errors e = errors(spec, DType::kF32);
  expect_within("deepseek2", e.rms_rel, e.max_rel, b);
  RecordProperty("rms_rel", std::to_string(e.rms_rel));
  TestModelSpec lite = spec;
  lite.mla_q_rank = 0;
  lite.expert_gating_func = 1;
  lite.mla_split = true;
  const Errors lite_e = errors(lite, DType::kF32);
  expect_within("deepseek2 without q compression, split maps, softmax", lite_e.rms_rel, lite_e.max_rel, b);
  const Errors f16_kv = errors(spec, DType::kF16);
  expect_within("deepseek2 f16 latent cache", f16_kv.rms_rel, f16_kv.max_rel, {1e-3, 5e-3});
  TestModelSpec unscaled = spec;
  unscaled.rope_yarn_log_mul = 0.0f;
  EXPECT_GT(errors(spec, DType::kF32, &unscaled).rms_rel, 100 * b.rms_rel) << "the score scale makes no difference";
}

// Quantized per-head maps (attn_k_b / attn_v_b in the file's type): the query's no-rope part and
// each head's latent output are rounded to 8 bits on their way through them, two roundings per
// layer more than the attn_kv_b form (whose key maps are F32 copies), and the latent dot
// products of 288 terms carry them into the scores. With every expert used (no route can flip)
// measured rms_rel 0.042 and max_rel 0.32 for Q8_0, 0.038 and 0.21 for MXFP4; the bound is
// {0.06, 0.5}. A wrong map (transposed, another head's) gives errors of order 100%.
TEST_F(ReferenceForwardVariantsTest, DeepSeek2QuantizedLatentMapsAgree) {
  for (DType type : {DType::kQ8_0, DType::kMXFP4}) {
    TestModelSpec spec;
    spec.arch = "deepseek2";
    spec.n_layer = 3;
    spec.type = type;
    spec.mla_split = true;
    spec.n_expert_used = spec.n_expert;
    const Errors e = errors(spec, DType::kF32);
    expect_within(dtype_name(type).data(), e.rms_rel, e.max_rel, {0.06, 0.5});
  }
}

// DeepSeek-V3's group-limited routing: 8 experts in 4 groups of 2, the top 2 taken within the 2
// groups whose two ranks sum highest. A reference routing over all experts disagrees by far
// more than the bound.
TEST_F(ReferenceForwardVariantsTest, DeepSeek2GroupLimitedRoutingAgrees) {
  TestModelSpec spec;
  spec.arch = "deepseek2";
  spec.n_layer = 3;
  spec.metadata_overrides = {{"deepseek2.expert_group_count", GgufValue::U32(4)},
                             {"deepseek2.expert_group_used_count", GgufValue::U32(2)}};
  const Bounds b = {1e-5, 6e-5};
  const Errors e = errors(spec, DType::kF32);
  expect_within("deepseek2 group-limited", e.rms_rel, e.max_rel, b);
  TestModelSpec ungrouped = spec;
  ungrouped.metadata_overrides.clear();
  EXPECT_GT(errors(spec, DType::kF32, &ungrouped).rms_rel, 100 * b.rms_rel) << "the groups make no difference";
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
