// The float64 reference against the fast forward pass on the architectures whose layers come in
// kinds (Step 3.5, Laguna, MiMo-V2: full and sliding layers with heads, rotations and gates of
// their own beside experts; Nemotron: layers without attention, with attn_output alone, or without
// a feed-forward; OLMo 3: sliding layers without YaRN beside full ones with it), each with
// references that leave a part out and must disagree by far more than the bound where a file can
// say so.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gguf/gguf_value.h"
#include "model/reference_forward_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::Bounds;
using testing::ReferenceForwardVariantsTest;
using testing::TestModelSpec;
using testing::bounds;
using testing::expect_within;

// Step 3.5 (step35) over 4 layers, 24 positions past a 10-key window: full layers of 4 heads
// rotating half of each head with rope_freqs, sliding ones of 6 heads rotating all of it on their
// own base, each head's output gated, clamped SwiGLUs in the dense layer, the routed experts and
// the shared expert, sigmoid routing scaled. References without the clamps or without the head
// gates disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Step35HeadGatesClampsAndMixedHeadsAgree) {
  TestModelSpec spec;
  spec.arch = "step35";
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("step35", e.rms_rel, e.max_rel, b);
  TestModelSpec unclamped = spec;
  unclamped.metadata_overrides = {{"step35.swiglu_clamp_exp", GgufValue::F32Array(std::vector<float>(5, 0.0f))},
                                  {"step35.swiglu_clamp_shexp", GgufValue::F32Array(std::vector<float>(5, 0.0f))}};
  EXPECT_GT(errors(spec, DType::kF32, &unclamped, 24).rms_rel, 100 * b.rms_rel) << "the clamps make no difference";
  TestModelSpec ungated = spec;
  for (int l = 0; l < 4; ++l) ungated.skip_tensors.push_back("blk." + std::to_string(l) + ".attn_gate.weight");
  EXPECT_GT(errors(spec, DType::kF32, &ungated, 24).rms_rel, 100 * b.rms_rel) << "the head gates make no difference";
}

// Laguna over 4 layers (a dense full one, then sliding and full MoE layers with more heads where
// they slide): softplus head gates, the full layers' YaRN over half a head, the sliding layers'
// plain rope over all of it, sigmoid routing with a selection bias, renormalised and scaled,
// beside a shared expert. References without the gates, without YaRN, or with the sliding layers
// on the full layers' base disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, LagunaSoftplusGatesAndTwoRopesAgree) {
  TestModelSpec spec;
  spec.arch = "laguna";
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("laguna", e.rms_rel, e.max_rel, b);
  TestModelSpec ungated = spec;
  for (int l = 0; l < 4; ++l) ungated.skip_tensors.push_back("blk." + std::to_string(l) + ".attn_gate.weight");
  EXPECT_GT(errors(spec, DType::kF32, &ungated, 24).rms_rel, 100 * b.rms_rel) << "the head gates make no difference";
  TestModelSpec unscaled = spec;
  unscaled.skip_keys = {"laguna.rope.scaling.type", "laguna.rope.scaling.factor"};
  EXPECT_GT(errors(spec, DType::kF32, &unscaled, 24).rms_rel, 100 * b.rms_rel) << "YaRN makes no difference";
  TestModelSpec one_base = spec;
  one_base.skip_keys = {"laguna.rope.freq_base_swa"};
  EXPECT_GT(errors(spec, DType::kF32, &one_base, 24).rms_rel, 100 * b.rms_rel) << "the sliding base makes no difference";
}

// MiMo-V2 (mimo2) over 4 layers, 24 positions past a 10-key window: value heads of 48 beside key
// heads of 64 (the cache pads them), one K/V head in the full layers and two in the sliding ones,
// sinks in the sliding layers, v times 0.707, a quarter of each head rotated on a base per kind,
// sigmoid routing with a selection bias. References without v's scale, without the sinks, or with
// the sliding layers on the full layers' base disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Mimo2NarrowValuesSinksAndScaleAgree) {
  TestModelSpec spec;
  spec.arch = "mimo2";
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("mimo2", e.rms_rel, e.max_rel, b);
  TestModelSpec unscaled = spec;
  unscaled.skip_keys = {"mimo2.attention.value_scale"};
  EXPECT_GT(errors(spec, DType::kF32, &unscaled, 24).rms_rel, 100 * b.rms_rel) << "v's scale makes no difference";
  TestModelSpec sinkless = spec;
  for (int l : {1, 3}) sinkless.skip_tensors.push_back("blk." + std::to_string(l) + ".attn_sinks.weight");
  EXPECT_GT(errors(spec, DType::kF32, &sinkless, 24).rms_rel, 100 * b.rms_rel) << "the sinks make no difference";
  TestModelSpec one_base = spec;
  one_base.metadata_overrides = {{"mimo2.rope.freq_base_swa", GgufValue::F32(500000.0f)}};
  EXPECT_GT(errors(spec, DType::kF32, &one_base, 24).rms_rel, 100 * b.rms_rel) << "the sliding base makes no difference";
}

