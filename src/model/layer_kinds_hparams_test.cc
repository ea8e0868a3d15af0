// The hyper-parameters of the architectures whose layers come in kinds (Step 3.5, Laguna, MiMo-V2:
// full and sliding layers beside experts; Nemotron: layers without attention or feed-forward), as
// Strata reads them from their GGUF keys, and bad keys refused by name; and hostile values for
// every key of every architecture, refused or harmless.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

// OLMo 2 (olmo2): no pre-norms, post-norms, QK-norm over whole rows; OLMo 3's window over three of
// every four layers (or the pattern's), rotating with their own base (the global one when the
// file has none); bad keys named.
TEST_F(ModelLoadTest, ReadsOlmo2AndOlmo3Hparams) {
  TestModelSpec spec;
  spec.arch = "olmo2";
  spec.n_layer = 4;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(!(*m)->hparams().pre_norms && (*m)->hparams().post_norms && (*m)->hparams().qk_norm_whole_row);
  EXPECT_EQ((*m)->hparams().sliding_window, 0);
  spec.metadata_overrides = {{"olmo2.attention.sliding_window", GgufValue::U32(64)}};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  for (int l = 0; l < 4; ++l) EXPECT_EQ(hp.layer_slides(l), l != 3) << "layer " << l;
  EXPECT_EQ(hp.rope_freq_base_swa, hp.rope_freq_base);
  EXPECT_TRUE(hp.mixes_sliding_layers());
  spec.metadata_overrides.push_back({"olmo2.attention.sliding_window_pattern", GgufValue::U32(2)});
  spec.metadata_overrides.push_back({"olmo2.rope.freq_base_swa", GgufValue::F32(1000.0f)});
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (int l = 0; l < 4; ++l) EXPECT_EQ((*m)->hparams().layer_slides(l), l % 2 == 0) << "layer " << l;
  EXPECT_EQ((*m)->hparams().rope_freq_base_swa, 1000.0f);
  // llama.cpp's converter writes a flag per layer.
  spec.metadata_overrides[1] = {"olmo2.attention.sliding_window_pattern",
                                GgufValue::Array(GgufType::kBool, {GgufValue::Bool(false), GgufValue::Bool(true),
                                                                   GgufValue::Bool(true), GgufValue::Bool(false)})};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (int l = 0; l < 4; ++l) EXPECT_EQ((*m)->hparams().layer_slides(l), l == 1 || l == 2) << "layer " << l;
  EXPECT_TRUE((*m)->hparams().layer_rotates(0));
  spec.metadata_overrides[1] = {"olmo2.attention.sliding_window_pattern",
                                GgufValue::Array(GgufType::kBool, std::vector<GgufValue>(4, GgufValue::Bool(true)))};
  expect_error(spec, Code::kCorrupt, "makes every layer slide");
  spec.metadata_overrides[1] = {"olmo2.attention.sliding_window_pattern", GgufValue::U32(1)};
  expect_error(spec, Code::kCorrupt, "olmo2.attention.sliding_window_pattern must be at least 2");
  spec.metadata_overrides.resize(1);
  spec.skip_tensors = {"blk.1.post_ffw_norm.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.post_ffw_norm.weight");
  spec.skip_tensors = {"blk.0.attn_k_norm.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.attn_k_norm.weight");
}

