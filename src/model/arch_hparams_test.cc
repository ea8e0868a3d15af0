// Each architecture's hyper-parameters as Strata reads them from its GGUF keys (model/arch_table.h,
// model/hparams.h), the tensors its layers bind, and bad keys refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gguf/gguf_file.h"
#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

TEST_F(ModelLoadTest, ReadsGemma3Hparams) {
  TestModelSpec spec;
  spec.arch = "gemma3";
  spec.n_layer = 7;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.rope_neox);
  EXPECT_TRUE(hp.qk_norm);
  EXPECT_TRUE(hp.post_norms);
  EXPECT_TRUE(hp.ffn_gelu);
  EXPECT_TRUE(hp.tied_embeddings);
  EXPECT_FLOAT_EQ(hp.embd_scale, 16.0f);  // sqrt(256)
  EXPECT_EQ(hp.attn_scale_dim, 64);  // the head size
  EXPECT_EQ(hp.sliding_window, 10);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, 10000.0f);
  for (int layer = 0; layer < 7; ++layer) EXPECT_EQ(hp.layer_slides(layer), layer != 5) << "layer " << layer;
  EXPECT_EQ(hp.first_key(0, 9), 0);
  EXPECT_EQ(hp.first_key(0, 10), 1);
  EXPECT_EQ(hp.first_key(5, 100), 0);

  spec.n_layer = 2;
  spec.skip_tensors = {"blk.1.post_ffw_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.post_ffw_norm.weight");
  spec.skip_tensors.clear();
  spec.metadata_overrides = {{"gemma3.attention.sliding_window", GgufValue::U32(0)}};
  expect_error(spec, Code::kCorrupt, "gemma3.attention.sliding_window");
}

// gpt-oss: sinks, biases, the clamped SwiGLU, every other layer sliding on the global rope
// (YaRN here), its feed-forward norm as post_attention_norm, and routing weights renormalised
// over the chosen experts (a softmax over their logits).
TEST_F(ModelLoadTest, ReadsGptOssHparams) {
  TestModelSpec spec;
  spec.arch = "gpt-oss";
  spec.n_layer = 3;
  spec.rope_yarn_factor = 32.0f;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.rope_neox && hp.qkv_bias && hp.attn_sinks && hp.swiglu_oai && hp.expert_weights_norm);
  EXPECT_FALSE(hp.qk_norm || hp.post_norms || hp.ffn_gelu || hp.tied_embeddings);
  EXPECT_EQ(hp.ffn_norm_name, "post_attention_norm");
  EXPECT_EQ(hp.sliding_window, 10);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, 0.0f);  // sliding layers rotate as the others do
  for (int layer = 0; layer < 3; ++layer) EXPECT_EQ(hp.layer_slides(layer), layer % 2 == 0) << "layer " << layer;
  EXPECT_EQ(hp.rope_yarn_orig_ctx, 64);
  EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 32.0f);

  for (const char* name : {"blk.1.attn_sinks.weight", "blk.0.post_attention_norm.weight", "blk.2.ffn_up_exps.bias"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
  spec.skip_tensors.clear();
  spec.metadata_overrides = {{"gpt-oss.attention.sliding_window", GgufValue::U32(0)}};
  expect_error(spec, Code::kCorrupt, "gpt-oss.attention.sliding_window");
}

// Gemma 2: Gemma 3's parts without QK-norm, even layers sliding on the global rope, the caps
// (llama.cpp's 50 and 30 when a file has none), and the 27B's attention scale.
TEST_F(ModelLoadTest, ReadsGemma2Hparams) {
  TestModelSpec spec;
  spec.arch = "gemma2";
  spec.n_layer = 3;
  spec.attn_softcap = 7.0f;
  spec.final_softcap = 9.0f;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.post_norms && hp.ffn_gelu && hp.tied_embeddings && hp.rope_neox);
  EXPECT_FALSE(hp.qk_norm);
  EXPECT_FLOAT_EQ(hp.embd_scale, 16.0f);
  EXPECT_FLOAT_EQ(hp.attn_softcap, 7.0f);
  EXPECT_FLOAT_EQ(hp.final_softcap, 9.0f);
  EXPECT_EQ(hp.sliding_window, 10);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, 0.0f);
  for (int layer = 0; layer < 3; ++layer) EXPECT_EQ(hp.layer_slides(layer), layer % 2 == 0) << "layer " << layer;
  EXPECT_EQ(hp.attn_scale_dim, hp.head_dim);

  spec.metadata_overrides = {{"gemma2.attn_logit_softcapping", GgufValue::F32(0.0f)}};
  expect_error(spec, Code::kCorrupt, "gemma2.attn_logit_softcapping must be > 0");
  spec.n_layer = 46;
  spec.n_embd = 256;
  spec.n_head = 2;
  spec.head_dim = 64;
  spec.metadata_overrides.clear();
  auto big = load(spec);
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big.value()->hparams().attn_scale_dim, 128);  // n_embd / n_head, as the 27B's 4608 / 32
}

