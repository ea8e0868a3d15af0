// The float64 reference against the fast forward pass on the mixture-of-experts architectures'
// and the newer dense ones' own parts (routing, latent attention, chunks, temperatures), each with
// references that leave a part out and must disagree by far more than the bound.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

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

// MiniMax-M3 over 3 layers (a dense one, then two MoE layers): QK-norm head by head, rope over
// half of each head, gpt-oss's clamped SwiGLU in the dense layer, the experts and the shared
// expert, sigmoid routing with a selection bias, renormalised and scaled. A reference with the
// routed weights unscaled, or without the bias, disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, MiniMaxM3ClampedSwigluAndScaledSigmoidRoutingAgree) {
  TestModelSpec spec;
  spec.arch = "minimax-m3";
  spec.n_layer = 3;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("minimax-m3", e.rms_rel, e.max_rel, b);
  TestModelSpec unscaled = spec;
  unscaled.metadata_overrides = {{"minimax-m3.expert_weights_scale", GgufValue::F32(1.0f)}};
  EXPECT_GT(errors(spec, DType::kF32, &unscaled).rms_rel, 100 * b.rms_rel) << "the routed scale makes no difference";
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias"};
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

// Mistral Small 4 (mistral4) over 3 layers with YaRN: the newer latent layout, softmax routing
// (no gating key), and the experts' gate and up rows from one fused tensor. A reference routing by
// sigmoid disagrees by far more than the bound. Qwen3-MoE's layers with fused experts agree too
// (llama.cpp's newer converter writes them so for any MoE checkpoint that stores them fused).
TEST_F(ReferenceForwardVariantsTest, Mistral4FusedExpertsAndSoftmaxRoutingAgree) {
  TestModelSpec spec;
  spec.arch = "mistral4";
  spec.n_layer = 3;
  spec.rope_yarn_factor = 8.0f;
  spec.rope_yarn_orig_ctx = 16;
  spec.rope_yarn_log_mul = 0.1f;
  const Bounds b = {1e-5, 6e-5};
  const Errors e = errors(spec, DType::kF32);
  expect_within("mistral4", e.rms_rel, e.max_rel, b);
  TestModelSpec sigmoid = spec;
  sigmoid.metadata_overrides = {{"mistral4.expert_gating_func", GgufValue::U32(2)}};
  EXPECT_GT(errors(spec, DType::kF32, &sigmoid).rms_rel, 100 * b.rms_rel) << "the gating makes no difference";
  TestModelSpec qwen;
  qwen.arch = "qwen3moe";
  qwen.n_layer = 2;
  qwen.fused_gate_up_exps = true;
  const Errors q = errors(qwen, DType::kF32);
  expect_within("qwen3moe with fused experts", q.rms_rel, q.max_rel, bounds(DType::kF32));
}

// MiniCPM over 4 layers with its default multipliers: a reference given the multipliers of a
// plain Llama (all 1) disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, MiniCpmMultipliersAgree) {
  TestModelSpec spec;
  spec.arch = "minicpm";
  spec.n_layer = 4;
  spec.n_embd = 512;  // logits divided by 2
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("minicpm", e.rms_rel, e.max_rel, b);
  TestModelSpec plain = spec;
  plain.metadata_overrides = {{"minicpm.embedding_scale", GgufValue::F32(1.0f)},
                              {"minicpm.residual_scale", GgufValue::F32(1.0f)},
                              {"minicpm.logit_scale", GgufValue::F32(1.0f)}};
  EXPECT_GT(errors(spec, DType::kF32, &plain).rms_rel, 100 * b.rms_rel) << "the multipliers make no difference";
}

