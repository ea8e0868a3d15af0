// Granite 4.0-H's hybrid hyper-parameters (granitehybrid) as Strata reads them from llama.cpp's
// keys: the layers head_count_kv makes attend or recur, the Mamba-2 shapes, no rope unless
// rope.scaling.finetuned, Granite's multipliers (optional here), the K/V layout and recurrent state
// they size, and bad keys and tensors refused by name.
#include <gtest/gtest.h>

#include <string>

#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

// The default test shapes: 4 layers, the 3rd attending; Mamba-2 layers of 4 heads of 64 values
// over 2 groups of 64 state values, 4 conv taps over 256 + 2 * 128 = 512 channels; experts of 256
// beside a shared one of 256.
TEST_F(ModelLoadTest, ReadsGraniteHybridHparams) {
  TestModelSpec spec;
  spec.arch = "granitehybrid";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_TRUE(hp.is_hybrid() && hp.ssm_mamba2 && hp.ssm_grouped && hp.is_moe() && hp.expert_weights_norm);
  EXPECT_FALSE(hp.attn_output_gate || hp.shexp_gated || hp.expert_sigmoid || hp.qk_norm || hp.tied_embeddings);
  EXPECT_EQ(hp.full_attn_interval, 0);
  EXPECT_EQ(hp.n_head_kv, 2);
  EXPECT_EQ(hp.n_ff_exp, 256);
  EXPECT_EQ(hp.n_ff_shexp, 256);
  EXPECT_EQ(hp.ssm_conv_channels(), 512);
  EXPECT_EQ(hp.ssm_key_head(1), 0);  // head h reads group h / (4 / 2)
  EXPECT_EQ(hp.ssm_key_head(2), 1);
  for (int layer = 0; layer < 4; ++layer) {
    EXPECT_EQ(hp.layer_is_recurrent(layer), layer != 2) << "layer " << layer;
    EXPECT_FALSE(hp.layer_rotates(layer)) << "layer " << layer;
  }
  EXPECT_EQ(hp.n_kv_layers(), 1);
  EXPECT_EQ(hp.kv_layer(2), 0);
  EXPECT_EQ(hp.n_recurrent_layers(), 3);
  EXPECT_EQ(hp.recurrent_layer(3), 2);
  // Granite 4.0-H's multipliers as the test model writes them.
  EXPECT_EQ(hp.embd_scale, 12.0f);
  EXPECT_EQ(hp.residual_scale, 0.22f);
  EXPECT_EQ(hp.logit_scale, 6.0f);
  EXPECT_EQ(hp.attn_scale, 1.0f / 64.0f);
  // Per Mamba-2 layer: 3 past inputs of 512 channels, then 4 heads' 64 x 64 states.
  EXPECT_EQ(hp.ssm_state_floats(), 3u * 512 + 4u * 64 * 64);
  const KvLayout layout = (*m)->kv_layout(DType::kF16, 16);
  EXPECT_EQ(layout.n_layer, 1);
  EXPECT_EQ(layout.state_floats, 3 * hp.ssm_state_floats());
  EXPECT_TRUE((*m)->check_kv_layout(layout).ok());
}

// The multipliers are optional (llama.cpp reads them so): a file without them scales nothing, and
// a file that says rope.scaling.finetuned true rotates every attention layer.
TEST_F(ModelLoadTest, GraniteHybridDefaultsWithoutItsOptionalKeys) {
  TestModelSpec spec;
  spec.arch = "granitehybrid-dense";
  spec.skip_keys = {"granitehybrid.embedding_scale", "granitehybrid.attention.scale", "granitehybrid.residual_scale",
                    "granitehybrid.logit_scale", "granitehybrid.rope.scaling.finetuned"};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_FALSE(hp.is_moe());
  EXPECT_EQ(hp.embd_scale, 1.0f);
  EXPECT_EQ(hp.residual_scale, 1.0f);
  EXPECT_EQ(hp.logit_scale, 1.0f);
  EXPECT_EQ(hp.attn_scale, 0.0f);
  EXPECT_FALSE(hp.layer_rotates(2));
  spec.skip_keys.clear();
  spec.metadata_overrides = {{"granitehybrid.rope.scaling.finetuned", GgufValue::Bool(true)}};
  auto rotating = load(spec);
  ASSERT_TRUE(rotating.ok()) << rotating.status().ToString();
  EXPECT_TRUE((*rotating)->hparams().layer_rotates(2));
}

TEST_F(ModelLoadTest, RefusesBadGraniteHybridFiles) {
  TestModelSpec spec;
  spec.arch = "granitehybrid-dense";
  const std::string a = "granitehybrid.";
  spec.metadata_overrides = {{a + "attention.head_count_kv", GgufValue::I32Array({0, 2, 1, 0})}};
  expect_error(spec, Code::kUnsupported, "layer 2 attends with 1 K/V heads, another with 2");
  spec.metadata_overrides = {{a + "attention.head_count_kv", GgufValue::I32Array({0, 0, 0, 0})}};
  expect_error(spec, Code::kUnsupported, "no layer of granitehybrid attends");
  spec.metadata_overrides = {{a + "attention.head_count_kv", GgufValue::I32Array({0, 2, 0})}};
  expect_error(spec, Code::kCorrupt, "head_count_kv");
  spec.metadata_overrides = {{a + "ssm.time_step_rank", GgufValue::U32(3)}};
  expect_error(spec, Code::kCorrupt, "ssm.time_step_rank 3 must be a multiple of ssm.group_count 2");
  spec.metadata_overrides = {{a + "ssm.conv_kernel", GgufValue::U32(9)}};
  expect_error(spec, Code::kUnsupported, "ssm.conv_kernel 9 exceeds the 8 taps");
  spec.metadata_overrides = {{a + "rope.scaling.finetuned", GgufValue::U32(1)}};
  expect_error(spec, Code::kCorrupt, "rope.scaling.finetuned must be a bool");
  spec.metadata_overrides = {{a + "logit_scale", GgufValue::F32(0.0f)}};
  expect_error(spec, Code::kCorrupt, "granitehybrid.logit_scale must be a positive finite number");
  spec.metadata_overrides.clear();
  spec.skip_keys = {a + "ssm.state_size"};
  expect_error(spec, Code::kNotFound, "missing metadata key granitehybrid.ssm.state_size");
  spec.skip_keys.clear();
  spec.skip_tensors = {"blk.1.ssm_d"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ssm_d");
  spec.skip_tensors = {"blk.0.ssm_conv1d.bias"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.ssm_conv1d.bias");
}

}  // namespace
}  // namespace strata