// Phi-3: q/k/v from one attn_qkv tensor and gate/up from one ffn_up (row ranges of them), every
// layer sliding (0: none, Phi-4's files), NeoX rope; LongRoPE factors come as a pair, and the
// long ones rotate once the context exceeds the original one.
TEST_F(ModelLoadTest, ReadsPhi3Hparams) {
  TestModelSpec spec;
  spec.arch = "phi3";
  spec.n_layer = 3;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.rope_neox && hp.ffn_up_gate_fused);
  EXPECT_FALSE(hp.qkv_bias || hp.qk_norm || hp.tied_embeddings || hp.is_moe());
  EXPECT_EQ(hp.sliding_window, 10);
  for (int layer = 0; layer < 3; ++layer) EXPECT_TRUE(hp.layer_slides(layer)) << "layer " << layer;
  EXPECT_FALSE((*m)->uses_long_rope_factors());

  spec.sliding_window = 0;
  auto phi4 = load(spec);
  ASSERT_TRUE(phi4.ok()) << phi4.status().ToString();
  EXPECT_FALSE(phi4.value()->hparams().layer_slides(0));

  spec.skip_tensors = {"blk.1.attn_qkv.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.attn_q.weight");  // no fused tensor: the separate ones
  spec.skip_tensors.clear();
  spec.metadata_overrides = {{"phi3.feed_forward_length", GgufValue::U32(256)}};
  expect_error(spec, Code::kCorrupt, "blk.0.ffn_up.weight has shape [256, 1024], expected [256, 512]");
  spec.metadata_overrides.clear();

  spec.rope_orig_ctx = 32;
  spec.rope_factors_short.assign(32, 1.0f);
  expect_error(spec, Code::kCorrupt, "rope_factors_short.weight and rope_factors_long.weight come as a pair");
  spec.rope_factors_long.assign(32, 4.0f);
  auto longrope = load(spec);
  ASSERT_TRUE(longrope.ok()) << longrope.status().ToString();
  longrope.value()->fit_context(32);
  EXPECT_FALSE(longrope.value()->uses_long_rope_factors());
  longrope.value()->fit_context(33);
  EXPECT_TRUE(longrope.value()->uses_long_rope_factors());
  spec.rope_factors_long.assign(16, 4.0f);
  expect_error(spec, Code::kCorrupt, "rope_factors_long.weight has shape [16]");
}

// GLM-4: adjacent-pair rope over half of each head, post-norms, gate and up in one ffn_up; q/k/v
// biases used when the file has them, separately or as one attn_qkv.bias beside attn_qkv.
TEST_F(ModelLoadTest, ReadsGlm4Hparams) {
  TestModelSpec spec;
  spec.arch = "glm4";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.post_norms && hp.ffn_up_gate_fused && hp.qkv_bias);
  EXPECT_FALSE(hp.rope_neox || hp.qk_norm || hp.tied_embeddings || hp.is_moe() || hp.ffn_gelu);
  EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
  EXPECT_FLOAT_EQ(hp.embd_scale, 1.0f);
  spec.fused_qkv = true;
  ASSERT_TRUE(load(spec).ok());
  spec.skip_tensors = {"blk.1.attn_qkv.bias"};
  expect_error(spec, Code::kNotFound, "blk.1.attn_qkv.bias");
  spec.skip_tensors = {"blk.1.post_ffw_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.post_ffw_norm.weight");
}

