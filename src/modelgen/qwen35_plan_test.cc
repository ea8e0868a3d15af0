// qwen35 / qwen35moe (Qwen3.5) presets and plans: the hybrid layers' tensors and shapes as
// llama.cpp's converter writes them, the Qwen3.5 presets' shapes and sizes, --layers (the
// interval kept, a cut without an attending layer refused), small presets as qwen35, other archs
// on Qwen3.5's presets, and the types the Q4_K_M mix gives the new tensors.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// Qwen3.5-35B-A3B's text part: about 34.7B parameters (35B with its vision tower).
TEST(Qwen35PresetTest, Qwen35_35bA3bHasTheRealModelsShape) {
  auto s = model_preset("", "qwen3.5-35b-a3b");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->arch, "qwen35moe");
  EXPECT_TRUE(s->qk_norm);
  EXPECT_FALSE(s->qkv_bias || s->tied_embeddings || s->post_norms || s->sigmoid_routing);
  EXPECT_EQ(s->n_vocab, 248320);
  EXPECT_EQ(s->n_ctx, 262144);
  EXPECT_EQ(s->n_embd, 2048);
  EXPECT_EQ(s->n_layer, 40);
  EXPECT_EQ(s->n_head, 16);
  EXPECT_EQ(s->n_head_kv, 2);
  EXPECT_EQ(s->head_dim, 256);
  EXPECT_EQ(s->n_expert, 256);
  EXPECT_EQ(s->n_expert_used, 8);
  EXPECT_EQ(s->n_ff_exp, 512);
  EXPECT_EQ(s->n_ff_shexp, 512);
  EXPECT_EQ(s->rope_freq_base, 1e7f);
  EXPECT_EQ(s->full_attn_interval, 4);
  EXPECT_EQ(s->ssm_conv_kernel, 4);
  EXPECT_EQ(s->ssm_n_k_heads, 16);
  EXPECT_EQ(s->ssm_head_k_dim, 128);
  EXPECT_EQ(s->ssm_n_v_heads, 32);
  EXPECT_EQ(s->ssm_head_v_dim, 128);
  auto r = planned_model("", "qwen3.5-35b-a3b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->n_params, 34'660'610'688u);
}

