// The Mamba-2 hybrids' hyper-parameters (granitehybrid, nemotron_h) as Strata reads them from
// llama.cpp's keys. Granite 4.0-H: the layers head_count_kv makes attend or recur, the Mamba-2 shapes, no rope unless
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
  spec.skip_tensors = {"blk.0.ssm_dt.bias"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.ssm_dt.bias");
}

// Nemotron-H's default test shapes: 5 layers, by kind Mamba-2, feed-forward, attention, Mamba-2,
// feed-forward; only the attention layer holds K/V, only the Mamba-2 ones a state, only the
// feed-forward ones a width; the feed-forward's norm is its layer's attn_norm.
TEST_F(ModelLoadTest, ReadsNemotronHHparams) {
  TestModelSpec spec;
  spec.arch = "nemotron_h";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 5);
  EXPECT_TRUE(hp.is_hybrid() && hp.ssm_mamba2 && hp.ssm_grouped && hp.ffn_relu_sq);
  EXPECT_FALSE(hp.is_moe() || hp.tied_embeddings);
  EXPECT_EQ(hp.ffn_norm_name, "attn_norm");
  EXPECT_EQ(hp.n_head, 4);
  EXPECT_EQ(hp.n_head_kv, 2);
  EXPECT_EQ(hp.n_ff, 512);
  const char* kinds = "MFAMF";
  for (int l = 0; l < 5; ++l) {
    SCOPED_TRACE(l);
    EXPECT_EQ(hp.layer_is_recurrent(l), kinds[l] == 'M');
    EXPECT_EQ(hp.attn_kind(l), kinds[l] == 'F' ? AttnKind::kNone : AttnKind::kAttention);
    EXPECT_EQ(hp.layer_has_ffn(l), kinds[l] == 'F');
    EXPECT_EQ(hp.ffn_width(l), kinds[l] == 'F' ? 512 : 0);
    EXPECT_FALSE(hp.layer_rotates(l));
  }
  EXPECT_EQ(hp.n_kv_layers(), 1);
  EXPECT_EQ(hp.kv_layer(2), 0);
  EXPECT_EQ(hp.n_recurrent_layers(), 2);
  EXPECT_EQ(hp.recurrent_layer(3), 1);
  EXPECT_EQ((*m)->kv_layout(DType::kF16, 16).state_floats, 2 * hp.ssm_state_floats());
}

// Nemotron 3 (nemotron_h_moe): the feed-forward layers' experts, without gates, routed by
// sigmoid gates with a selection bias, renormalised and scaled as the file says, beside an ungated
// shared expert; no layer of another kind has experts.
TEST_F(ModelLoadTest, ReadsNemotronHMoeHparams) {
  TestModelSpec spec;
  spec.arch = "nemotron_h_moe";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.is_moe() && hp.moe_where_ffn && hp.ffn_relu_sq && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FALSE(hp.shexp_gated);
  EXPECT_EQ(hp.expert_weights_scale, 2.5f);
  EXPECT_EQ(hp.n_ff_exp, 256);
  EXPECT_EQ(hp.n_ff_shexp, 256);
  for (int l = 0; l < 5; ++l) EXPECT_EQ(hp.layer_is_moe(l), l == 1 || l == 4) << "layer " << l;
  EXPECT_GT((*m)->decode_weight_bytes(), 0u);
  EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());  // 2 of 8 experts a token
}

// LFM2: short convolutions where head_count_kv is 0 (the 3rd layer attends), 3 taps, a state of
// the convolution's last 2 inputs of n_embd, the final norm token_embd_norm; bad keys named.
TEST_F(ModelLoadTest, ReadsLfm2Hparams) {
  TestModelSpec spec;
  spec.arch = "lfm2";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.is_hybrid() && hp.ssm_short_conv && hp.rope_neox && hp.qk_norm && hp.tied_embeddings);
  EXPECT_FALSE(hp.ssm_mamba2 || hp.is_moe());
  EXPECT_EQ(hp.output_norm_name, "token_embd_norm");
  EXPECT_EQ(hp.ssm_conv_kernel, 3);
  for (int l = 0; l < 4; ++l) EXPECT_EQ(hp.layer_is_recurrent(l), l != 2) << "layer " << l;
  EXPECT_EQ(hp.n_recurrent_layers(), 3);
  EXPECT_EQ(hp.ssm_state_floats(), 2u * 256);
  EXPECT_EQ((*m)->kv_layout(DType::kF16, 16).state_floats, 3 * 2u * 256);
  spec.metadata_overrides = {{"lfm2.shortconv.l_cache", GgufValue::U32(9)}};
  expect_error(spec, Code::kUnsupported, "lfm2.shortconv.l_cache 9 exceeds the 8 taps");
  spec.metadata_overrides = {{"lfm2.shortconv.l_cache", GgufValue::U32(1)}};
  expect_error(spec, Code::kCorrupt, "shortconv.l_cache");
  spec.metadata_overrides.clear();
  spec.skip_tensors = {"token_embd_norm.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor token_embd_norm.weight");
  spec.skip_tensors = {"blk.0.shortconv.conv.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.shortconv.conv.weight");
}

