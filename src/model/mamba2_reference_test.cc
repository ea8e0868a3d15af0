// Granite 4.0-H's hybrid models (granitehybrid: Tiny / Small's experts beside a shared expert;
// granitehybrid-dense: Micro) against the float64 reference: Mamba-2 layers
// (reference_mamba2.cc) around an attention layer without rope, over 48 positions, so the
// convolution window and the decaying state carry tens of positions, fed in one forward pass,
// one position per pass, or in chunks. The test models have 2 groups of B and C over 4 heads, so
// a head reading group h % 2 instead of h / 2, or a norm over the whole row instead of each
// group's half, moves the logits by far more than the bounds.
//
// Float weights keep reference_forward_test.cc's bounds (why: its top comment; measured rms_rel
// below 1e-6 for every arch here). Quantised ones round each matmul input to 8 bits: Granite's
// measured rms_rel 0.85-1.26%, max_rel 3.4-6.2% (K-quants the most), bound {0.03, 0.15};
// Nemotron-H's squared ReLU doubles the relative error of what it squares, and its feed-forward
// inputs are rounded again before ffn_down: measured 2.1-3.4%, max_rel 9-18%, bound {0.06, 0.3}
// as the quantised delta-net cases (hybrid_reference_test.cc). LFM2's short convolution multiplies
// two rounded products twice (B * x, then C * conv), so its errors add: Q8_0 measured 4.1%, max_rel
// 20%, under the same bound (Q4_K: 6.1%, 26%, not run). Falcon-H1 adds two mixers' outputs, each
// over its own rounded input, in every layer: Q8_0 measured 2.2% (max_rel 9.9%), Q4_K 3.4% (17%),
// under the same bound. Each of these fast-path mistakes fails
// the F32 case by far more (mutation runs): a head reading group h % 2, one RMS norm over the
// whole row, no convolution bias, no skip term. LFM2-MoE (lfm2moe) runs float weights only, as
// the other mixture-of-experts archs: quantised inputs flip expert choices where gates nearly tie.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/reference_forward_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::Bounds;
using testing::Case;
using testing::Feed;
using testing::ReferenceForwardTest;
using testing::ReferenceForwardVariantsTest;
using testing::TestModelSpec;
using testing::bounds;
using testing::expect_within;

constexpr int kTokens = 48;
constexpr Feed kMamba2OneBatch{kTokens, 0};
constexpr Feed kMamba2TokenByToken{kTokens, 1};

Bounds mamba2_bounds(const std::string& arch, DType type) {
  const bool float_weights = type == DType::kF32 || type == DType::kF16 || type == DType::kBF16;
  if (float_weights) return bounds(type);
  return arch == "nemotron_h" || arch == "lfm2" || arch == "falcon-h1" ? Bounds{0.06, 0.3} : Bounds{0.03, 0.15};
}

class Mamba2ReferenceTest : public ReferenceForwardTest {};

// Granite 4.0-H's four layers: Mamba-2, Mamba-2, attention, Mamba-2; Nemotron-H's five: Mamba-2,
// feed-forward, attention, Mamba-2, feed-forward; LFM2's four: short convolution, short
// convolution, attention, short convolution.
TEST_P(Mamba2ReferenceTest, LogitsAgreeInOneBatchAndTokenByToken) {
  TestModelSpec spec;
  spec.arch = GetParam().arch;
  spec.type = GetParam().type;
  const std::string name = testing::test_model_name(spec);
  const Bounds b = mamba2_bounds(spec.arch, spec.type);
  const Errors batch = errors(spec, DType::kF32, nullptr, kTokens, -1, kMamba2OneBatch);
  expect_within((name + " one batch").c_str(), batch.rms_rel, batch.max_rel, b);
  const Errors single = errors(spec, DType::kF32, nullptr, kTokens, -1, kMamba2TokenByToken);
  expect_within((name + " token by token").c_str(), single.rms_rel, single.max_rel, b);
  RecordProperty("rms_rel", std::to_string(batch.rms_rel));
  RecordProperty("max_rel", std::to_string(batch.max_rel));
  RecordProperty("rms_rel_token_by_token", std::to_string(single.rms_rel));
}

std::vector<Case> mamba2_cases() {
  std::vector<Case> cases;
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0, DType::kQ4_0, DType::kQ5_0, DType::kQ4_K,
                  DType::kQ5_K, DType::kQ6_K}) {
    cases.push_back({"granitehybrid-dense", t});
  }
  // Float weights only, as for the other mixture-of-experts archs: quantised inputs flip expert
  // choices where router logits nearly tie.
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) cases.push_back({"granitehybrid", t});
  // Nemotron-H: its squared-ReLU feed-forward layers between the Mamba-2 and attention layers.
  for (DType t : {DType::kF32, DType::kBF16, DType::kQ8_0, DType::kQ4_K, DType::kQ6_K}) cases.push_back({"nemotron_h", t});
  // Nemotron 3's squared-ReLU experts and shared expert, float weights as the other MoE archs.
  for (DType t : {DType::kF32, DType::kBF16}) cases.push_back({"nemotron_h_moe", t});
  // LFM2's short convolutions (no state matrix) beside attention with QK-norm and rope.
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0}) cases.push_back({"lfm2", t});
  // LFM2-MoE: a dense layer, then sigmoid-routed experts with a selection bias (float weights).
  for (DType t : {DType::kF32, DType::kBF16}) cases.push_back({"lfm2moe", t});
  // Falcon-H1: Mamba-2 beside attention in every layer.
  for (DType t : {DType::kF32, DType::kBF16, DType::kQ8_0, DType::kQ4_K}) cases.push_back({"falcon-h1", t});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Mamba2ByType, Mamba2ReferenceTest, ::testing::ValuesIn(mamba2_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string arch = info.param.arch;
                           for (char& c : arch) c = c == '-' ? '_' : c;
                           return arch + "_" + std::string(dtype_name(info.param.type));
                         });

