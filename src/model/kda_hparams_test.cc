// Ling 3.0's hyper-parameters (bailingmoe3) as Strata reads them from the keys ik_llama.cpp reads:
// the layers' kinds from head_count_kv (over every block, the NextN one's last), the Kimi Delta
// Attention shapes, the latent attention's gate, the SwiGLU limits, the shared expert's width, the
// K/V layout and recurrent state they size, and bad keys and tensors refused by name.
#include <gtest/gtest.h>

#include <string>

#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

// The default test shapes: 4 layers and a NextN block; layers 0-2 KDA (4 heads of 64 keys and
// values, 4 taps over 3 * 256 channels), layer 3 latent attention (rank 256, 32 rotated dims, q
// through a rank-256 compression; the older layout: head_count_kv 4, attn_kv_b) with attn_gate;
// layer 0 dense, then 8 experts in 4 groups.
TEST_F(ModelLoadTest, ReadsBailingMoe3Hparams) {
  TestModelSpec spec;
  spec.arch = "bailingmoe3";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);  // the NextN block left out
  EXPECT_TRUE(hp.ssm_kda && hp.is_mla() && hp.attn_head_gate && hp.is_hybrid() && hp.is_moe());
  EXPECT_FALSE(hp.ssm_grouped || hp.shexp_gated || hp.rope_neox || hp.attn_output_gate);
  EXPECT_FLOAT_EQ(hp.kda_gate_lower_bound, -5.0f);
  EXPECT_EQ(hp.ssm_conv_kernel, 4);
  EXPECT_EQ(hp.ssm_n_k_heads, 4);
  EXPECT_EQ(hp.ssm_n_v_heads, 4);
  EXPECT_EQ(hp.ssm_head_k_dim, 64);
  EXPECT_EQ(hp.ssm_head_v_dim, 64);
  EXPECT_EQ(hp.ssm_conv_channels(), 768);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(hp.ssm_key_head(h), h);
  for (int layer = 0; layer < 4; ++layer) EXPECT_EQ(hp.layer_is_recurrent(layer), layer != 3) << "layer " << layer;
  EXPECT_EQ(hp.n_head_kv, 1);  // the latent row
  EXPECT_EQ(hp.head_dim, 256 + 32);
  EXPECT_EQ(hp.n_kv_layers(), 1);
  EXPECT_EQ(hp.kv_layer(3), 0);
  EXPECT_EQ(hp.n_recurrent_layers(), 3);
  EXPECT_EQ(hp.ssm_state_floats(), 3u * 768 + 4u * 64 * 64);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_EQ(hp.n_expert_groups, 4);
  EXPECT_EQ(hp.n_expert_groups_used, 2);
  EXPECT_TRUE(hp.expert_sigmoid);
  EXPECT_EQ(hp.n_ff_shexp, 256);
  EXPECT_FLOAT_EQ(hp.ffn_limit(2, true), 0.8f);
  EXPECT_FLOAT_EQ(hp.ffn_limit(1, true), 0.0f);
  EXPECT_FLOAT_EQ(hp.ffn_limit(0, false), 0.7f);
  EXPECT_FLOAT_EQ(hp.ffn_limit(3, false), 0.7f);
  const KvLayout layout = (*m)->kv_layout(DType::kF16, 16);
  EXPECT_EQ(layout.n_layer, 1);
  EXPECT_EQ(layout.state_floats, 3 * hp.ssm_state_floats());
  EXPECT_TRUE((*m)->check_kv_layout(layout).ok());
}

