// Qwen3.5's and Qwen3-Next's hybrid hyper-parameters (qwen35, qwen35moe, qwen3next) as Strata reads
// them from llama.cpp's keys, the layers they make attend or recur, the K/V layout and recurrent
// state they size, and bad keys and tensors refused by name.
#include <gtest/gtest.h>

#include <string>

#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

// The default test shapes: 4 layers, the 4th attending; delta-net layers of 2 key heads and 4
// value heads of 64, 4 conv taps over 2 * 128 + 256 = 512 channels.
TEST_F(ModelLoadTest, ReadsQwen35Hparams) {
  TestModelSpec spec;
  spec.arch = "qwen35";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_EQ(hp.full_attn_interval, 4);
  EXPECT_TRUE(hp.is_hybrid() && hp.attn_output_gate && hp.rope_neox && hp.qk_norm && hp.tied_embeddings);
  EXPECT_FALSE(hp.is_moe() || hp.post_norms || hp.qkv_bias);
  EXPECT_EQ(hp.ffn_norm_name, "post_attention_norm");
  EXPECT_EQ(hp.head_dim, 64);
  EXPECT_EQ(hp.n_rot, 16);
  EXPECT_EQ(hp.ssm_conv_kernel, 4);
  EXPECT_EQ(hp.ssm_head_k_dim, 64);
  EXPECT_EQ(hp.ssm_n_k_heads, 2);
  EXPECT_EQ(hp.ssm_n_v_heads, 4);
  EXPECT_EQ(hp.ssm_head_v_dim, 64);
  EXPECT_EQ(hp.ssm_conv_channels(), 512);
  for (int layer = 0; layer < 4; ++layer) EXPECT_EQ(hp.layer_is_recurrent(layer), layer != 3) << "layer " << layer;
  EXPECT_EQ(hp.n_kv_layers(), 1);
  EXPECT_EQ(hp.kv_layer(3), 0);
  EXPECT_EQ(hp.n_recurrent_layers(), 3);
  EXPECT_EQ(hp.recurrent_layer(2), 2);
  // Per delta-net layer: 3 past inputs of 512 channels, then 4 state matrices of 64 x 64.
  EXPECT_EQ(hp.ssm_state_floats(), 3u * 512 + 4u * 64 * 64);
  const KvLayout layout = (*m)->kv_layout(DType::kF16, 16);
  EXPECT_EQ(layout.n_layer, 1);
  EXPECT_EQ(layout.state_floats, 3 * hp.ssm_state_floats());
  EXPECT_TRUE((*m)->check_kv_layout(layout).ok());
  KvLayout stateless = layout;
  stateless.state_floats = 0;
  EXPECT_FALSE((*m)->check_kv_layout(stateless).ok());

  spec.skip_hybrid_keys = {"full_attention_interval"};  // llama.cpp's default
  auto defaulted = load(spec);
  ASSERT_TRUE(defaulted.ok()) << defaulted.status().ToString();
  EXPECT_EQ((*defaulted)->hparams().full_attn_interval, 4);
}

// Eight layers attending every other one, with experts: softmax routing renormalised over the
// chosen two, beside a shared expert gated by a sigmoid.
TEST_F(ModelLoadTest, ReadsQwen35MoeHparams) {
  TestModelSpec spec;
  spec.arch = "qwen35moe";
  spec.n_layer = 8;
  spec.full_attn_interval = 2;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.full_attn_interval, 2);
  EXPECT_TRUE(hp.attn_output_gate && hp.is_moe() && hp.expert_weights_norm && hp.shexp_gated);
  EXPECT_FALSE(hp.expert_sigmoid || hp.tied_embeddings);
  EXPECT_EQ(hp.n_expert, 8);
  EXPECT_EQ(hp.n_expert_used, 2);
  EXPECT_EQ(hp.n_ff_exp, 256);
  EXPECT_EQ(hp.n_ff_shexp, 256);
  EXPECT_EQ(hp.n_kv_layers(), 4);
  EXPECT_EQ(hp.n_recurrent_layers(), 4);
  for (int layer = 0; layer < 8; ++layer) {
    const bool recurrent = layer % 2 == 0;
    EXPECT_EQ(hp.layer_is_recurrent(layer), recurrent) << "layer " << layer;
    EXPECT_EQ(recurrent ? hp.recurrent_layer(layer) : hp.kv_layer(layer), layer / 2) << "layer " << layer;
  }
  EXPECT_EQ((*m)->kv_layout(DType::kF16, 16).state_floats, 4 * hp.ssm_state_floats());
}

