// Qwen3.5's hybrid models (qwen35, qwen35moe) against the float64 reference: gated delta-net
// layers (reference_delta_net.cc) between gated attention layers, over 48 positions, so the
// convolution window and the decaying state carry tens of positions, fed in one forward pass,
// one position per pass, or in chunks.
//
// Float weights (F32, F16, BF16) keep reference_forward_test.cc's bounds (why: its top comment):
// measured rms_rel 1.4-3.7e-6, max_rel 0.9-2.5e-5, the most for qwen35moe over 8 layers, whose
// delta-net layers amplify float32 rounding as they do 8-bit rounding below.
//
// Quantised weights round each matmul input to 8 bits (~0.5% of its RMS), and a delta-net layer
// passes such errors on amplified: its gated RMS norm of S q keeps only the direction of each
// head's output, and where S holds few keys (the first positions) or q is nearly orthogonal to
// them, that direction turns with small changes of q and k (at position 0 it is the sign of
// k.q). The math does this, not the fast path: the float64 reference on Q8_0-rounded weights
// moves 4.9% (rms_rel) from itself on the F32 ones for the default 4 layers, 2.1% for a 4-layer
// qwen3. So the quantised cases run 2 layers (a delta-net layer, then attention: interval 2),
// where the fast path measures rms_rel 2.3-3.7% and max_rel 0.10-0.19 (K-quants the most: their
// inputs round to 8 bits per 256 values, not 32); bound {0.06, 0.3}. (Over the 4 default layers:
// 5.2-8.1%, max_rel up to 0.5.) A real bug (a wrong key head, a missing gate) gives errors of
// order 100%.
#include <gtest/gtest.h>

#include <algorithm>
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

constexpr int kHybridTokens = 48;
constexpr Feed kOneBatch{kHybridTokens, 0};
constexpr Feed kTokenByToken{kHybridTokens, 1};

bool float_weights(DType type) { return type == DType::kF32 || type == DType::kF16 || type == DType::kBF16; }

// The top comment says why.
Bounds hybrid_bounds(DType type) { return float_weights(type) ? bounds(type) : Bounds{0.06, 0.3}; }

class HybridReferenceTest : public ReferenceForwardTest {};

// Float weights: four layers, three delta-net layers, then gated attention with QK-norm and NeoX
// rope over 16 of each head's 64 dims; qwen35moe's feed-forward through 2 of 8 experts beside a
// shared one. Quantised weights: a delta-net layer, then attention.
TEST_P(HybridReferenceTest, LogitsAgreeInOneBatchAndTokenByToken) {
  TestModelSpec spec;
  spec.arch = GetParam().arch;
  spec.type = GetParam().type;
  if (!float_weights(spec.type)) {
    spec.n_layer = 2;
    spec.full_attn_interval = 2;
  }
  const std::string name = testing::test_model_name(spec);
  const Bounds b = hybrid_bounds(spec.type);
  const Errors batch = errors(spec, DType::kF32, nullptr, kHybridTokens, -1, kOneBatch);
  expect_within((name + " one batch").c_str(), batch.rms_rel, batch.max_rel, b);
  const Errors single = errors(spec, DType::kF32, nullptr, kHybridTokens, -1, kTokenByToken);
  expect_within((name + " token by token").c_str(), single.rms_rel, single.max_rel, b);
  RecordProperty("rms_rel", std::to_string(batch.rms_rel));
  RecordProperty("max_rel", std::to_string(batch.max_rel));
  RecordProperty("rms_rel_token_by_token", std::to_string(single.rms_rel));
}

std::vector<Case> hybrid_cases() {
  std::vector<Case> cases;
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16, DType::kQ8_0, DType::kQ4_0, DType::kQ5_0, DType::kQ4_K,
                  DType::kQ5_K, DType::kQ6_K}) {
    cases.push_back({"qwen35", t});
  }
  // Float weights only, as for the other mixture-of-experts archs (reference_forward_test.cc's
  // all_cases()): quantised inputs flip expert choices where router logits nearly tie.
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) cases.push_back({"qwen35moe", t});
  // Qwen3-Next: the fused projections, split per key head, and value heads grouped on their key
  // head (h / 2 here, where qwen35 reads h % 2).
  for (DType t : {DType::kF32, DType::kF16}) cases.push_back({"qwen3next", t});
  // Ling 3.0: three Kimi Delta Attention layers (per-channel decay, sigmoid output gate), then
  // latent attention with a gate per head; routing in 2 of 4 groups, SwiGLU limits, a NextN block.
  for (DType t : {DType::kF32, DType::kF16}) cases.push_back({"bailingmoe3", t});
  // Kimi Linear: Kimi's softplus gate, low-rank decay and output-gate inputs (or a full attn_gate),
  // latent attention without rope.
  for (DType t : {DType::kF32, DType::kF16}) cases.push_back({"kimi-linear", t});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(HybridByType, HybridReferenceTest, ::testing::ValuesIn(hybrid_cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.arch + "_" + std::string(dtype_name(info.param.type));
                           std::replace(name.begin(), name.end(), '-', '_');  // kimi-linear
                           return name;
                         });