// The keys in their other forms: the newer latent layout (head_count_kv 1 in the attending layers,
// attn_k_b / attn_v_b), one routed limit for every layer and none for the shared expert
// (unclamped), two shared experts of expert_shared_feed_forward_length (128) each (the file's
// shared expert is 256 wide), and no kda.safe_gate key (true).
TEST_F(ModelLoadTest, BailingMoe3KeysInTheirOtherForms) {
  TestModelSpec spec;
  spec.arch = "bailingmoe3";
  spec.metadata_overrides = {{"bailingmoe3.swiglu_clamp_exp", GgufValue::F32(6.0f)},
                             {"bailingmoe3.expert_shared_count", GgufValue::U32(2)},
                             {"bailingmoe3.expert_shared_feed_forward_length", GgufValue::U32(128)}};
  spec.mla_split = true;
  spec.skip_keys = {"bailingmoe3.kda.safe_gate", "bailingmoe3.swiglu_clamp_shexp"};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_head_kv, 1);
  EXPECT_EQ(hp.head_dim, 256 + 32);
  EXPECT_EQ(hp.mla_nope_dim, 64);
  EXPECT_EQ(hp.n_ff_shexp, 256);
  for (int layer = 0; layer < 4; ++layer) {
    EXPECT_FLOAT_EQ(hp.ffn_limit(layer, true), 6.0f);
    EXPECT_FLOAT_EQ(hp.ffn_limit(layer, false), 0.0f);
  }
}

// What some converters get wrong, read as ik_llama.cpp reads it: without attention.q_lora_rank the
// compressed query's rank is attn_q_a_norm's length; a NextN count whose block lacks nextn.eh_proj
// makes that block a layer (5 here, the 5th KDA).
TEST_F(ModelLoadTest, BailingMoe3TensorsDecideWhatTheKeysGetWrong) {
  TestModelSpec spec;
  spec.arch = "bailingmoe3";
  spec.skip_keys = {"bailingmoe3.attention.q_lora_rank"};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ((*m)->hparams().mla_q_rank, 256);
  EXPECT_EQ((*m)->hparams().n_layer, 4);
  spec.skip_keys.clear();
  spec.skip_tensors = {"blk.4.nextn.eh_proj.weight"};
  auto stale = load(spec);
  ASSERT_TRUE(stale.ok()) << stale.status().ToString();
  EXPECT_EQ((*stale)->hparams().n_layer, 5);
  EXPECT_TRUE((*stale)->hparams().layer_is_recurrent(4));
}

TEST_F(ModelLoadTest, BailingMoe3BadKeysAreNamed) {
  TestModelSpec spec;
  spec.arch = "bailingmoe3";
  spec.skip_keys = {"bailingmoe3.kda.gate_lower_bound"};
  expect_error(spec, Code::kNotFound, "missing metadata key bailingmoe3.kda.gate_lower_bound");
  spec.skip_keys = {"bailingmoe3.kda.head_dim"};
  expect_error(spec, Code::kNotFound, "bailingmoe3.kda.head_dim");
  spec.skip_keys.clear();
  spec.metadata_overrides = {{"bailingmoe3.kda.safe_gate", GgufValue::Bool(false)}};
  expect_error(spec, Code::kUnsupported, "bailingmoe3.kda.safe_gate must be true");
  spec.metadata_overrides = {{"bailingmoe3.kda.head_dim", GgufValue::U32(1024)}};
  expect_error(spec, Code::kUnsupported, "bailingmoe3.kda.head_dim 1024 exceeds the 512");
  spec.metadata_overrides = {{"bailingmoe3.kda.gate_lower_bound", GgufValue::F32(INFINITY)}};
  expect_error(spec, Code::kCorrupt, "bailingmoe3.kda.gate_lower_bound must be a finite number");
  spec.metadata_overrides = {{"bailingmoe3.kda.gate_lower_bound", GgufValue::F32(-100.0f)}};
  expect_error(spec, Code::kCorrupt, "bailingmoe3.kda.gate_lower_bound must be a finite number within [-87, 87]");
  spec.metadata_overrides = {{"bailingmoe3.swiglu_clamp_exp", GgufValue::F32(-1.0f)}};
  expect_error(spec, Code::kCorrupt, "bailingmoe3.swiglu_clamp_exp must hold finite limits >= 0");
  spec.metadata_overrides = {{"bailingmoe3.attention.head_count_kv", GgufValue::I32Array({0, 0, 0, 1})}};
  expect_error(spec, Code::kCorrupt, "bailingmoe3.attention.head_count_kv must hold one value per layer (5)");
  spec.metadata_overrides = {{"bailingmoe3.attention.head_count_kv", GgufValue::I32Array({0, 0, 0, 0, 0})}};
  expect_error(spec, Code::kUnsupported, "no layer of bailingmoe3 attends");
}