// EXAONE 4.0 (exaone4): post-norms only with QK-norm per head; the 64-layer model slides as
// llama.cpp reads it (three of every four layers over 4096 keys unless the file says, the fourth
// without rope), any other count attends over all keys with rope everywhere; a sliding base of its
// own is refused by name.
TEST_F(ModelLoadTest, ReadsExaone4Hparams) {
  TestModelSpec spec;
  spec.arch = "exaone4";
  spec.n_embd = 64;
  spec.n_ff = 128;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(!(*m)->hparams().pre_norms && (*m)->hparams().post_norms && (*m)->hparams().qk_norm);
  EXPECT_FALSE((*m)->hparams().qk_norm_whole_row);
  EXPECT_EQ((*m)->hparams().sliding_window, 0);
  EXPECT_TRUE((*m)->hparams().layer_rotates(1));
  spec.n_layer = 64;
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.sliding_window, 4096);
  for (int l = 0; l < 8; ++l) {
    EXPECT_EQ(hp.layer_slides(l), l % 4 != 3) << "layer " << l;
    EXPECT_EQ(hp.layer_rotates(l), l % 4 != 3) << "layer " << l;
  }
  spec.metadata_overrides = {{"exaone4.attention.sliding_window", GgufValue::U32(512)},
                             {"exaone4.attention.sliding_window_pattern", GgufValue::U32(2)}};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->hparams().sliding_window, 512);
  EXPECT_FALSE((*m)->hparams().layer_rotates(1) || (*m)->hparams().layer_slides(1));
  EXPECT_TRUE((*m)->hparams().layer_rotates(2) && (*m)->hparams().layer_slides(2));
  std::vector<GgufValue> flags;  // llama.cpp's converter writes a flag per layer: here l % 3 != 2 slides
  for (int l = 0; l < 64; ++l) flags.push_back(GgufValue::Bool(l % 3 != 2));
  spec.metadata_overrides = {{"exaone4.attention.sliding_window_pattern", GgufValue::Array(GgufType::kBool, flags)}};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (int l = 0; l < 6; ++l) {
    EXPECT_EQ((*m)->hparams().layer_slides(l), l % 3 != 2) << "layer " << l;
    EXPECT_EQ((*m)->hparams().layer_rotates(l), l % 3 != 2) << "layer " << l;
  }
  spec.metadata_overrides = {{"exaone4.rope.freq_base_swa", GgufValue::F32(1000.0f)}};
  expect_error(spec, Code::kUnsupported, "exaone4.rope.freq_base_swa");
}

// EXAONE 3.5 (exaone): Llama's layers with NeoX rope; Arcee's AFM (arcee): a squared-ReLU
// feed-forward without a gate, Llama's rope (its ffn_up required); Hunyuan's dense models
// (hunyuan-dense): QK-norm after the rotation.
TEST_F(ModelLoadTest, ReadsExaoneArceeAndHunyuanDenseHparams) {
  TestModelSpec spec;
  spec.arch = "exaone";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().rope_neox && (*m)->hparams().pre_norms);
  EXPECT_FALSE((*m)->hparams().ffn_relu_sq || (*m)->hparams().qk_norm);
  spec.arch = "arcee";
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().ffn_relu_sq);
  EXPECT_FALSE((*m)->hparams().rope_neox);
  spec.skip_tensors = {"blk.1.ffn_up.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ffn_up.weight");
  spec.skip_tensors.clear();
  spec.arch = "hunyuan-dense";  // Hunyuan's dense models: QK-norm after the rotation, no experts
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().qk_norm && (*m)->hparams().qk_norm_after_rope && (*m)->hparams().rope_neox);
  EXPECT_FALSE((*m)->hparams().is_moe());
}

// Apertus (apertus): xIELU's values per layer from the xielu.* keys, alpha_p and alpha_n constrained
// as llama.cpp's ggml_xielu constrains them (softplus; beta + softplus); one value stands for every
// layer; a missing key is named.
TEST_F(ModelLoadTest, ReadsApertusXieluValues) {
  TestModelSpec spec;
  spec.arch = "apertus";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.ffn_xielu && hp.qk_norm && hp.rope_neox);
  ASSERT_EQ(hp.xielu_alpha_p.size(), 2u);
  for (int l = 0; l < 2; ++l) {
    const double raw_p = -0.2 + 0.05 * l, raw_n = -0.7 + 0.1 * l;
    EXPECT_NEAR(hp.xielu_alpha_p[static_cast<size_t>(l)], std::log1p(std::exp(raw_p)), 1e-6) << "layer " << l;
    EXPECT_NEAR(hp.xielu_alpha_n[static_cast<size_t>(l)], 0.5 + std::log1p(std::exp(raw_n)), 1e-6) << "layer " << l;
    EXPECT_FLOAT_EQ(hp.xielu_eps[static_cast<size_t>(l)], -1e-6f);
  }
  spec.metadata_overrides = {{"xielu.beta", GgufValue::F32(0.25f)}};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->hparams().xielu_beta, std::vector<float>(2, 0.25f));
  spec.metadata_overrides.clear();
  spec.skip_keys = {"xielu.eps"};
  expect_error(spec, Code::kNotFound, "missing metadata key xielu.eps");
}