// Eight layers (attention in the 3rd and 7th, each with its own K/V layer; six Mamba-2 layers,
// each with its own state), fed in chunks of 7 positions, with an F32 and an F16 K/V cache
// (bounded as F16KvCacheStaysClose is).
TEST_F(ReferenceForwardVariantsTest, GraniteHybridEightLayersAgreeInChunks) {
  for (const char* arch : {"granitehybrid", "granitehybrid-dense"}) {
    TestModelSpec spec;
    spec.arch = arch;
    spec.n_layer = 8;
    const Feed chunks{kTokens, 7};
    const Errors e = errors(spec, DType::kF32, nullptr, kTokens, -1, chunks);
    expect_within(arch, e.rms_rel, e.max_rel, bounds(DType::kF32));
    const Errors f16_kv = errors(spec, DType::kF16, nullptr, kTokens, -1, chunks);
    expect_within((std::string(arch) + " f16 kv").c_str(), f16_kv.rms_rel, f16_kv.max_rel, {1e-3, 5e-3});
  }
}

// Granite 4.0-H's attention has no positions (rope.scaling.finetuned false): the same weights with
// the flag true rotate, and the reference of that file disagrees by far more than the bound; run
// with it, the fast path agrees with its own reference.
TEST_F(ReferenceForwardVariantsTest, GraniteHybridRotatesOnlyWhenTheFileSaysSo) {
  TestModelSpec spec;
  spec.arch = "granitehybrid-dense";
  spec.rope_freq_base = 500.0f;  // the rotation turns within the 48 positions
  TestModelSpec rotating = spec;
  rotating.metadata_overrides = {{"granitehybrid.rope.scaling.finetuned", GgufValue::Bool(true)}};
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(rotating, DType::kF32, nullptr, kTokens, -1, kMamba2OneBatch);
  expect_within("granitehybrid with rope", e.rms_rel, e.max_rel, b);
  EXPECT_GT(errors(spec, DType::kF32, &rotating, kTokens, -1, kMamba2OneBatch).rms_rel, 100 * b.rms_rel)
      << "rope.scaling.finetuned makes no difference";
}

// Falcon-H1 adds its Mamba-2 and attention outputs in every layer, the Mamba-2 group norm only where
// the file has ssm_norm: a file without it agrees with its own reference over 48 positions in
// chunks of 5, and the same weights with the norm disagree far outside the bound, as do references
// of either mixer alone (the attention's weights dropped to zero rows, the Mamba-2 output's).
TEST_F(ReferenceForwardVariantsTest, FalconH1AddsMamba2AndAttention) {
  TestModelSpec spec;
  spec.arch = "falcon-h1";
  TestModelSpec unnormed = spec;
  for (int l = 0; l < 2; ++l) unnormed.skip_tensors.push_back("blk." + std::to_string(l) + ".ssm_norm.weight");
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(unnormed, DType::kF32, nullptr, kTokens, -1, Feed{kTokens, 5});
  expect_within("falcon-h1 without ssm_norm", e.rms_rel, e.max_rel, b);
  EXPECT_GT(errors(unnormed, DType::kF32, &spec, kTokens, -1, kMamba2OneBatch).rms_rel, 100 * b.rms_rel)
      << "ssm_norm makes no difference";
}

// LFM2-MoE's routing follows the file: the same weights routed by softmax, or without the
// selection bias, disagree with it far outside the bound.
TEST_F(ReferenceForwardVariantsTest, Lfm2MoeRoutesBySigmoidGatesPlusTheSelectionBias) {
  TestModelSpec spec;
  spec.arch = "lfm2moe";
  const Bounds b = bounds(DType::kF32);
  TestModelSpec softmax = spec;
  softmax.metadata_overrides = {{"lfm2moe.expert_gating_func", GgufValue::U32(1)}};
  EXPECT_GT(errors(spec, DType::kF32, &softmax, kTokens, -1, kMamba2OneBatch).rms_rel, 100 * b.rms_rel)
      << "sigmoid gating makes no difference";
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias", "blk.3.exp_probs_b.bias"};
  EXPECT_GT(errors(spec, DType::kF32, &unbiased, kTokens, -1, kMamba2OneBatch).rms_rel, 100 * b.rms_rel)
      << "the selection bias makes no difference";
}

// An LFM2 file with attention.sliding_window windows every attending layer, as llama.cpp reads it:
// the fast path agrees with its reference over 48 positions and a window of 8, and the same
// weights without the key attend over all keys, far outside the bound.
TEST_F(ReferenceForwardVariantsTest, Lfm2WindowsItsAttentionWhenTheFileSaysSo) {
  TestModelSpec spec;
  spec.arch = "lfm2";
  TestModelSpec windowed = spec;
  windowed.metadata_overrides = {{"lfm2.attention.sliding_window", GgufValue::U32(8)}};
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(windowed, DType::kF32, nullptr, kTokens, -1, Feed{kTokens, 5});
  expect_within("lfm2 with a window", e.rms_rel, e.max_rel, b);
  EXPECT_GT(errors(spec, DType::kF32, &windowed, kTokens, -1, kMamba2OneBatch).rms_rel, 100 * b.rms_rel)
      << "attention.sliding_window makes no difference";
}

}  // namespace
}  // namespace strata