// A KDA layer without one of its tensors, and a latent layer without its gate, are refused by name;
// the decay and gate inputs may come under either name (test_model_kda.cc writes "_a" in even
// layers, none in odd ones), but not under neither.
TEST_F(ModelLoadTest, BailingMoe3WithoutATensorIsRefusedByName) {
  TestModelSpec spec;
  spec.arch = "bailingmoe3";
  for (const char* name : {"blk.1.ssm_conv1d_k.weight", "blk.2.ssm_dt.bias", "blk.0.ssm_a", "blk.3.attn_gate.weight",
                           "blk.0.attn_v.weight", "blk.2.ssm_norm.weight"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
  spec.skip_tensors = {"blk.1.ssm_f.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.ssm_f.weight");
  spec.skip_tensors = {"blk.0.ssm_g_a.weight"};
  expect_error(spec, Code::kNotFound, "blk.0.ssm_g.weight");
}

// Kimi Linear, its keys as llama.cpp's converter writes them (the latent layers' head_count_kv 1,
// key_length kv_lora_rank + rope, no value_length): the same layer kinds (layers 0-2 KDA, 3 latent),
// Kimi's softplus gate, the rank of its low-rank inputs from ssm_f_a (64), no rope and no head gate
// in its latent layer, no NextN block; the test model's odd layers hold their convolutions and rates in PyTorch's 4-D shapes and
// a full attn_gate, its even ones ssm_g_a / ssm_g_b: both load.
TEST_F(ModelLoadTest, ReadsKimiLinearHparams) {
  TestModelSpec spec;
  spec.arch = "kimi-linear";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 4);
  EXPECT_TRUE(hp.ssm_kda && hp.kda_softplus_gate && hp.is_mla() && hp.is_hybrid() && hp.is_moe());
  EXPECT_FALSE(hp.attn_head_gate || hp.shexp_gated);
  EXPECT_EQ(hp.kda_rank, 64);
  EXPECT_EQ(hp.ssm_n_v_heads, 4);
  EXPECT_EQ(hp.ssm_head_k_dim, 64);
  for (int layer = 0; layer < 4; ++layer) {
    EXPECT_EQ(hp.layer_is_recurrent(layer), layer != 3) << "layer " << layer;
    EXPECT_FALSE(hp.layer_rotates(layer)) << "layer " << layer;
  }
  EXPECT_EQ(hp.n_head_kv, 1);
  EXPECT_EQ(hp.mla_q_rank, 0);  // one attn_q, as Kimi's config has no q_lora_rank
  EXPECT_EQ(hp.mla_kv_rank, 256);
  EXPECT_EQ(hp.mla_v_dim, 64);
  // Without expert_gating_func and expert_weights_norm keys (Kimi's converter writes neither):
  // sigmoid gates, renormalised.
  EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_EQ(hp.n_expert_groups, 1);
  EXPECT_EQ(hp.n_ff_shexp, 256);
}

TEST_F(ModelLoadTest, KimiLinearBadTensorsAreNamed) {
  TestModelSpec spec;
  spec.arch = "kimi-linear";
  for (const char* name : {"blk.0.ssm_f_b.weight", "blk.0.ssm_g_b.weight", "blk.1.ssm_conv1d_v.weight", "blk.1.ssm_a"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
  spec.skip_tensors = {"blk.0.ssm_f_a.weight"};
  expect_error(spec, Code::kNotFound, "missing tensor blk.0.ssm_f_a.weight");
}

// A gate on Kimi Linear's latent layer (a value per head and channel, unlike Ling 3.0's per head)
// is refused by name rather than read as something else.
TEST_F(ModelLoadTest, KimiLinearLatentGateIsRefusedByName) {
  TestModelSpec spec;
  spec.arch = "kimi-linear";
  spec.kimi_latent_gate = true;
  expect_error(spec, Code::kUnsupported, "blk.3.attn_gate.weight (a gate on Kimi Linear's latent attention)");
}

}  // namespace
}  // namespace strata