// GLM-4.5: the NextN block after the others is not a layer; the leading dense layers bind a
// dense feed-forward, the rest experts with a selection bias and an ungated shared expert;
// sigmoid gating, the weight scale and rope over half of each head come from the file; routing
// groups (group-limited routing) are read, and bad routing keys are refused by name.
TEST_F(ModelLoadTest, ReadsGlm4MoeHparams) {
  TestModelSpec spec;
  spec.arch = "glm4moe";
  spec.n_layer = 3;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 3);  // block_count 4, less one NextN block
  EXPECT_EQ(hp.n_nextn_layers, 1);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_FALSE(hp.layer_is_moe(0));
  EXPECT_TRUE(hp.layer_is_moe(1) && hp.layer_is_moe(2));
  EXPECT_EQ(hp.n_ff, 512);
  EXPECT_EQ(hp.n_ff_exp, 256);
  EXPECT_EQ(hp.n_ff_shexp, 256);  // expert_shared_count 1 of the expert width
  EXPECT_FALSE(hp.shexp_gated);
  EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm && hp.qkv_bias && hp.rope_neox);
  EXPECT_FLOAT_EQ(hp.expert_weights_scale, 2.5f);
  EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
  EXPECT_EQ(hp.ffn_norm_name, "post_attention_norm");
  // A decode step reads neither the embedding table, nor the NextN block, nor the 6 of 8
  // experts a token skips in each of the 2 MoE layers (F32: 3 matrices of 256 x 256 each).
  auto gguf = GgufFile::Open((dir_ / "m.gguf").string());
  ASSERT_TRUE(gguf.ok());
  uint64_t nextn_bytes = 0;
  for (const GgufTensor& t : gguf->tensors()) nextn_bytes += t.name.starts_with("blk.3.") ? t.n_bytes : 0;
  EXPECT_GT(nextn_bytes, 0u);
  const uint64_t skipped_experts = 2u * 6 * 3 * 256 * 256 * 4;
  EXPECT_EQ((*m)->decode_weight_bytes(),
            (*m)->weight_bytes() - 256u * 256 * 4 - nextn_bytes - skipped_experts);

  spec.metadata_overrides = {{"glm4moe.expert_gating_func", GgufValue::U32(4)}};
  expect_error(spec, Code::kUnsupported, "glm4moe.expert_gating_func 4 is not supported");
  spec.metadata_overrides = {{"glm4moe.expert_group_count", GgufValue::U32(4)},
                             {"glm4moe.expert_group_used_count", GgufValue::U32(2)}};
  auto grouped = load(spec);
  ASSERT_TRUE(grouped.ok()) << grouped.status().ToString();
  EXPECT_EQ((*grouped)->hparams().n_expert_groups, 4);
  EXPECT_EQ((*grouped)->hparams().n_expert_groups_used, 2);
  spec.metadata_overrides = {{"glm4moe.expert_group_count", GgufValue::U32(3)},
                             {"glm4moe.expert_group_used_count", GgufValue::U32(2)}};
  expect_error(spec, Code::kCorrupt, "glm4moe.expert_group_count 3 does not divide expert_count 8");
  spec.metadata_overrides = {{"glm4moe.expert_group_count", GgufValue::U32(8)},
                             {"glm4moe.expert_group_used_count", GgufValue::U32(1)}};
  expect_error(spec, Code::kCorrupt, "expert_group_used_count 1 groups hold fewer than expert_used_count 2");
  spec.metadata_overrides = {{"glm4moe.nextn_predict_layers", GgufValue::U32(4)}};
  expect_error(spec, Code::kCorrupt, "glm4moe.nextn_predict_layers 4 leaves none of the 4 blocks");
  spec.metadata_overrides = {{"glm4moe.expert_weights_scale", GgufValue::F32(0.0f)}};
  expect_error(spec, Code::kCorrupt, "glm4moe.expert_weights_scale must be > 0");
  spec.metadata_overrides.clear();
  for (const char* name : {"blk.0.ffn_gate.weight", "blk.2.ffn_down_shexp.weight", "blk.1.attn_v.bias"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
  // The selection bias is optional; a NextN block's tensors are never read.
  spec.skip_tensors = {"blk.1.exp_probs_b.bias", "blk.3.ffn_gate_exps.weight", "blk.3.nextn.eh_proj.weight"};
  auto sparse = load(spec);
  ASSERT_TRUE(sparse.ok()) << sparse.status().ToString();
}

// Llama 4: rope in 3 of every 4 layers, chunks and L2 norm there, the temperature in the
// others; experts by sigmoid weights on their input in every interleave_moe_layer_step-th layer,
// dense layers between, and a shared expert of the expert width. llama.cpp's constants when the
// file lacks the keys; Maverick's 128 experts go without the L2 norm.
TEST_F(ModelLoadTest, ReadsLlama4Hparams) {
  TestModelSpec spec;
  spec.arch = "llama4";
  spec.n_layer = 4;
  spec.moe_layer_step = 2;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_FALSE(hp.rope_neox || hp.qkv_bias || hp.qk_norm);
  EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weight_input && hp.qk_l2_norm && !hp.shexp_gated);
  EXPECT_FALSE(hp.expert_weights_norm);
  EXPECT_EQ(hp.n_ff_shexp, hp.n_ff_exp);
  for (int layer = 0; layer < 4; ++layer) {
    EXPECT_EQ(hp.layer_rotates(layer), layer != 3) << layer;
    EXPECT_EQ(hp.layer_is_moe(layer), layer % 2 == 1) << layer;
  }
  EXPECT_EQ(hp.first_key(0, 25), 20);  // chunks of 10
  EXPECT_EQ(hp.first_key(3, 25), 0);   // no chunks without rope
  EXPECT_FLOAT_EQ(hp.attn_temperature(2), 1.0f);
  EXPECT_FLOAT_EQ(hp.attn_temperature(7), 1.0f + 0.5f * std::log(3.0f));  // floor(8 / 4) + 1

  spec.metadata_overrides = {{"llama4.attention.chunk_size", GgufValue::U32(0)}};
  expect_error(spec, Code::kCorrupt, "llama4.attention.chunk_size must be a positive integer");
  spec.skip_tensors = {"blk.1.ffn_up_shexp.weight"};
  spec.metadata_overrides.clear();
  expect_error(spec, Code::kNotFound, "blk.1.ffn_up_shexp.weight");
  spec.skip_tensors = {"blk.0.ffn_gate.weight"};
  expect_error(spec, Code::kNotFound, "blk.0.ffn_gate.weight");
  spec.skip_tensors.clear();
  spec.metadata_overrides = {{"llama4.attention.chunk_size", GgufValue::U32(7)}};
  ASSERT_TRUE(load(spec).ok());
  EXPECT_EQ(load(spec).value()->hparams().attn_chunk, 7);
}