// Nemotron (deci) over 8 layers (each kind twice: q/k/v attention, attn_output alone over the
// norm, no attention; feed-forwards of three widths and none), 24 positions: the cache holds the
// four attending layers only. A layer without a feed-forward keeps its attention's output (as the
// model computes it; llama.cpp's graph drops it, which this agreement would not survive).
TEST_F(ReferenceForwardVariantsTest, DeciLayerKindsAgree) {
  TestModelSpec spec;
  spec.arch = "deci";
  spec.n_layer = 8;
  const Errors e = errors(spec, DType::kF32);
  expect_within("deci", e.rms_rel, e.max_rel, bounds(DType::kF32));
  const Errors f16_kv = errors(spec, DType::kF16);
  expect_within("deci f16 cache", f16_kv.rms_rel, f16_kv.max_rel, {1e-3, 5e-3});
}

// OLMo 3 (olmo2 with attention.sliding_window): over 4 layers and 24 positions past an 8-key
// window, three sliding layers rotating with their own base and no YaRN beside a full one with
// YaRN (factor 4). References without the window, or with one base for every layer, disagree
// by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Olmo3SlidingAndFullLayersAgree) {
  TestModelSpec spec;
  spec.arch = "olmo2";
  spec.n_layer = 4;
  spec.rope_freq_base = 500.0f;  // the rotations turn within the 24 positions
  spec.rope_yarn_factor = 4.0f;
  spec.rope_yarn_orig_ctx = 16;
  TestModelSpec windowed = spec;
  // A flag per layer, as llama.cpp's converter writes OLMo 3's pattern.
  std::vector<GgufValue> flags;
  for (int l = 0; l < 4; ++l) flags.push_back(GgufValue::Bool((l + 1) % 4 != 0));
  windowed.metadata_overrides = {{"olmo2.attention.sliding_window", GgufValue::U32(8)},
                                 {"olmo2.attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, flags)},
                                 {"olmo2.rope.freq_base_swa", GgufValue::F32(50.0f)}};
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(windowed, DType::kF32, nullptr, 24);
  expect_within("olmo3", e.rms_rel, e.max_rel, b);
  EXPECT_GT(errors(windowed, DType::kF32, &spec, 24).rms_rel, 100 * b.rms_rel) << "the window makes no difference";
  TestModelSpec one_base = windowed;
  one_base.metadata_overrides.pop_back();
  EXPECT_GT(errors(windowed, DType::kF32, &one_base, 24).rms_rel, 100 * b.rms_rel)
      << "the sliding layers' base makes no difference";
}

// Apertus's xIELU follows the file: the same weights with another beta (every layer's) disagree with
// the fast path's far outside the bound, which agrees with its own reference (reference_forward_test).
TEST_F(ReferenceForwardVariantsTest, ApertusXieluFollowsTheFilesValues) {
  TestModelSpec spec;
  spec.arch = "apertus";
  TestModelSpec other_beta = spec;
  other_beta.metadata_overrides = {{"xielu.beta", GgufValue::F32(0.1f)}};
  const Bounds b = bounds(DType::kF32);
  EXPECT_GT(errors(spec, DType::kF32, &other_beta, 24).rms_rel, 100 * b.rms_rel) << "xielu.beta makes no difference";
}

// EXAONE 4.0 32B's 64 layers (narrow ones), 24 positions past an 8-key window: three of every four
// layers slide and rotate, the fourth attends over all keys without rope. A reference of the
// 4096-key window (llama.cpp's default) disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Exaone4SlidingAndNoRopeLayersAgree) {
  TestModelSpec spec;
  spec.arch = "exaone4";
  spec.n_layer = 64;
  spec.n_embd = 64;
  spec.n_ff = 128;
  spec.rope_freq_base = 500.0f;
  TestModelSpec windowed = spec;
  windowed.metadata_overrides = {{"exaone4.attention.sliding_window", GgufValue::U32(8)}};
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(windowed, DType::kF32, nullptr, 24);
  expect_within("exaone4", e.rms_rel, e.max_rel, b);
  EXPECT_GT(errors(windowed, DType::kF32, &spec, 24).rms_rel, 100 * b.rms_rel) << "the window makes no difference";
}

}  // namespace
}  // namespace strata