// Eight layers attending every other one (interval 2: four delta-net and four attention
// layers, each with its own K/V layer and state), fed in chunks of 7 positions, with an F32
// and an F16 K/V cache (bounded as F16KvCacheStaysClose is).
TEST_F(ReferenceForwardVariantsTest, Qwen35EveryOtherLayerAttendingAgreesInChunks) {
  for (const char* arch : {"qwen35", "qwen35moe"}) {
    TestModelSpec spec;
    spec.arch = arch;
    spec.n_layer = 8;
    spec.full_attn_interval = 2;
    const Feed chunks{kHybridTokens, 7};
    const Errors e = errors(spec, DType::kF32, nullptr, kHybridTokens, -1, chunks);
    expect_within(arch, e.rms_rel, e.max_rel, bounds(DType::kF32));
    const Errors f16_kv = errors(spec, DType::kF16, nullptr, kHybridTokens, -1, chunks);
    expect_within((std::string(arch) + " f16 kv").c_str(), f16_kv.rms_rel, f16_kv.max_rel, {1e-3, 5e-3});
  }
}

// Heads of 128 (attention.key_length, wider than n_embd / n_head as Qwen3.5's 256) rotated over
// 32 dims only, at base 500 so the rotation turns within 48 positions: a reference that rotates
// every dim of the head disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Qwen35PartialRopeOverWideHeadsAgrees) {
  TestModelSpec spec;
  spec.arch = "qwen35";
  spec.head_dim = 128;
  spec.n_rot = 32;
  spec.rope_freq_base = 500.0f;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, kHybridTokens, -1, kOneBatch);
  expect_within("qwen35 partial rope", e.rms_rel, e.max_rel, b);
  TestModelSpec full_rope = spec;
  full_rope.n_rot = 128;
  EXPECT_GT(errors(spec, DType::kF32, &full_rope, kHybridTokens, -1, kOneBatch).rms_rel, 100 * b.rms_rel)
      << "rotating only part of each head makes no difference";
}

// rope.dimension_sections [2, 2, 3, 0] over 16 rotated dims (8 pairs): the interleaving gives
// sector 7 to neither height nor width, so it reads the temporal component, p for text, as
// transformers' apply_interleaved_mrope does (llama.cpp reads a fourth component at 0 there):
// the same logits as the file without sections, within the reference's bound.
TEST_F(ReferenceForwardVariantsTest, Qwen35SectionsTheInterleavingLeavesTurnWithThePosition) {
  TestModelSpec spec;
  spec.arch = "qwen35";
  spec.rope_freq_base = 50.0f;  // pair 7 turns within the 48 positions
  spec.metadata_overrides = {{"qwen35.rope.dimension_sections", GgufValue::I32Array({2, 2, 3, 0})}};
  TestModelSpec plain = spec;
  plain.metadata_overrides.clear();
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, &plain, kHybridTokens, -1, kOneBatch);
  expect_within("qwen35 m-rope sections", e.rms_rel, e.max_rel, b);
}

// Matrices of every type in one file (the delta-net's small beta and alpha maps among them), on
// a delta-net layer and an attention layer, fed in chunks of 5: bounded like the quantised types.
TEST_F(ReferenceForwardVariantsTest, Qwen35MixedWeightTypesAgree) {
  TestModelSpec spec;
  spec.arch = "qwen35";
  spec.mixed = true;
  spec.n_layer = 2;
  spec.full_attn_interval = 2;
  const Errors e = errors(spec, DType::kF32, nullptr, kHybridTokens, -1, Feed{kHybridTokens, 5});
  expect_within("qwen35 mixed", e.rms_rel, e.max_rel, hybrid_bounds(DType::kQ4_0));
}

}  // namespace
}  // namespace strata
