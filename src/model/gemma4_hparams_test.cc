// Gemma 4's hyper-parameters (model/gemma4_hparams.h), its K/V layout with heads of two shapes,
// and the files it refuses, each error naming what is wrong.
#include <gtest/gtest.h>

#include "model/model_load_test_util.h"

namespace strata::testing {
namespace {

TestModelSpec gemma4_spec() {
  TestModelSpec spec;
  spec.arch = "gemma4";
  spec.n_layer = 6;  // sliding, sliding, full, sliding, sliding, full (the last is always full)
  return spec;
}

TEST_F(ModelLoadTest, ReadsGemma4Hparams) {
  const TestModelSpec spec = gemma4_spec();
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.rope_neox && hp.qk_norm && hp.post_norms && hp.ffn_gelu && hp.tied_embeddings && hp.v_norm);
  EXPECT_EQ(hp.sliding_window, spec.sliding_window);
  for (int layer = 0; layer < 6; ++layer) EXPECT_EQ(hp.layer_slides(layer), layer % 3 != 2) << layer;
  EXPECT_EQ(hp.attn_shape(0), (AttnShape{4, 2, 64}));   // the sliding layers' heads
  EXPECT_EQ(hp.attn_shape(2), (AttnShape{4, 1, 128}));  // the full layers'
  EXPECT_EQ(hp.n_rot, 128);
  EXPECT_EQ(hp.n_rot_swa, 64);
  EXPECT_FLOAT_EQ(hp.rope_freq_base, 1e6f);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, spec.rope_freq_base);
  EXPECT_FLOAT_EQ(hp.kq_scale(), 1.0f);
  EXPECT_FLOAT_EQ(hp.final_softcap, 30.0f);
  EXPECT_FLOAT_EQ(hp.embd_scale, 16.0f);  // sqrt(256)
  EXPECT_EQ(hp.max_q_dim(), 4 * 128);
  EXPECT_EQ(hp.max_kv_dim(), 2 * 64);
}

// The sliding layers' K/V go to group 1 with their own heads; each group's sizes and offsets
// follow its heads.
TEST_F(ModelLoadTest, Gemma4KvLayoutGivesEachGroupItsHeads) {
  auto m = load(gemma4_spec());
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const KvLayout l = (*m)->kv_layout(DType::kF16, 16);
  ASSERT_EQ(l.n_groups(), 2);
  EXPECT_EQ(l.window_tokens, 10);
  EXPECT_EQ(l.n_group_layers(1), 4);
  EXPECT_EQ(l.token_bytes(0), 1u * 128 * 2);  // one K/V head of 128 halves
  EXPECT_EQ(l.token_bytes(1), 2u * 64 * 2);   // two of 64
  EXPECT_EQ(l.group_bytes(0), 2u * 2 * 16 * 256);
  EXPECT_EQ(l.group_bytes(1), 4u * 2 * 16 * 256);
  EXPECT_EQ(l.block_bytes(), l.group_bytes(0) + l.group_bytes(1));
  EXPECT_EQ(l.v_offset(5, 3), l.layer_bytes(0) + 16 * l.token_bytes(0) + 3 * l.token_bytes(0));
  EXPECT_EQ(l.k_offset(4, 1), 3 * l.layer_bytes(1) + l.token_bytes(1));  // the fourth sliding layer
  EXPECT_TRUE((*m)->check_kv_layout(l).ok());
  KvLayout same_heads = l;
  same_heads.window_head_dim = 0;
  EXPECT_FALSE((*m)->check_kv_layout(same_heads).ok());
}