// BitNet: sub-norms in every layer; llama.cpp's bitnet gates by SiLU unless <arch>.hidden_activation
// says relu2, Microsoft's bitnet-b1.58 by relu^2; an activation it does not know is named.
TEST_F(ModelLoadTest, ReadsBitnetHparams) {
  TestModelSpec spec;
  spec.arch = "bitnet";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m.value()->hparams().sub_norms && m.value()->hparams().rope_neox && m.value()->hparams().tied_embeddings);
  EXPECT_FALSE(m.value()->hparams().ffn_relu_sq_gated);
  spec.metadata_overrides = {{"bitnet.hidden_activation", GgufValue::String("relu2")}};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m.value()->hparams().ffn_relu_sq_gated);
  spec.metadata_overrides = {{"bitnet.hidden_activation", GgufValue::String("gelu")}};
  expect_error(spec, Code::kUnsupported, "bitnet.hidden_activation 'gelu' is not supported");
  TestModelSpec b158;
  b158.arch = "bitnet-b1.58";
  m = load(b158);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m.value()->hparams().sub_norms && m.value()->hparams().ffn_relu_sq_gated);
  b158.skip_tensors = {"blk.1.ffn_sub_norm.weight"};
  expect_error(b158, Code::kNotFound, "blk.1.ffn_sub_norm.weight");
  // bitnet-25, the other name Microsoft's converter writes: Microsoft's layers, relu^2.
  TestModelSpec b25;
  b25.arch = "bitnet-25";
  m = load(b25);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE(m.value()->hparams().sub_norms && m.value()->hparams().ffn_relu_sq_gated &&
              m.value()->hparams().tied_embeddings);
}

// OLMoE (olmoe): softmax routing over experts as wide as feed_forward_length in every layer, the
// chosen weights as they are, QK-norm over whole rows.
TEST_F(ModelLoadTest, ReadsOlmoeHparams) {
  TestModelSpec spec;
  spec.arch = "olmoe";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.is_moe() && hp.qk_norm_whole_row && hp.rope_neox && hp.pre_norms);
  EXPECT_FALSE(hp.expert_sigmoid || hp.expert_weights_norm);
  EXPECT_EQ(hp.n_ff_exp, spec.n_ff_exp);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  ASSERT_EQ(hp.n_layer, 2);
  for (int l = 0; l < hp.n_layer; ++l) EXPECT_TRUE(hp.layer_is_moe(l)) << "layer " << l;
  spec.skip_tensors = {"blk.1.attn_q_norm.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.attn_q_norm.weight");
}

// Step 3.5 (step35): per-layer arrays over every block (the NextN one last, unused), the sliding
// layers' extra query heads, whole-head rope on their own base and half-head rope elsewhere, the
// SwiGLU limits, the head gate, sigmoid routing; errors name the key.
TEST_F(ModelLoadTest, ReadsStep35Hparams) {
  TestModelSpec spec;
  spec.arch = "step35";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_EQ(hp.n_nextn_layers, 1);
  EXPECT_EQ(hp.n_head, 4);
  EXPECT_EQ(hp.n_head_swa, 6);
  EXPECT_EQ(hp.n_head_kv, 2);
  EXPECT_EQ(hp.attn_shape(0), (AttnShape{4, 2, 64}));
  EXPECT_EQ(hp.attn_shape(1), (AttnShape{6, 2, 64}));
  EXPECT_EQ(hp.max_q_dim(), 6 * 64);
  EXPECT_EQ(hp.n_rot, 32);
  EXPECT_EQ(hp.n_rot_swa, 64);
  EXPECT_FLOAT_EQ(hp.rope_freq_base, 500000.0f);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, spec.rope_freq_base);
  EXPECT_TRUE(!hp.layer_slides(0) && hp.layer_slides(1) && !hp.layer_slides(2) && hp.layer_slides(3));
  EXPECT_TRUE(hp.attn_head_gate && hp.qk_norm && hp.rope_neox && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FLOAT_EQ(hp.ffn_limit(0, false), 0.7f);
  EXPECT_FLOAT_EQ(hp.ffn_limit(1, true), 0.8f);
  EXPECT_FLOAT_EQ(hp.ffn_limit(1, false), 0.0f);
  EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1));
  spec.skip_keys = {"step35.swiglu_clamp_exp"};
  expect_error(spec, Code::kNotFound, "missing metadata key step35.swiglu_limits (or step35.swiglu_clamp_exp)");
  spec.skip_keys = {"step35.rope.freq_base_swa"};
  expect_error(spec, Code::kNotFound, "step35.rope.freq_base_swa (or rope.freq_base_per_layer)");
  spec.skip_keys.clear();
  spec.metadata_overrides = {{"step35.attention.head_count", GgufValue::I32Array({4, 6, 8, 6, 6})}};
  expect_error(spec, Code::kUnsupported, "step35.attention.head_count differs between two full layers (at layer 2)");
  spec.metadata_overrides = {{"step35.attention.head_count", GgufValue::I32Array({4, 6, 4})}};
  expect_error(spec, Code::kCorrupt, "step35.attention.head_count must hold one value per layer (5)");
}