// Qwen3.5-9B (about 9.0B parameters) and 27B (26.9B): their delta-net layers' widths differ
// (27B: 48 value heads), their attention heads too.
TEST(Qwen35PresetTest, DensePresetsHaveTheRealModelsShapes) {
  auto r9 = planned_model("", "qwen3.5-9b", DType::kBF16);
  ASSERT_TRUE(r9.ok()) << r9.status().ToString();
  EXPECT_EQ(r9->spec.arch, "qwen35");
  EXPECT_EQ(r9->spec.n_layer, 32);
  EXPECT_EQ(r9->n_params, 8'953'803'264u);
  auto t9 = planned_tensors_by_name(r9->plan);
  EXPECT_EQ(t9["blk.0.attn_qkv.weight"].dims, (Dims{4096, 8192}));
  EXPECT_EQ(t9["blk.0.attn_gate.weight"].dims, (Dims{4096, 4096}));
  EXPECT_EQ(t9["blk.0.ffn_up.weight"].dims, (Dims{4096, 12288}));
  EXPECT_EQ(t9["blk.3.attn_q.weight"].dims, (Dims{4096, 8192}));
  EXPECT_EQ(t9["blk.3.attn_k.weight"].dims, (Dims{4096, 1024}));

  auto r27 = planned_model("", "qwen3.5-27b", DType::kBF16);
  ASSERT_TRUE(r27.ok()) << r27.status().ToString();
  EXPECT_EQ(r27->spec.n_layer, 64);
  EXPECT_EQ(r27->n_params, 26'895'998'464u);
  auto t27 = planned_tensors_by_name(r27->plan);
  EXPECT_EQ(t27["blk.0.attn_qkv.weight"].dims, (Dims{5120, 10240}));
  EXPECT_EQ(t27["blk.0.attn_gate.weight"].dims, (Dims{5120, 6144}));
  EXPECT_EQ(t27["blk.0.ssm_alpha.weight"].dims, (Dims{5120, 48}));
  EXPECT_EQ(t27["blk.0.ssm_conv1d.weight"].dims, (Dims{4, 10240}));
  EXPECT_EQ(t27["blk.0.ssm_out.weight"].dims, (Dims{6144, 5120}));
  EXPECT_EQ(t27["blk.63.attn_q.weight"].dims, (Dims{5120, 12288}));
  EXPECT_EQ(t27["blk.63.attn_output.weight"].dims, (Dims{6144, 5120}));
}

// Qwen3.5-35B-A3B cut to 4 layers: blocks 0-2 delta-net layers, block 3 attention, every block
// with post_attention_norm, experts and a gated shared expert.
TEST(Qwen35TensorPlanTest, DeltaNetAndGatedAttentionLayersHaveLlamaCppsTensors) {
  auto t = planned_tensors_of("", "qwen3.5-35b-a3b", DType::kF32, 4);
  EXPECT_EQ(t.size(), 3u + 3u * 19u + 16u);
  for (int l = 0; l < 3; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_qkv.weight"].dims, (Dims{2048, 8192})) << p;
    EXPECT_EQ(t[p + "attn_gate.weight"].dims, (Dims{2048, 4096})) << p;
    EXPECT_EQ(t[p + "ssm_conv1d.weight"].dims, (Dims{4, 8192})) << p;
    EXPECT_EQ(t[p + "ssm_dt.bias"].dims, (Dims{32})) << p;
    EXPECT_EQ(t[p + "ssm_a"].dims, (Dims{32})) << p;
    EXPECT_EQ(t[p + "ssm_beta.weight"].dims, (Dims{2048, 32})) << p;
    EXPECT_EQ(t[p + "ssm_alpha.weight"].dims, (Dims{2048, 32})) << p;
    EXPECT_EQ(t[p + "ssm_norm.weight"].dims, (Dims{128})) << p;
    EXPECT_EQ(t[p + "ssm_out.weight"].dims, (Dims{4096, 2048})) << p;
    EXPECT_EQ(t[p + "ssm_a"].kind, WeightKind::kSsmA) << p;
    EXPECT_EQ(t[p + "ssm_dt.bias"].kind, WeightKind::kSsmDtBias) << p;
    EXPECT_EQ(t.count(p + "attn_q.weight"), 0u) << p;
  }
  EXPECT_EQ(t["blk.3.attn_q.weight"].dims, (Dims{2048, 8192}));  // 16 heads of q and 16 of gate
  EXPECT_EQ(t["blk.3.attn_k.weight"].dims, (Dims{2048, 512}));
  EXPECT_EQ(t["blk.3.attn_v.weight"].dims, (Dims{2048, 512}));
  EXPECT_EQ(t["blk.3.attn_q_norm.weight"].dims, (Dims{256}));
  EXPECT_EQ(t["blk.3.attn_k_norm.weight"].dims, (Dims{256}));
  EXPECT_EQ(t["blk.3.attn_output.weight"].dims, (Dims{4096, 2048}));
  EXPECT_EQ(t.count("blk.3.attn_qkv.weight"), 0u);
  for (int l = 0; l < 4; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "post_attention_norm.weight"].dims, (Dims{2048})) << p;
    EXPECT_EQ(t.count(p + "ffn_norm.weight"), 0u) << p;
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].dims, (Dims{2048, 256})) << p;
    EXPECT_EQ(t[p + "ffn_down_exps.weight"].dims, (Dims{512, 2048, 256})) << p;
    EXPECT_EQ(t[p + "ffn_gate_inp_shexp.weight"].dims, (Dims{2048})) << p;
    EXPECT_EQ(t[p + "ffn_up_shexp.weight"].dims, (Dims{2048, 512})) << p;
  }
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{2048, 248320}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{2048, 248320}));
}