// DeepSeek-V2/V3: the latent attention's sizes from either form of the file (a full head's
// key_length / value_length with attn_kv_b; or the latent row's with key_length_mla /
// value_length_mla and attn_k_b / attn_v_b), one K/V head whose cache row is its V too, the score
// scale from YaRN's factor and log multiplier, and errors that name the key or tensor.
TEST_F(ModelLoadTest, ReadsDeepSeek2Hparams) {
  TestModelSpec spec;
  spec.arch = "deepseek2";
  spec.n_layer = 3;
  spec.rope_yarn_factor = 40.0f;
  spec.rope_yarn_log_mul = 0.0707f;
  for (bool split : {false, true}) {
    spec.mla_split = split;
    auto m = load(spec);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_TRUE(hp.is_mla());
    EXPECT_EQ(hp.mla_kv_rank, 256);
    EXPECT_EQ(hp.mla_q_rank, 256);
    EXPECT_EQ(hp.mla_nope_dim, 64);
    EXPECT_EQ(hp.mla_v_dim, 64);
    EXPECT_EQ(hp.n_rot, 32);
    EXPECT_EQ(hp.head_dim, 288);  // the latent row: 256 + 32
    EXPECT_EQ(hp.n_head_kv, 1);
    EXPECT_FALSE(hp.rope_neox || hp.shexp_gated);
    EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm);
    EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1) && hp.layer_is_moe(2));
    const float mscale = 1.0f + 0.0707f * std::log(40.0f);
    EXPECT_FLOAT_EQ(hp.kq_scale(), mscale * mscale / std::sqrt(96.0f));
    const KvLayout kv = (*m)->kv_layout(DType::kF16, 16);
    EXPECT_TRUE(kv.v_is_k);
    EXPECT_EQ(kv.v_offset(2, 3), kv.k_offset(2, 3));
    EXPECT_EQ(kv.block_bytes(), 3u * 16 * 288 * 2);  // one latent row per token and layer
  }
  spec.mla_split = false;
  spec.metadata_overrides = {{"deepseek2.attention.kv_lora_rank", GgufValue::U32(0)}};
  expect_error(spec, Code::kCorrupt, "deepseek2.attention.kv_lora_rank must be a positive integer");
  spec.metadata_overrides = {{"deepseek2.attention.key_length", GgufValue::U32(32)}};
  expect_error(spec, Code::kCorrupt, "a query head of 32 values must be longer than its 32 rotated ones");
  spec.metadata_overrides = {{"deepseek2.attention.key_length_mla", GgufValue::U32(96)}};
  expect_error(spec, Code::kCorrupt, "with key_length_mla, attention.key_length must be kv_lora_rank + rope (288)");
  spec.metadata_overrides.clear();
  for (const char* name : {"blk.1.attn_kv_b.weight", "blk.0.attn_q_a_norm.weight", "blk.2.attn_kv_a_mqa.weight",
                           "blk.2.ffn_down_shexp.weight"}) {
    spec.skip_tensors = {name};
    expect_error(spec, Code::kNotFound, name);
  }
  spec.mla_split = true;
  spec.skip_tensors = {"blk.1.attn_v_b.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.attn_v_b.weight");
}

// MiniMax-M3: QK-norm head by head, NeoX rope over half of each head, a dense layer first, then
// experts by sigmoid gate values with a selection bias, renormalised and scaled, beside an
// ungated shared expert of expert_shared_count experts; gpt-oss's clamped SwiGLU everywhere.
TEST_F(ModelLoadTest, ReadsMiniMaxM3Hparams) {
  TestModelSpec spec;
  spec.arch = "minimax-m3";
  spec.n_layer = 3;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.qk_norm && hp.rope_neox && hp.swiglu_oai && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FALSE(hp.qk_norm_whole_row || hp.shexp_gated || hp.qkv_bias || hp.attn_sinks);
  EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
  EXPECT_FLOAT_EQ(hp.expert_weights_scale, spec.expert_weights_scale);
  EXPECT_EQ(hp.n_ff_shexp, spec.n_ff_exp);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1) && hp.layer_is_moe(2));
  spec.skip_tensors = {"blk.1.exp_probs_b.bias"};
  auto unbiased = load(spec);  // the selection bias is optional, as in every sigmoid-routed file
  ASSERT_TRUE(unbiased.ok()) << unbiased.status().ToString();
  spec.skip_tensors = {"blk.2.ffn_down_shexp.weight"};
  expect_error(spec, Code::kNotFound, "blk.2.ffn_down_shexp.weight");
  spec.skip_tensors = {"blk.0.attn_k_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.0.attn_k_norm.weight");
}

// MiniMax-M2: QK-norm over each whole q and k row (its weights n_head * head_dim and
// n_head_kv * head_dim long), NeoX rope over half of each head, experts by sigmoid gate values
// with a selection bias, renormalised, no shared expert and no dense layer.
TEST_F(ModelLoadTest, ReadsMiniMaxM2Hparams) {
  TestModelSpec spec;
  spec.arch = "minimax-m2";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.qk_norm && hp.qk_norm_whole_row && hp.rope_neox);
  EXPECT_EQ(hp.n_rot, hp.head_dim / 2);
  EXPECT_TRUE(hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FLOAT_EQ(hp.expert_weights_scale, 1.0f);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  EXPECT_TRUE(hp.layer_is_moe(0) && hp.layer_is_moe(1));
  EXPECT_FALSE(hp.qkv_bias || hp.post_norms || hp.is_mla());
  // Other architectures norm head by head.
  spec.arch = "qwen3moe";
  auto qwen = load(spec);
  ASSERT_TRUE(qwen.ok()) << qwen.status().ToString();
  EXPECT_FALSE((*qwen)->hparams().qk_norm_whole_row);
  spec.arch = "minimax-m2";
  spec.skip_tensors = {"blk.1.attn_k_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.attn_k_norm.weight");
  spec.skip_tensors.clear();
  spec.metadata_overrides = {{"minimax-m2.expert_gating_func", GgufValue::U32(4)}};
  expect_error(spec, Code::kUnsupported, "minimax-m2.expert_gating_func 4 is not supported");
}