// Poolside Laguna XS.2 (laguna): Step 3.5's two kinds of layers told apart by their head counts
// (no pattern in the file), a softplus gate per head, the full layers rotating half a head with
// YaRN, the sliding ones the whole head on their own base, routing renormalised by at least 2^-14.
TEST_F(ModelLoadTest, ReadsLagunaHparams) {
  TestModelSpec spec;
  spec.arch = "laguna";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_EQ(hp.n_nextn_layers, 0);
  EXPECT_EQ(hp.attn_shape(0), (AttnShape{4, 2, 64}));
  EXPECT_EQ(hp.attn_shape(1), (AttnShape{6, 2, 64}));
  EXPECT_TRUE(!hp.layer_slides(0) && hp.layer_slides(1) && !hp.layer_slides(2) && hp.layer_slides(3));
  EXPECT_EQ(hp.n_rot, 32);
  EXPECT_EQ(hp.n_rot_swa, 64);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, spec.rope_freq_base);
  EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 8.0f);
  EXPECT_EQ(hp.rope_yarn_orig_ctx, 16);
  EXPECT_TRUE(hp.attn_head_gate && hp.attn_head_gate_softplus && hp.qk_norm && hp.rope_neox);
  EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm && !hp.shexp_gated);
  EXPECT_FLOAT_EQ(hp.expert_weights_norm_min, 6.103515625e-5f);
  EXPECT_FLOAT_EQ(hp.ffn_limit(1, true), 0.0f);
  EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1));
  // A scale of 0 is no scale; a pattern, when the file has one, must say every layer.
  spec.metadata_overrides = {{"laguna.expert_weights_scale", GgufValue::F32(0.0f)}};
  auto unscaled = load(spec);
  ASSERT_TRUE(unscaled.ok()) << unscaled.status().ToString();
  EXPECT_FLOAT_EQ((*unscaled)->hparams().expert_weights_scale, 1.0f);
  spec.metadata_overrides = {{"laguna.attention.sliding_window_pattern",
                              GgufValue::Array(GgufType::kBool, {GgufValue::Bool(false), GgufValue::Bool(true)})}};
  expect_error(spec, Code::kCorrupt, "laguna.attention.sliding_window_pattern must hold one value per layer (4)");
  spec.metadata_overrides = {{"laguna.rope.scaling.yarn_ext_factor", GgufValue::F32(0.5f)}};
  expect_error(spec, Code::kUnsupported, "laguna.rope.scaling.yarn_ext_factor");
  spec.metadata_overrides = {{"laguna.rope.dimension_count_swa", GgufValue::U32(63)}};
  expect_error(spec, Code::kCorrupt, "a rotated width of 63 must be even");
  spec.metadata_overrides = {};
  spec.skip_keys = {"laguna.attention.sliding_window"};
  expect_error(spec, Code::kNotFound, "missing metadata key laguna.attention.sliding_window");
}