// LFM2-MoE: a leading dense layer, then experts routed by sigmoid gates plus a selection bias
// (optional, as in every sigmoid-routed file), renormalised, no shared expert;
// attention.sliding_window windows the attending layers.
TEST_F(ModelLoadTest, ReadsLfm2MoeHparams) {
  TestModelSpec spec;
  spec.arch = "lfm2moe";
  spec.metadata_overrides = {{"lfm2moe.attention.sliding_window", GgufValue::U32(64)}};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.ssm_short_conv && hp.is_moe() && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  EXPECT_EQ(hp.expert_weights_scale, 1.0f);
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ(hp.layer_is_moe(l), l >= 1) << "layer " << l;
    EXPECT_EQ(hp.layer_is_recurrent(l), l != 2) << "layer " << l;
  }
  EXPECT_EQ(hp.sliding_window, 64);
  EXPECT_TRUE(hp.layer_slides(2));
  EXPECT_FALSE(hp.mixes_sliding_layers());
  EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());
  spec.metadata_overrides.clear();
  spec.skip_tensors = {"blk.3.ffn_down_exps.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.3.ffn_down_exps.weight");
  spec.skip_tensors = {"blk.0.ffn_gate.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.ffn_gate.weight");
  spec.skip_tensors.clear();
  spec.skip_keys = {"lfm2moe.expert_count"};
  expect_error(spec, Code::kNotFound, "lfm2moe.expert_count");
}

// Falcon-H1: every layer both a Mamba-2 layer (its own state) and an attending one (its own K/V),
// ffn_norm read bare as llama.cpp's files name it; feed-forward biases and bad shapes refused by name.
TEST_F(ModelLoadTest, ReadsFalconH1Hparams) {
  TestModelSpec spec;
  spec.arch = "falcon-h1";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.ssm_parallel_attention && hp.ssm_mamba2 && hp.ssm_grouped && hp.rope_neox && hp.is_hybrid());
  EXPECT_EQ(hp.ffn_norm_suffix, "");
  ASSERT_EQ(hp.n_layer, 2);
  for (int l = 0; l < 2; ++l) {
    EXPECT_TRUE(hp.layer_is_recurrent(l)) << "layer " << l;
    EXPECT_EQ(hp.kv_layer(l), l);
    EXPECT_EQ(hp.recurrent_layer(l), l);
  }
  EXPECT_EQ(hp.n_kv_layers(), 2);
  EXPECT_EQ(hp.n_recurrent_layers(), 2);
  EXPECT_EQ((*m)->kv_layout(DType::kF16, 16).state_floats, 2 * hp.ssm_state_floats());
  spec.skip_tensors = {"blk.1.ffn_norm"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ffn_norm");
  spec.skip_tensors = {"blk.0.attn_k.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.attn_k.weight");
  spec.skip_tensors = {"blk.1.ssm_dt.bias"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ssm_dt.bias");
  spec.skip_tensors.clear();
  spec.metadata_overrides = {{"falcon-h1.ssm.time_step_rank", GgufValue::U32(3)}};
  expect_error(spec, Code::kCorrupt, "falcon-h1.ssm.time_step_rank 3");
}

TEST_F(ModelLoadTest, RefusesBadNemotronHFiles) {
  TestModelSpec spec;
  spec.arch = "nemotron_h";
  const std::string a = "nemotron_h.";
  spec.metadata_overrides = {{a + "feed_forward_length", GgufValue::I32Array({0, 512, 512, 0, 512})}};
  expect_error(spec, Code::kCorrupt, "layer 2 has both K/V heads and a feed-forward width");
  spec.metadata_overrides = {{a + "attention.head_count_kv", GgufValue::I32Array({0, 0, 0, 0, 0})}};
  expect_error(spec, Code::kUnsupported, "no layer of nemotron_h attends");
  spec.metadata_overrides = {{a + "attention.head_count", GgufValue::I32Array({4, 4, 2, 4, 4})}};
  expect_error(spec, Code::kUnsupported, "layer 2 attends with 2 query and 2 K/V heads, another layer with 4 and 2");
  spec.metadata_overrides = {{a + "expert_count", GgufValue::U32(8)},
                             {a + "expert_used_count", GgufValue::U32(2)},
                             {a + "expert_feed_forward_length", GgufValue::U32(128)}};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ffn_gate_inp.weight");  // its layers turn MoE
  spec.metadata_overrides.clear();
  spec.skip_tensors = {"blk.1.ffn_up.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.ffn_up.weight");
  spec.skip_tensors = {"blk.1.attn_norm.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.1.attn_norm.weight");
}

}  // namespace
}  // namespace strata