// GLM-5 (glm-dsa) over 2 layers: DeepSeek's latent attention and routing within its sparse-attention
// indexer's top_k (16 keys, 24 positions: past it too, where every key is still attended), against
// the reference; and its logits, bit for bit, those of the same weights in a deepseek2 file without
// the indexer and the NextN block.
TEST_F(ReferenceForwardVariantsTest, GlmDsaIsDeepSeeksLatentLayersWithItsIndexerUnused) {
  TestModelSpec spec;
  spec.arch = "glm-dsa";
  const Bounds b = {1e-5, 6e-5};  // the latent form's bound (DeepSeek2LatentAttentionFormsAndYarnAgree)
  const Errors e = errors(spec, DType::kF32);
  expect_within("glm-dsa", e.rms_rel, e.max_rel, b);
  TestModelSpec plain = spec;
  plain.arch = "deepseek2";
  plain.mla_split = true;
  std::vector<std::vector<float>> logits;
  for (const TestModelSpec& s : {spec, plain}) {
    const std::string path = (dir_ / (s.arch + "-same.gguf")).string();
    ASSERT_TRUE(write_test_model(s, path).ok());
    auto m = Model::Load(path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    std::vector<int32_t> tokens;
    logits.push_back(testing::fast_logits(**m, DType::kF16, s.seed, testing::Feed{}, &tokens));
  }
  ASSERT_EQ(logits[0].size(), logits[1].size());
  EXPECT_EQ(0, std::memcmp(logits[0].data(), logits[1].data(), logits[0].size() * sizeof(float)));
}

// Hunyuan-A13B (hunyuan-moe) over 2 layers: QK-norm after the rotation (its per-head weights do
// not commute with it), softmax routing renormalised, an ungated shared expert.
TEST_F(ReferenceForwardVariantsTest, HunyuanQkNormAfterRopeAgrees) {
  TestModelSpec spec;
  spec.arch = "hunyuan-moe";
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("hunyuan-moe", e.rms_rel, e.max_rel, b);
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

// Granite and GraniteMoE: each multiplier (embeddings times 12, scores times 1 / head size,
// block outputs times 0.22, logits / 8) agrees with the reference, and a reference without it
// (1, 1 / sqrt(head size), 1, 1) disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, GraniteMultipliersAgree) {
  for (const char* arch : {"granite", "granitemoe"}) {
    TestModelSpec spec;
    spec.arch = arch;
    const Bounds b = bounds(DType::kF32);
    const Errors e = errors(spec, DType::kF32);
    expect_within(arch, e.rms_rel, e.max_rel, b);
    const std::string a = arch;
    for (const auto& [key, neutral] : {std::pair{".embedding_scale", 1.0f}, std::pair{".attention.scale", 0.125f},
                                       std::pair{".residual_scale", 1.0f}, std::pair{".logit_scale", 1.0f}}) {
      TestModelSpec without = spec;
      without.metadata_overrides = {{a + key, GgufValue::F32(neutral)}};
      EXPECT_GT(errors(spec, DType::kF32, &without).rms_rel, 100 * b.rms_rel) << a << key << " makes no difference";
    }
  }
}

// Ling 2.0 (bailingmoe2) over 3 layers: a dense first layer, then experts chosen within the 2
// best of 4 groups by sigmoid gate values plus a selection bias, beside an ungated shared expert;
// q, k and v from one attn_qkv; a NextN block in the file that must not run. A reference that
// routes over every group, or without the bias, disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, BailingMoe2GroupRoutingAgrees) {
  TestModelSpec spec;
  spec.arch = "bailingmoe2";
  spec.n_layer = 3;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("bailingmoe2", e.rms_rel, e.max_rel, b);
  TestModelSpec every_group = spec;
  every_group.metadata_overrides = {{"bailingmoe2.expert_group_used_count", GgufValue::U32(4)}};
  EXPECT_GT(errors(spec, DType::kF32, &every_group).rms_rel, 100 * b.rms_rel) << "the groups make no difference";
  TestModelSpec unbiased = spec;
  unbiased.skip_tensors = {"blk.1.exp_probs_b.bias", "blk.2.exp_probs_b.bias"};
  EXPECT_GT(errors(spec, DType::kF32, &unbiased).rms_rel, 100 * b.rms_rel) << "the selection bias makes no difference";
}

// Cohere (cohere2) over 4 layers: layer norms, attention and feed-forward in parallel on one norm,
// three sliding layers then one without rope, logits times 0.25. A reference with the logit
// scale left out disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Cohere2LayerNormsAndParallelBlocksAgree) {
  TestModelSpec spec;
  spec.arch = "cohere2";
  spec.n_layer = 4;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("cohere2", e.rms_rel, e.max_rel, b);
  TestModelSpec unscaled = spec;
  unscaled.metadata_overrides = {{"cohere2.logit_scale", GgufValue::F32(1.0f)}};
  EXPECT_GT(errors(spec, DType::kF32, &unscaled).rms_rel, 100 * b.rms_rel) << "the logit scale makes no difference";
}

// Cohere's MoE (cohere2_moe) over 5 layers: a dense full layer with rope, three sliding ones, then
// a full one without rope; parallel blocks on RMS norms, sigmoid gate values used as they are, the
// logits times 0.25. References with the logit scale left out, the weights renormalised, or every
// layer sliding and rotating disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Cohere2MoeParallelBlocksAndPerLayerRopeAgree) {
  TestModelSpec spec;
  spec.arch = "cohere2_moe";
  spec.n_layer = 5;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("cohere2_moe", e.rms_rel, e.max_rel, b);
  TestModelSpec unscaled = spec;
  unscaled.metadata_overrides = {{"cohere2_moe.logit_scale", GgufValue::F32(0.0f)}};
  EXPECT_GT(errors(spec, DType::kF32, &unscaled, 24).rms_rel, 100 * b.rms_rel) << "the logit scale makes no difference";
  TestModelSpec renormalised = spec;
  renormalised.metadata_overrides = {{"cohere2_moe.expert_weights_norm", GgufValue::Bool(true)}};
  EXPECT_GT(errors(spec, DType::kF32, &renormalised, 24).rms_rel, 100 * b.rms_rel) << "renormalising makes no difference";
  TestModelSpec all_sliding = spec;
  all_sliding.metadata_overrides = {{"cohere2_moe.attention.sliding_window_pattern", GgufValue::Bool(true)}};
  EXPECT_GT(errors(spec, DType::kF32, &all_sliding, 24).rms_rel, 100 * b.rms_rel) << "the full layers make no difference";
}