// Qwen3-Next: Qwen3.5's experts with the delta-net projections fused per key head (ssm_in,
// ssm_ba), its file without full_attention_interval (every 4th layer attends), value heads 0-1
// on key head 0 and 2-3 on key head 1 (Qwen3.5: 0, 1, 0, 1).
TEST_F(ModelLoadTest, ReadsQwen3NextHparams) {
  TestModelSpec spec;
  spec.arch = "qwen3next";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.full_attn_interval, 4);
  EXPECT_TRUE(hp.ssm_grouped && hp.attn_output_gate && hp.is_moe() && hp.shexp_gated && hp.qk_norm);
  EXPECT_EQ(hp.ffn_norm_name, "post_attention_norm");
  EXPECT_EQ(hp.ssm_n_k_heads, 2);
  EXPECT_EQ(hp.ssm_n_v_heads, 4);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(hp.ssm_key_head(h), h / 2) << "value head " << h;

  TestModelSpec qwen35;
  qwen35.arch = "qwen35moe";
  auto q = load(qwen35);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_FALSE((*q)->hparams().ssm_grouped);
  for (int h = 0; h < 4; ++h) EXPECT_EQ((*q)->hparams().ssm_key_head(h), h % 2) << "value head " << h;
}

// A qwen3next file without one of its fused projections is refused by the tensor's name.
TEST_F(ModelLoadTest, Qwen3NextWithoutAFusedProjectionIsRefusedByName) {
  TestModelSpec spec;
  spec.arch = "qwen3next";
  for (const char* name : {"blk.0.ssm_in.weight", "blk.2.ssm_ba.weight"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
}

TEST_F(ModelLoadTest, Qwen35BadDeltaNetKeysAreNamed) {
  TestModelSpec spec;
  spec.arch = "qwen35";
  spec.skip_hybrid_keys = {"ssm.state_size"};
  expect_error(spec, Code::kNotFound, "missing metadata key qwen35.ssm.state_size");
  spec.skip_hybrid_keys.clear();
  spec.metadata_overrides = {{"qwen35.ssm.time_step_rank", GgufValue::U32(3)}};
  expect_error(spec, Code::kCorrupt, "qwen35.ssm.time_step_rank 3 must be a multiple of ssm.group_count 2");
  spec.metadata_overrides = {{"qwen35.full_attention_interval", GgufValue::U32(1)}};
  expect_error(spec, Code::kCorrupt, "qwen35.full_attention_interval must be at least 2");
  spec.metadata_overrides = {{"qwen35.ssm.conv_kernel", GgufValue::U32(9)}};
  expect_error(spec, Code::kUnsupported, "qwen35.ssm.conv_kernel 9 exceeds the 8 taps");
  spec.metadata_overrides = {{"qwen35.ssm.conv_kernel", GgufValue::U32(1)}};
  expect_error(spec, Code::kCorrupt, "qwen35.ssm.conv_kernel must be an integer >= 2");
}

// Qwen3.5's interleaved sections leave no pair at position 0 for text (mrope_hparams_test.cc
// checks leftover sectors); sections that count no pair are refused by name.
TEST_F(ModelLoadTest, Qwen35RopeSectionsAreReadAndChecked) {
  TestModelSpec spec;
  spec.arch = "qwen35";  // n_rot 16: 8 pairs
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().rope_pos0_pairs.empty());
  spec.metadata_overrides = {{"qwen35.rope.dimension_sections", GgufValue::I32Array({1, 1, 1, 1})}};
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().rope_pos0_pairs.empty());
  spec.metadata_overrides = {{"qwen35.rope.dimension_sections", GgufValue::I32Array({0, 0, 0, 0})}};
  expect_error(spec, Code::kCorrupt, "qwen35.rope.dimension_sections must hold 4 counts of rotated pairs, not all 0");
}

// ssm_a has no .weight suffix; a conv of 3 taps where the keys say 4 is refused by shape.
TEST_F(ModelLoadTest, Qwen35MissingOrMisshapedDeltaNetTensorIsNamed) {
  TestModelSpec spec;
  spec.arch = "qwen35";
  spec.skip_tensors = {"blk.1.ssm_a"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ssm_a");
  spec.skip_tensors.clear();
  spec.ssm_conv_kernel = 3;
  spec.metadata_overrides = {{"qwen35.ssm.conv_kernel", GgufValue::U32(4)}};
  expect_error(spec, Code::kCorrupt, "blk.0.ssm_conv1d.weight has shape [3, 512], expected [4, 512]");
}

}  // namespace
}  // namespace strata