// Q4_K_M as ik_llama.cpp's quantizer makes it: the delta-net attn_qkv Q5_K (its attn_qkv rule),
// attn_gate / ssm_out / ssm_beta / ssm_alpha the base type, the convolution and the 1-D tensors
// F32; attn_v raised by its index among the 10 attn_v tensors against 40 layers (index 7, block
// 31, raised; index 8 and 9, blocks 35 and 39, not, though they are in the last eighth).
TEST(Qwen35TensorPlanTest, Q4KMGivesIkLlamaCppsTypes) {
  auto t = planned_tensors_of("", "qwen3.5-35b-a3b", DType::kQ4_K);
  EXPECT_EQ(t["blk.0.attn_qkv.weight"].type, DType::kQ5_K);
  EXPECT_EQ(t["blk.0.attn_gate.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_out.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_beta.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_alpha.weight"].type, DType::kQ4_K);
  for (const char* f32 : {"blk.0.ssm_conv1d.weight", "blk.0.ssm_a", "blk.0.ssm_dt.bias", "blk.0.ssm_norm.weight",
                          "blk.3.attn_q_norm.weight", "blk.0.ffn_gate_inp.weight", "blk.0.ffn_gate_inp_shexp.weight"}) {
    EXPECT_EQ(t[f32].type, DType::kF32) << f32;
  }
  EXPECT_EQ(t["blk.3.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.31.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.35.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.39.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.3.attn_q.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_down_exps.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.5.ffn_down_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ4_K);
}

// --layers keeps attention in every 4th layer (6: block 3 attends, 4 and 5 do not); fewer layers
// than the interval would leave none and are refused.
TEST(Qwen35PresetTest, LayersKeepTheIntervalAndACutWithoutAttentionIsRefused) {
  auto t = planned_tensors_of("", "qwen3.5-9b", DType::kQ8_0, 6);
  EXPECT_EQ(t.count("blk.3.attn_q.weight"), 1u);
  for (const char* delta : {"blk.0.", "blk.2.", "blk.4.", "blk.5."}) {
    EXPECT_EQ(t.count(std::string(delta) + "attn_qkv.weight"), 1u) << delta;
    EXPECT_EQ(t.count(std::string(delta) + "attn_q.weight"), 0u) << delta;
  }
  EXPECT_EQ(t.count("blk.6.attn_norm.weight"), 0u);
  auto cut = planned_model("", "qwen3.5-35b-a3b", DType::kQ4_K, 3);
  EXPECT_EQ(cut.status().code(), Code::kInvalidArgument);
  EXPECT_NE(cut.status().ToString().find("every 4th layer: 3 layers leave none"), std::string::npos)
      << cut.status().ToString();
}

// tiny as qwen35 and moe-tiny as qwen35moe: 4 layers (one attends), n_head key heads and
// 2 * n_head value heads of head_dim / 2; qwen35moe's shared expert one expert wide. A dense
// preset is not qwen35moe, nor a MoE one qwen35.
TEST(Qwen35PresetTest, SmallPresetsTakeQwen35sProportions) {
  auto tiny = model_preset("qwen35", "tiny");
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_EQ(tiny->n_layer, 4);
  EXPECT_EQ(tiny->full_attn_interval, 4);
  EXPECT_EQ(tiny->ssm_conv_kernel, 4);
  EXPECT_EQ(tiny->ssm_n_k_heads, 4);
  EXPECT_EQ(tiny->ssm_head_k_dim, 8);
  EXPECT_EQ(tiny->ssm_n_v_heads, 8);
  EXPECT_EQ(tiny->ssm_head_v_dim, 8);
  EXPECT_TRUE(tiny->qk_norm);
  auto t = planned_tensors_of("qwen35", "tiny", DType::kF32);
  EXPECT_EQ(t["blk.0.attn_qkv.weight"].dims, (Dims{64, 128}));
  EXPECT_EQ(t["blk.2.ssm_conv1d.weight"].dims, (Dims{4, 128}));
  EXPECT_EQ(t["blk.3.attn_q.weight"].dims, (Dims{64, 128}));
  EXPECT_EQ(t["blk.3.ffn_gate.weight"].dims, (Dims{64, 128}));

  auto moe = model_preset("qwen35moe", "moe-tiny");
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ(moe->n_layer, 4);
  EXPECT_EQ(moe->n_ff_shexp, 256);
  EXPECT_EQ(moe->ssm_head_k_dim, 16);
  EXPECT_EQ(moe->ssm_n_v_heads, 8);
  auto tm = planned_tensors_of("qwen35moe", "moe-tiny", DType::kQ8_0);
  EXPECT_EQ(tm["blk.0.attn_qkv.weight"].dims, (Dims{128, 256}));
  EXPECT_EQ(tm["blk.1.ffn_gate_inp_shexp.weight"].dims, (Dims{128}));
  EXPECT_EQ(tm["blk.1.ffn_down_shexp.weight"].dims, (Dims{256, 128}));
  EXPECT_EQ(model_preset("qwen35", "moe-tiny").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(model_preset("qwen35moe", "tiny").status().code(), Code::kInvalidArgument);
}

// Qwen3.5's presets as qwen3 / qwen3moe: every layer attends with plain queries, no ssm_* tensor,
// no shared expert; a delta-net layout on an arch without one is refused.
TEST(Qwen35PresetTest, OtherArchsOnQwen35PresetsDropTheHybridLayers) {
  auto dense = model_preset("qwen3", "qwen3.5-9b");
  ASSERT_TRUE(dense.ok()) << dense.status().ToString();
  EXPECT_EQ(dense->full_attn_interval, 0);
  EXPECT_EQ(dense->ssm_n_v_heads, 0);
  auto t = planned_tensors_of("qwen3", "qwen3.5-9b", DType::kQ8_0, 4);
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{4096, 4096}));
  EXPECT_EQ(t.count("blk.0.attn_qkv.weight") + t.count("blk.0.ssm_a"), 0u);
  EXPECT_EQ(t.count("blk.0.ffn_norm.weight"), 1u);
  auto moe = model_preset("qwen3moe", "qwen3.5-35b-a3b");
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ(moe->full_attn_interval, 0);
  EXPECT_EQ(moe->n_ff_shexp, 0);
  ModelSpec hybrid_qwen3 = *dense;
  hybrid_qwen3.full_attn_interval = 4;
  EXPECT_EQ(plan_tensors(hybrid_qwen3, DType::kF32).status().code(), Code::kInvalidArgument);
}

// Qwen3-Next-80B-A3B: 48 layers of 512 experts (10 used) beside a gated shared expert, Qwen2's
// vocabulary; about 80B parameters, as its model card says (77.5B of them experts). Its delta-net
// layers hold q/k/v/z in one ssm_in (16 key heads: 2 x 128 + 2 x 2 x 128 rows each) and b/a in one
// ssm_ba; no attn_qkv, attn_gate, ssm_beta or ssm_alpha.
TEST(Qwen3NextPresetTest, HasTheRealModelsShapeWithItsFusedDeltaNetInputs) {
  auto r = planned_model("", "qwen3-next-80b-a3b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "qwen3next");
  EXPECT_EQ(r->spec.n_layer, 48);
  EXPECT_EQ(r->spec.n_expert, 512);
  EXPECT_EQ(r->spec.n_expert_used, 10);
  EXPECT_EQ(r->spec.n_ff_shexp, 512);
  EXPECT_EQ(r->spec.full_attn_interval, 4);
  EXPECT_NEAR(static_cast<double>(r->n_params), 80e9, 1e9);
  auto t = planned_tensors_of("", "qwen3-next-80b-a3b", DType::kF32, 4);
  for (int l = 0; l < 3; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "ssm_in.weight"].dims, (Dims{2048, 12288})) << p;
    EXPECT_EQ(t[p + "ssm_ba.weight"].dims, (Dims{2048, 64})) << p;
    EXPECT_EQ(t[p + "ssm_conv1d.weight"].dims, (Dims{4, 8192})) << p;
    EXPECT_EQ(t[p + "ssm_out.weight"].dims, (Dims{4096, 2048})) << p;
    for (const char* unfused : {"attn_qkv.weight", "attn_gate.weight", "ssm_beta.weight", "ssm_alpha.weight"}) {
      EXPECT_EQ(t.count(p + unfused), 0u) << p << unfused;
    }
    EXPECT_EQ(t[p + "ffn_gate_inp_shexp.weight"].dims, (Dims{2048})) << p;
  }
  EXPECT_EQ(t["blk.3.attn_q.weight"].dims, (Dims{2048, 8192}));
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{2048, 151936}));
  auto tiny = planned_tensors_of("qwen3next", "moe-tiny", DType::kQ8_0);
  EXPECT_EQ(tiny["blk.0.ssm_in.weight"].dims, (Dims{128, 384}));
  EXPECT_EQ(tiny["blk.0.ssm_ba.weight"].dims, (Dims{128, 16}));
}

}  // namespace
}  // namespace strata