TEST_F(ModelLoadTest, Gemma4RefusesBadOrUnsupportedFiles) {
  TestModelSpec spec = gemma4_spec();
  spec.metadata_overrides = {{"gemma4.attention.sliding_window_pattern",
                              GgufValue::Array(GgufType::kBool, {GgufValue::Bool(true), GgufValue::Bool(false)})}};
  expect_error(spec, Code::kCorrupt, "sliding_window_pattern must hold one value per layer (6)");
  spec.metadata_overrides = {{"gemma4.attention.head_count_kv", GgufValue::I32Array({2, 2, 1, 2, 4, 1})}};
  expect_error(spec, Code::kUnsupported, "gives layer 4 4 K/V heads; every sliding layer must have the same count");
  spec.metadata_overrides = {{"gemma4.attention.shared_kv_layers", GgufValue::U32(6)}};
  expect_error(spec, Code::kCorrupt, "shared_kv_layers 6 leaves none of the 6 layers with K/V of its own");
  spec.metadata_overrides = {{"gemma4.attention.shared_kv_layers", GgufValue::U32(5)}};
  expect_error(spec, Code::kCorrupt, "layer 2 shares the K/V of an earlier full layer, and none of the first 1 is one");
  spec.metadata_overrides = {{"gemma4.attention.head_count_kv", GgufValue::I32Array({2, 2, 3, 2, 2, 3})}};
  expect_error(spec, Code::kCorrupt, "is not a multiple of head_count_kv 3");
  spec.metadata_overrides = {{"gemma4.rope.dimension_count_swa", GgufValue::U32(66)}};
  expect_error(spec, Code::kCorrupt, "sliding layers' rope dimension 66 and head size 64");
  spec.metadata_overrides = {};
  spec.skip_keys = {"gemma4.attention.sliding_window_pattern"};
  expect_error(spec, Code::kNotFound, "missing metadata key gemma4.attention.sliding_window_pattern");
  spec.skip_keys = {};
  spec.skip_tensors = {"blk.2.attn_k_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.2.attn_k_norm.weight");
  // A full layer's k norm has the full heads' width.
  spec.skip_tensors = {};
  spec.head_dim_full = 64;
  spec.n_head_kv_full = 2;
  auto same = load(spec);  // heads of one shape: one more sliding layer than full ones is fine
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ((*same)->kv_layout(DType::kF16, 16).window_head_dim, 0);
}

// The E2B's parts: per-layer inputs, the last layers reading an earlier layer's K/V (the last
// own layer of their kind) and twice as wide; the K/V cache holds the layers that store K/V only.
TEST_F(ModelLoadTest, ReadsGemma4PerLayerInputsAndSharedKv) {
  TestModelSpec spec;
  spec.arch = "gemma4-e2b";  // S S F S | S F, the last two shared
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_embd_per_layer, 256);
  EXPECT_EQ(hp.n_kv_layers(), 4);
  EXPECT_EQ(hp.kv_source, (std::vector<int>{0, 1, 2, 3, 3, 2}));
  EXPECT_TRUE(hp.layer_stores_kv(3) && !hp.layer_stores_kv(4));
  EXPECT_EQ(hp.ffn_width(3), 512);
  EXPECT_EQ(hp.ffn_width(4), 1024);
  EXPECT_EQ(hp.n_ff, 1024);
  const KvLayout l = (*m)->kv_layout(DType::kF16, 16);
  EXPECT_EQ(l.n_layer, 4);
  EXPECT_EQ(l.n_group_layers(1), 3);
  EXPECT_EQ(l.group_of(2), 0);
  spec.skip_tensors = {"per_layer_proj_norm.weight"};
  expect_error(spec, Code::kNotFound, "per_layer_proj_norm.weight");
  spec.skip_tensors = {"blk.3.attn_k.weight"};  // an own layer's k is required; a shared one has none
  expect_error(spec, Code::kNotFound, "blk.3.attn_k.weight");
}

// The 26B-A4B's form: experts beside every layer's dense feed-forward, softmax routing
// renormalised over the chosen, no shared expert; its own tensors are required.
TEST_F(ModelLoadTest, ReadsGemma4ExpertsBesideTheDenseFeedForward) {
  TestModelSpec spec;
  spec.arch = "gemma4-moe";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.moe_beside_dense && hp.expert_weights_norm && hp.ffn_gelu);
  EXPECT_FALSE(hp.expert_sigmoid);
  EXPECT_EQ(hp.n_expert, spec.n_expert);
  EXPECT_EQ(hp.n_expert_used, spec.n_expert_used);
  EXPECT_EQ(hp.n_ff, spec.n_ff);
  EXPECT_EQ(hp.n_ff_exp, spec.n_ff_exp);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  for (int layer = 0; layer < 4; ++layer) EXPECT_TRUE(hp.layer_is_moe(layer)) << layer;
  for (const char* name : {"blk.1.ffn_gate_inp.scale", "blk.1.pre_ffw_norm_2.weight", "blk.1.ffn_gate_up_exps.weight",
                           "blk.1.ffn_gate.weight"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
  spec.skip_tensors = {"blk.1.ffn_down_exps.scale"};  // optional: the experts' outputs unscaled
  EXPECT_TRUE(load(spec).ok());
}

}  // namespace
}  // namespace strata::testing