// ERNIE 4.5's experts: the file's leading dense layers and interleave step, softmax gates
// renormalised, the selection bias bound, and an ungated shared expert of the file's width.
TEST_F(ModelLoadTest, ReadsErnie45MoeHparams) {
  TestModelSpec spec;
  spec.arch = "ernie4_5-moe";
  spec.n_layer = 5;
  spec.moe_layer_step = 2;
  spec.n_ff_shexp = 384;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_EQ(hp.moe_layer_step, 2);
  for (int layer = 0; layer < 5; ++layer) EXPECT_EQ(hp.layer_is_moe(layer), layer == 1 || layer == 3) << layer;
  EXPECT_EQ(hp.n_ff, 512);
  EXPECT_EQ(hp.n_ff_exp, 256);
  EXPECT_EQ(hp.n_ff_shexp, 384);
  EXPECT_FALSE(hp.shexp_gated || hp.expert_sigmoid || hp.rope_neox || hp.qk_norm);
  EXPECT_TRUE(hp.expert_weights_norm);
  spec.skip_tensors = {"blk.3.ffn_up_shexp.weight"};
  expect_error(spec, Code::kNotFound, "blk.3.ffn_up_shexp.weight");
}

// Ministral 3: llama's tensors; q's temperature in every layer over YaRN's original context,
// YaRN's ramp from the file, and its magnitude times mscale(4, 1) / mscale(4, 0.5); bad values
// refused by key.
TEST_F(ModelLoadTest, ReadsMistral3Hparams) {
  TestModelSpec spec;
  spec.arch = "mistral3";
  spec.rope_yarn_factor = 4.0f;
  spec.rope_yarn_orig_ctx = 64;
  spec.rope_yarn_log_mul = 0.5f;
  spec.rope_yarn_beta_fast = 16.0f;
  spec.rope_yarn_beta_slow = 2.0f;
  spec.attn_temp_scale = 0.1f;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.attn_temp_every_layer);
  EXPECT_FLOAT_EQ(hp.attn_temp_scale, 0.1f);
  EXPECT_EQ(hp.attn_temp_length, 64);
  EXPECT_EQ(hp.rope_yarn_orig_ctx, 64);
  EXPECT_FLOAT_EQ(hp.rope_yarn_beta_fast, 16.0f);
  EXPECT_FLOAT_EQ(hp.rope_yarn_beta_slow, 2.0f);
  const float ln4 = std::log(4.0f);
  EXPECT_FLOAT_EQ(hp.rope_attn_factor, (1.0f + 0.1f * ln4) / (1.0f + 0.05f * ln4));
  EXPECT_FALSE(hp.rope_neox || hp.qk_norm || hp.is_moe() || hp.layer_chunked(0));
  EXPECT_FLOAT_EQ(hp.attn_temperature(62), 1.0f);
  EXPECT_FLOAT_EQ(hp.attn_temperature(127), 1.0f + 0.1f * std::log(3.0f));
  spec.metadata_overrides = {{"mistral3.attention.temperature_scale", GgufValue::F32(-1.0f)}};
  expect_error(spec, Code::kCorrupt, "mistral3.attention.temperature_scale must be a finite number >= 0");
  spec.metadata_overrides = {{"mistral3.rope.scaling.yarn_beta_slow", GgufValue::F32(40.0f)}};
  expect_error(spec, Code::kCorrupt, "mistral3.rope.scaling.yarn_beta_fast must exceed yarn_beta_slow");
  // Other architectures keep the temperature to Llama 4's layers without rope.
  spec.metadata_overrides.clear();
  spec.arch = "llama";
  auto llama = load(spec);
  ASSERT_TRUE(llama.ok()) << llama.status().ToString();
  EXPECT_FALSE((*llama)->hparams().attn_temp_every_layer);
  EXPECT_FLOAT_EQ((*llama)->hparams().attn_temp_scale, 0.0f);
}

// SmolLM3: llama's tensors, no rope in every 4th layer, and nothing of Llama 4's attention.
TEST_F(ModelLoadTest, ReadsSmolLM3Hparams) {
  TestModelSpec spec;
  spec.arch = "smollm3";
  spec.n_layer = 8;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  for (int layer = 0; layer < 8; ++layer) EXPECT_EQ(hp.layer_rotates(layer), layer % 4 != 3) << layer;
  EXPECT_FALSE(hp.rope_neox || hp.qkv_bias || hp.qk_norm || hp.qk_l2_norm || hp.is_moe());
  EXPECT_EQ(hp.attn_chunk, 0);
  EXPECT_EQ(hp.first_key(0, 100), 0);
  EXPECT_FLOAT_EQ(hp.attn_temp_scale, 0.0f);
}