// MiMo-V2 (mimo2): value heads narrower than key heads, K/V heads per kind, a quarter of each head
// rotated on a base per kind, v's scale, sinks where the file has them (the sliding layers), the
// layers without a router dense; errors name the key or the layer.
TEST_F(ModelLoadTest, ReadsMimo2Hparams) {
  TestModelSpec spec;
  spec.arch = "mimo2";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_EQ(hp.attn_shape(0), (AttnShape{4, 1, 64, 48}));
  EXPECT_EQ(hp.attn_shape(1), (AttnShape{4, 2, 64, 48}));
  EXPECT_EQ(hp.attn_shape(1).v_dim(), 2 * 48);
  EXPECT_EQ(hp.attn_shape(1).out_dim(), 4 * 48);
  EXPECT_TRUE(!hp.layer_slides(0) && hp.layer_slides(1) && !hp.layer_slides(2) && hp.layer_slides(3));
  EXPECT_EQ(hp.n_rot, 16);
  EXPECT_EQ(hp.n_rot_swa, 16);
  EXPECT_FLOAT_EQ(hp.rope_freq_base, 500000.0f);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, spec.rope_freq_base);
  EXPECT_FLOAT_EQ(hp.v_scale, 0.707f);
  EXPECT_FLOAT_EQ(hp.kq_scale(), 0.125f);  // 1 / sqrt(64): the key head's width
  EXPECT_TRUE(hp.rope_neox && hp.expert_sigmoid && hp.expert_weights_norm && !hp.attn_sinks);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1));
  spec.skip_keys = {"mimo2.rope.freq_base_swa"};
  expect_error(spec, Code::kNotFound, "missing metadata key mimo2.rope.freq_base_swa");
  spec.skip_keys = {"mimo2.attention.sliding_window_pattern"};
  expect_error(spec, Code::kNotFound, "mimo2.attention.sliding_window_pattern");
  spec.skip_keys.clear();
  spec.metadata_overrides = {{"mimo2.attention.head_count_kv", GgufValue::I32Array({1, 2, 2, 2})}};
  expect_error(spec, Code::kUnsupported, "mimo2.attention.head_count_kv differs between two full layers (at layer 2)");
  spec.metadata_overrides = {{"mimo2.attention.value_length", GgufValue::U32(80)}};
  expect_error(spec, Code::kUnsupported, "attention.value_length 80 differs from key_length 64");
  spec.metadata_overrides = {{"mimo2.attention.value_length_swa", GgufValue::U32(32)}};
  expect_error(spec, Code::kUnsupported, "mimo2.attention.value_length_swa 32 differs from the full layers' 48");
  spec.metadata_overrides = {{"mimo2.attention.value_scale", GgufValue::F32(0.0f)}};
  expect_error(spec, Code::kCorrupt, "mimo2.attention.value_scale must be a positive finite number");
  // A dense layer after a routed one.
  spec.metadata_overrides.clear();
  spec.skip_tensors = {"blk.2.ffn_gate_inp.weight"};
  expect_error(spec, Code::kUnsupported, "layer 2 has no router (blk.2.ffn_gate_inp.weight) after layers with one");
}

// Nemotron (deci): per-layer head counts and feed-forward widths give each layer its kind (q/k/v
// attention, attn_output alone, none) and width (0: none); only the attending layers hold K/V.
TEST_F(ModelLoadTest, ReadsDeciHparams) {
  TestModelSpec spec;
  spec.arch = "deci";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_EQ(hp.n_head, 4);
  EXPECT_EQ(hp.n_head_kv, 2);
  EXPECT_TRUE(hp.attn_kind(0) == AttnKind::kAttention && hp.attn_kind(1) == AttnKind::kLinear &&
              hp.attn_kind(2) == AttnKind::kNone && hp.attn_kind(3) == AttnKind::kAttention);
  EXPECT_EQ(hp.n_kv_layers(), 2);
  EXPECT_EQ(hp.kv_layer(3), 1);
  EXPECT_EQ(hp.ffn_width(1), 384);
  EXPECT_EQ(hp.ffn_width(2), 256);
  EXPECT_FALSE(hp.layer_has_ffn(3));
  EXPECT_EQ(hp.n_ff, 512);
  const KvLayout kv = (*m)->kv_layout(DType::kF16, 16);
  EXPECT_EQ(kv.n_layer, 2);
  EXPECT_EQ(kv.block_bytes(), 2u * 2 * 16 * 2 * 64 * 2);  // 2 layers, K and V, 16 tokens, 2 heads of 64
  spec.metadata_overrides = {{"deci.attention.head_count_kv", GgufValue::I32Array({2, 0, 0, 4})}};
  expect_error(spec, Code::kUnsupported, "layer 3 attends with 4 query and 4 K/V heads, another layer with 4 and 2");
  spec.metadata_overrides = {{"deci.attention.head_count_kv", GgufValue::I32Array({0, 0, 0, 0})}};
  expect_error(spec, Code::kUnsupported, "no layer of deci attends with K/V heads");
  spec.metadata_overrides = {{"deci.attention.head_count_kv", GgufValue::I32Array({2, 0, 2, 2})}};
  expect_error(spec, Code::kCorrupt, "layer 2 has K/V heads but no query heads");
  spec.metadata_overrides = {{"deci.feed_forward_length", GgufValue::I32Array({512, 384})}};
  expect_error(spec, Code::kCorrupt, "deci.feed_forward_length must hold one value per layer (4)");
  spec.metadata_overrides.clear();
  spec.skip_tensors = {"blk.1.attn_output.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.attn_output.weight");
}