// Command R+ (command-r) over 4 layers: Cohere's parallel blocks without a window, every layer
// rotating, q and k layer-normed head by head with each head's own gains. A reference on the same
// weights without those norms disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, CommandRPerHeadLayerNormsAgree) {
  TestModelSpec spec;
  spec.arch = "command-r";
  spec.n_layer = 4;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("command-r", e.rms_rel, e.max_rel, b);
  TestModelSpec unnormed = spec;
  for (int l = 0; l < spec.n_layer; ++l) {
    for (const char* t : {"attn_q_norm.weight", "attn_k_norm.weight"}) {
      unnormed.skip_tensors.push_back("blk." + std::to_string(l) + "." + t);
    }
  }
  EXPECT_GT(errors(spec, DType::kF32, &unnormed).rms_rel, 100 * b.rms_rel) << "the q/k norms make no difference";
}

// Gemma 4 (gemma4) over 6 layers, 24 positions past a 10-key window: sliding layers with heads
// of 64 (two K/V heads, all pairs rotated on base 10000) and full ones with heads of 128 (one K/V
// head, v taken from k, a quarter of the pairs rotated on base 1e6), v RMS-normed, unscaled
// scores, each layer's output scale and the logits' soft cap. References whose full layers rotate
// every pair, that leave out the output scales, or cap the logits elsewhere disagree by far more
// than the bound.
TEST_F(ReferenceForwardVariantsTest, Gemma4HeadsOfTwoShapesAndScalesAgree) {
  TestModelSpec spec;
  spec.arch = "gemma4";
  spec.n_layer = 6;
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("gemma4", e.rms_rel, e.max_rel, b);
  TestModelSpec every_pair = spec;
  every_pair.rope_freqs.assign(static_cast<size_t>(spec.head_dim_full / 2), 1.0f);
  EXPECT_GT(errors(spec, DType::kF32, &every_pair, 24).rms_rel, 100 * b.rms_rel) << "the rope factors make no difference";
  TestModelSpec unscaled = spec;
  for (int l = 0; l < 6; ++l) unscaled.skip_tensors.push_back("blk." + std::to_string(l) + ".layer_output_scale.weight");
  EXPECT_GT(errors(spec, DType::kF32, &unscaled, 24).rms_rel, 100 * b.rms_rel) << "the output scales make no difference";
  TestModelSpec uncapped = spec;
  uncapped.final_softcap = 3.0f;
  EXPECT_GT(errors(spec, DType::kF32, &uncapped, 24).rms_rel, 100 * b.rms_rel) << "the soft cap makes no difference";
  // With attn_v in the full layers too, both still agree.
  TestModelSpec with_v = spec;
  with_v.full_attn_v = true;
  const Errors v = errors(with_v, DType::kF32, nullptr, 24);
  expect_within("gemma4 with attn_v", v.rms_rel, v.max_rel, b);
}

// Gemma 4's E2B form (gemma4-e2b) over 6 layers: per-layer inputs, the last two layers reading the
// K/V of the last earlier layer of their kind, twice as wide. A reference that leaves the
// per-layer inputs out disagrees by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Gemma4PerLayerInputsAndSharedKvAgree) {
  TestModelSpec spec;
  spec.arch = "gemma4-e2b";
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("gemma4-e2b", e.rms_rel, e.max_rel, b);
  TestModelSpec without_inputs = spec;
  without_inputs.metadata_overrides = {{"gemma4.embedding_length_per_layer_input", GgufValue::U32(0)}};
  EXPECT_GT(errors(spec, DType::kF32, &without_inputs, 24).rms_rel, 100 * b.rms_rel)
      << "the per-layer inputs make no difference";
}

// Gemma 4's 26B-A4B form (gemma4-moe) over 4 layers: every layer's dense feed-forward beside 8
// experts, routed on the scaled RMS-norm of the layer's stream, each expert's output scaled.
// References without the experts' output scales, or with the router's input scale doubled (which
// sharpens the softmax over the chosen), disagree by far more than the bound.
TEST_F(ReferenceForwardVariantsTest, Gemma4ExpertsBesideTheDenseFeedForwardAgree) {
  TestModelSpec spec;
  spec.arch = "gemma4-moe";
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32, nullptr, 24);
  expect_within("gemma4-moe", e.rms_rel, e.max_rel, b);
  TestModelSpec unscaled = spec;
  for (int l = 0; l < 4; ++l) unscaled.skip_tensors.push_back("blk." + std::to_string(l) + ".ffn_down_exps.scale");
  EXPECT_GT(errors(spec, DType::kF32, &unscaled, 24).rms_rel, 100 * b.rms_rel) << "the expert scales make no difference";
  TestModelSpec sharper = spec;
  sharper.router_scale_factor = 2.0f;
  EXPECT_GT(errors(spec, DType::kF32, &sharper, 24).rms_rel, 100 * b.rms_rel) << "the router's scale makes no difference";
}

}  // namespace
}  // namespace strata