// Granite: llama's layers (rope on adjacent pairs) with its four multipliers, each required,
// positive and finite; granitemoe's experts as wide as feed_forward_length, renormalised.
TEST_F(ModelLoadTest, ReadsGraniteMultipliers) {
  TestModelSpec spec;
  spec.arch = "granite";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_FLOAT_EQ(hp.embd_scale, 12.0f);
  EXPECT_FLOAT_EQ(hp.attn_scale, 1.0f / 64);
  EXPECT_FLOAT_EQ(hp.kq_scale(), 1.0f / 64);
  EXPECT_FLOAT_EQ(hp.residual_scale, 0.22f);
  EXPECT_FLOAT_EQ(hp.logit_scale, 8.0f);
  EXPECT_FALSE(hp.rope_neox || hp.is_moe());
  spec.arch = "granitemoe";
  auto moe = load(spec);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ((*moe)->hparams().n_ff_exp, spec.n_ff_exp);
  EXPECT_TRUE((*moe)->hparams().expert_weights_norm);
  EXPECT_FLOAT_EQ((*moe)->hparams().residual_scale, 0.22f);
  // Llama's files leave the scales at their defaults.
  spec.arch = "llama";
  auto llama = load(spec);
  ASSERT_TRUE(llama.ok()) << llama.status().ToString();
  EXPECT_FLOAT_EQ((*llama)->hparams().attn_scale, 0.0f);
  EXPECT_FLOAT_EQ((*llama)->hparams().kq_scale(), 1.0f / 8);
  EXPECT_FLOAT_EQ((*llama)->hparams().residual_scale, 1.0f);
  EXPECT_FLOAT_EQ((*llama)->hparams().logit_scale, 1.0f);
}

TEST_F(ModelLoadTest, BadGraniteMultipliersAreNamed) {
  TestModelSpec spec;
  spec.arch = "granite";
  spec.skip_keys = {"granite.residual_scale"};
  expect_error(spec, Code::kNotFound, "missing metadata key granite.residual_scale");
  spec.skip_keys.clear();
  spec.metadata_overrides = {{"granite.logit_scale", GgufValue::F32(0.0f)}};
  expect_error(spec, Code::kCorrupt, "granite.logit_scale must be a positive finite number");
  spec.metadata_overrides = {{"granite.attention.scale", GgufValue::F32(-0.5f)}};
  expect_error(spec, Code::kCorrupt, "granite.attention.scale must be a positive finite number");
}

// Seed-OSS: llama's layers with q/k/v biases, NeoX rope and the feed-forward norm stored as
// post_attention_norm.
TEST_F(ModelLoadTest, ReadsSeedOssHparams) {
  TestModelSpec spec;
  spec.arch = "seed_oss";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.rope_neox && hp.qkv_bias);
  EXPECT_FALSE(hp.qk_norm || hp.is_moe() || hp.post_norms);
  EXPECT_EQ(hp.ffn_norm_name, "post_attention_norm");
  spec.skip_tensors = {"blk.1.post_attention_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.post_attention_norm.weight");
}

// Ling 2.0 (bailingmoe2): one attn_qkv, QK-norm, a leading dense layer, sigmoid routing with a
// selection bias within 2 of 4 expert groups, renormalised and scaled, an ungated shared expert,
// and the NextN block left out of the layers run.
TEST_F(ModelLoadTest, ReadsBailingMoe2Hparams) {
  TestModelSpec spec;
  spec.arch = "bailingmoe2";
  spec.n_layer = 3;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 3);
  EXPECT_EQ(hp.n_nextn_layers, 1);
  EXPECT_TRUE(hp.rope_neox && hp.qk_norm && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FALSE(hp.qkv_bias || hp.shexp_gated);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_EQ(hp.n_expert_groups, 4);
  EXPECT_EQ(hp.n_expert_groups_used, 2);
  EXPECT_EQ(hp.n_ff_shexp, spec.n_ff_exp);
  EXPECT_FLOAT_EQ(hp.expert_weights_scale, spec.expert_weights_scale);
  EXPECT_FALSE(hp.layer_is_moe(0));
  EXPECT_TRUE(hp.layer_is_moe(1) && hp.layer_is_moe(2));
}

// dots.llm1 (dots1): QK-norm, a leading dense layer, sigmoid routing with a selection bias,
// renormalised and scaled as the file says, an ungated shared expert one expert wide, no NextN.
TEST_F(ModelLoadTest, ReadsDots1Hparams) {
  TestModelSpec spec;
  spec.arch = "dots1";
  spec.n_layer = 3;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.n_layer, 3);
  EXPECT_EQ(hp.n_nextn_layers, 0);
  EXPECT_TRUE(hp.rope_neox && hp.qk_norm && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FALSE(hp.qkv_bias || hp.shexp_gated);
  EXPECT_EQ(hp.n_rot, hp.head_dim);
  EXPECT_EQ(hp.n_ff_shexp, spec.n_ff_exp);
  EXPECT_EQ(hp.n_expert_groups, 1);
  EXPECT_FALSE(hp.layer_is_moe(0));
  EXPECT_TRUE(hp.layer_is_moe(2));
  // Without expert_gating_func the router is dots.llm1's sigmoid.
  spec.skip_keys = {"dots1.expert_gating_func"};
  auto defaulted = load(spec);
  ASSERT_TRUE(defaulted.ok()) << defaulted.status().ToString();
  EXPECT_TRUE((*defaulted)->hparams().expert_sigmoid);
}