// Writes base's metadata, with key set to value, and its tensors (their bytes copied) to path.
Status write_with(const GgufFile& base, const std::string& key, const GgufValue& value, const std::string& path) {
  GgufWriter w;
  for (const auto& [k, v] : base.metadata()) w.set(k, k == key ? value : v);
  for (const GgufTensor& t : base.tensors()) {
    w.add_tensor(t.name, t.type, t.dims, [&t](uint8_t* dst) { std::memcpy(dst, t.data, t.n_bytes); });
  }
  return w.write(path);
}

// Hostile values for every key of every architecture's files (zero, huge, negative, not finite,
// arrays empty or of one zero, a string): each file loads, or fails with an error that
// names it; nothing allocates by a hostile count, reads out of bounds or divides by zero (the
// sanitized run checks those).
TEST_F(ModelLoadTest, HostileMetadataIsRefusedOrHarmless) {
  const std::vector<GgufValue> hostile = {
      GgufValue::U32(0), GgufValue::U32(1u << 30), GgufValue::I32(-1), GgufValue::F32(std::nanf("")),
      GgufValue::I32Array({}), GgufValue::I32Array({0}), GgufValue::String("x")};
  int n_refused = 0, n_loaded = 0;
  // Every architecture the test models write (granitehybrid-dense's keys are granitehybrid's), those
  // with per-layer keys and readers of their own first.
  for (const char* arch : {"granitehybrid", "nemotron_h_moe", "lfm2", "lfm2moe", "olmo2", "olmoe", "exaone", "exaone4", "falcon-h1", "arcee", "hunyuan-dense", "apertus", "bitnet", "bitnet-b1.58", "bitnet-25", "mimo2", "deci", "glm-dsa", "step35", "laguna", "gemma4", "gemma3n", "qwen35moe",
                           "cohere2_moe",
                           "llama", "qwen2", "qwen3", "mixtral", "qwen2moe", "qwen3moe", "gemma2", "gemma3", "gpt-oss",
                           "phi3", "glm4", "glm4moe", "llama4", "smollm3", "deepseek2", "mistral4", "minimax-m2",
                           "minimax-m3", "mistral3", "ernie4_5-moe", "qwen35", "qwen3next", "qwen2vl", "qwen3vlmoe",
                           "granite", "granitemoe", "minicpm", "seed_oss", "bailingmoe2", "dots1", "cohere2",
                           "command-r", "hunyuan-moe", "gemma4-moe"}) {
    TestModelSpec spec;  // small: a few hundred files are written
    spec.arch = arch;
    spec.n_embd = 64;
    spec.n_ff = 128;
    spec.n_ff_exp = spec.n_ff_shexp = 64;
    spec.mla_kv_rank = spec.mla_q_rank = 64;
    spec.mla_nope = spec.mla_v = 16;
    const std::string base_path = (dir_ / "base.gguf").string();
    ASSERT_TRUE(write_test_model(spec, base_path).ok());
    auto base = GgufFile::Open(base_path);
    ASSERT_TRUE(base.ok());
    // In memory where there is a tmpfs: the writer syncs each of these few hundred files.
    const std::filesystem::path shm = "/dev/shm";
    const std::string path = ((std::filesystem::is_directory(shm) ? shm : dir_) /
                              ("strata-hostile-" + std::to_string(::getpid()) + ".gguf"))
                                 .string();
    for (const auto& [key, unused] : base->metadata()) {
      if (!key.starts_with(std::string(arch) + ".")) continue;
      for (const GgufValue& value : hostile) {
        ASSERT_TRUE(write_with(*base, key, value, path).ok());
        auto m = Model::Load(path);
        if (m.ok()) {
          ++n_loaded;
          continue;
        }
        ++n_refused;
        EXPECT_NE(m.status().message().find(path), std::string::npos) << key << ": " << m.status().ToString();
      }
    }
    std::filesystem::remove(path);
  }
  RecordProperty("refused", std::to_string(n_refused));
  RecordProperty("loaded", std::to_string(n_loaded));
  EXPECT_GT(n_refused, 100);
  EXPECT_GT(n_loaded, 10);  // some values are as good as any (a context of 2^30, a scale of 0 read as none, ...)
}

}  // namespace
}  // namespace strata