// Mistral Small 4 (mistral4): DeepSeek's latent attention from the newer layout, softmax routing
// when the file has no gating key, weights renormalised, and its experts' gate and up rows read
// from one ffn_gate_up_exps (a file with neither form names the split one; fused expert biases are
// refused by name).
TEST_F(ModelLoadTest, ReadsMistral4Hparams) {
  TestModelSpec spec;
  spec.arch = "mistral4";
  spec.n_layer = 3;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.is_mla());
  EXPECT_EQ(hp.n_head_kv, 1);
  EXPECT_EQ(hp.mla_nope_dim, 64);
  EXPECT_FALSE(hp.expert_sigmoid || hp.rope_neox);
  EXPECT_TRUE(hp.expert_weights_norm);
  EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1) && hp.layer_is_moe(2));
  spec.skip_tensors = {"blk.2.ffn_gate_up_exps.weight"};
  expect_error(spec, Code::kNotFound, "blk.2.ffn_gate_exps.weight");
  spec.skip_tensors.clear();
  spec.metadata_overrides = {};
  TestModelSpec biased = spec;
  biased.arch = "qwen3moe";
  biased.fused_gate_up_exps = true;
  auto fused = load(biased);  // any MoE file's experts may come fused
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
}

// GLM-5 (glm-dsa): DeepSeek's latent layers in the split form, sigmoid routing when the file names
// no gating function, the NextN block skipped, the indexer's top_k kept (its tensors are loaded by
// nobody: they count in no step's bytes).
TEST_F(ModelLoadTest, ReadsGlmDsaHparams) {
  TestModelSpec spec;
  spec.arch = "glm-dsa";
  spec.skip_keys = {"glm-dsa.expert_gating_func"};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.is_mla() && hp.expert_sigmoid && hp.expert_weights_norm && !hp.shexp_gated && !hp.rope_neox);
  EXPECT_EQ(hp.n_layer, 2);
  EXPECT_EQ(hp.n_nextn_layers, 1);
  EXPECT_EQ(hp.sparse_attn_top_k, 16);
  EXPECT_EQ(hp.n_head_kv, 1);
  EXPECT_TRUE(!hp.layer_is_moe(0) && hp.layer_is_moe(1));
  TestModelSpec plain = spec;  // the same weights as deepseek2, without the indexer and NextN block
  plain.arch = "deepseek2";
  plain.mla_split = true;
  plain.skip_keys.clear();
  auto d = load(plain);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*m)->decode_weight_bytes(), (*d)->decode_weight_bytes());
  EXPECT_GT((*m)->weight_bytes(), (*d)->weight_bytes());
  spec.metadata_overrides = {{"glm-dsa.attention.indexer.top_k", GgufValue::I32(-1)}};
  expect_error(spec, Code::kCorrupt, "glm-dsa.attention.indexer.top_k");
}

// Hunyuan-A13B (hunyuan-moe): QK-norm after the rotation, weights renormalised, an ungated shared
// expert of expert_shared_feed_forward_length.
TEST_F(ModelLoadTest, ReadsHunyuanMoeHparams) {
  TestModelSpec spec;
  spec.arch = "hunyuan-moe";
  spec.n_ff_shexp = 192;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.qk_norm && hp.qk_norm_after_rope && hp.rope_neox && hp.expert_weights_norm);
  EXPECT_FALSE(hp.expert_sigmoid || hp.shexp_gated);
  EXPECT_EQ(hp.n_ff_shexp, 192);
  EXPECT_TRUE(hp.layer_is_moe(0));
  spec.skip_tensors = {"blk.1.ffn_up_shexp.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.ffn_up_shexp.weight");
}

// MiniCPM (minicpm): Llama's layers with its multipliers, the model's own when the file has none
// (embeddings times 12, blocks' outputs times 1.4 / sqrt(n_layer), logits divided by n_embd / 256),
// the file's when it has them; each must be positive.
TEST_F(ModelLoadTest, ReadsMiniCpmScales) {
  TestModelSpec spec;
  spec.arch = "minicpm";
  spec.n_layer = 4;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_FLOAT_EQ(hp.embd_scale, 12.0f);
  EXPECT_FLOAT_EQ(hp.residual_scale, 0.7f);  // 1.4 / sqrt(4)
  EXPECT_FLOAT_EQ(hp.logit_scale, 1.0f);     // 256 / 256
  EXPECT_TRUE(hp.tied_embeddings && !hp.rope_neox);
  spec.metadata_overrides = {{"minicpm.embedding_scale", GgufValue::F32(10.0f)},
                             {"minicpm.residual_scale", GgufValue::F32(0.25f)},
                             {"minicpm.logit_scale", GgufValue::F32(16.0f)}};
  auto scaled = load(spec);
  ASSERT_TRUE(scaled.ok()) << scaled.status().ToString();
  EXPECT_FLOAT_EQ((*scaled)->hparams().embd_scale, 10.0f);
  EXPECT_FLOAT_EQ((*scaled)->hparams().residual_scale, 0.25f);
  EXPECT_FLOAT_EQ((*scaled)->hparams().logit_scale, 16.0f);
  spec.metadata_overrides = {{"minicpm.residual_scale", GgufValue::F32(0.0f)}};
  expect_error(spec, Code::kCorrupt, "minicpm.residual_scale must be > 0");
}

// Cohere (cohere2): layer norms with the file's eps, parallel blocks (no ffn_norm read), a
// sliding window in three of every four layers, no rope in the fourth, logits times the scale.
TEST_F(ModelLoadTest, ReadsCohere2Hparams) {
  TestModelSpec spec;
  spec.arch = "cohere2";
  spec.n_layer = 8;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.layer_norm && hp.parallel_block && hp.tied_embeddings);
  EXPECT_FALSE(hp.rope_neox || hp.qk_norm || hp.qkv_bias);
  EXPECT_FLOAT_EQ(hp.rms_eps, 1e-5f);
  EXPECT_FLOAT_EQ(hp.logit_scale, 4.0f);  // logits divided by 4: times 0.25
  EXPECT_EQ(hp.sliding_window, spec.sliding_window);
  for (int layer = 0; layer < 8; ++layer) {
    EXPECT_EQ(hp.layer_slides(layer), layer % 4 != 3) << layer;
    EXPECT_EQ(hp.layer_rotates(layer), layer % 4 != 3) << layer;
  }
  spec.skip_keys = {"cohere2.logit_scale"};
  expect_error(spec, Code::kNotFound, "missing metadata key cohere2.logit_scale");
  spec.skip_keys = {"cohere2.attention.layer_norm_epsilon"};
  expect_error(spec, Code::kNotFound, "missing metadata key cohere2.attention.layer_norm_epsilon");
}

// Cohere's MoE (cohere2_moe, North): RMS norms, parallel blocks (no ffn_norm read), a window in
// the layers the file's pattern flags, rope there and in the dense lead, sigmoid gate values used
// as they are; logit_scale 0 leaves the logits unscaled; the pattern must say a flag per layer.
TEST_F(ModelLoadTest, ReadsCohere2MoeHparams) {
  TestModelSpec spec;
  spec.arch = "cohere2_moe";
  spec.n_layer = 6;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.parallel_block && hp.expert_sigmoid);
  EXPECT_FALSE(hp.layer_norm || hp.rope_neox || hp.qk_norm || hp.expert_weights_norm || hp.tied_embeddings);
  EXPECT_FLOAT_EQ(hp.rms_eps, 1e-6f);
  EXPECT_FLOAT_EQ(hp.logit_scale, 4.0f);
  EXPECT_EQ(hp.sliding_window, spec.sliding_window);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  EXPECT_EQ(hp.n_ff_shexp, 0);
  for (int layer = 0; layer < 6; ++layer) {
    EXPECT_EQ(hp.layer_slides(layer), layer % 4 != 0) << layer;
    EXPECT_EQ(hp.layer_rotates(layer), layer != 4) << layer;  // layer 0: full, but dense
    EXPECT_EQ(hp.layer_is_moe(layer), layer != 0) << layer;
  }
  spec.metadata_overrides = {{"cohere2_moe.logit_scale", GgufValue::F32(0.0f)}};
  auto unscaled = load(spec);
  ASSERT_TRUE(unscaled.ok()) << unscaled.status().ToString();
  EXPECT_FLOAT_EQ((*unscaled)->hparams().logit_scale, 1.0f);
  spec.metadata_overrides = {{"cohere2_moe.attention.sliding_window_pattern", GgufValue::Bool(true)}};
  auto all_slide = load(spec);
  ASSERT_TRUE(all_slide.ok()) << all_slide.status().ToString();
  EXPECT_TRUE((*all_slide)->hparams().layer_slides(4) && (*all_slide)->hparams().layer_rotates(4));
  spec.metadata_overrides = {{"cohere2_moe.attention.sliding_window_pattern",
                              GgufValue::Array(GgufType::kBool, {GgufValue::Bool(true), GgufValue::Bool(false)})}};
  expect_error(spec, Code::kCorrupt, "cohere2_moe.attention.sliding_window_pattern");
  spec.metadata_overrides = {{"cohere2_moe.logit_scale", GgufValue::F32(-1.0f)}};
  expect_error(spec, Code::kCorrupt, "cohere2_moe.logit_scale must not be negative");
  spec.metadata_overrides = {};
  for (const char* key : {"cohere2_moe.logit_scale", "cohere2_moe.attention.sliding_window",
                          "cohere2_moe.attention.sliding_window_pattern"}) {
    spec.skip_keys = {key};
    expect_error(spec, Code::kNotFound, std::string("missing metadata key ") + key);
  }
  spec.skip_keys = {};
  spec.skip_tensors = {"blk.0.ffn_gate.weight"};
  expect_error(spec, Code::kNotFound, "blk.0.ffn_gate.weight");
  spec.skip_tensors = {"blk.1.ffn_gate_inp.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.ffn_gate_inp.weight");
}

// Command R / R+ (command-r): Cohere's norms and parallel blocks, every layer rotating over all
// keys, and R+'s q/k norms read as a row of gains per head (a 1-D norm of one head is refused).
TEST_F(ModelLoadTest, ReadsCommandRHparams) {
  TestModelSpec spec;
  spec.arch = "command-r";
  spec.n_layer = 4;
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.layer_norm && hp.parallel_block && hp.tied_embeddings && hp.qk_norm && hp.qk_norm_per_head_gains);
  EXPECT_FALSE(hp.rope_neox || hp.qkv_bias);
  EXPECT_FLOAT_EQ(hp.logit_scale, 4.0f);
  EXPECT_EQ(hp.sliding_window, 0);
  for (int layer = 0; layer < 4; ++layer) {
    EXPECT_FALSE(hp.layer_slides(layer)) << layer;
    EXPECT_TRUE(hp.layer_rotates(layer)) << layer;
  }
  spec.skip_keys = {"command-r.logit_scale"};
  expect_error(spec, Code::kNotFound, "missing metadata key command-r.logit_scale");
  spec.skip_keys = {};
  spec.skip_tensors = {"blk.1.attn_k_norm.weight"};
  expect_error(spec, Code::kNotFound, "blk.1.attn_k_norm.weight");
}

}  // namespace
}  // namespace strata
