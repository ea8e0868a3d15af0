// bailingmoe3 (Ling 3.0) and kimi-linear (Kimi Linear) presets and plans: Kimi-Linear-48B-A3B's shape,
// parameters counted by hand and its tensors' names, shapes and types; both archs on the deepseek2-family
// presets and on another MoE preset (mkmodel's own pattern, latent attention in every 4th layer), --layers
// cuts that keep the pattern, and the specs a check refuses.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

constexpr const char* kKimiPattern = "KKK*KKK*KKK*KKK*KKK*KKK*KK*";

// Kimi-Linear-48B-A3B: its config's shape (model_presets.cc), its 27 layers' kinds from full_attn_layers
// [4, 8, 12, 16, 20, 24, 27] (1-indexed), Kimi's routing, no YaRN, attn_kv_b split as llama.cpp's converter
// writes it.
TEST(KdaPresetTest, KimiLinear48bA3bHasItsConfigsShape) {
  auto s = model_preset("", "kimi-linear-48b-a3b");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->arch, "kimi-linear");
  EXPECT_TRUE(s->kda && s->deepseek2 && s->split_kv_b && s->sigmoid_routing && s->expert_weights_norm);
  EXPECT_FALSE(s->tied_embeddings || s->qk_norm || s->mistral4 || s->glm_dsa);
  EXPECT_EQ(s->n_vocab, 163840);
  EXPECT_EQ(s->n_ctx, 1048576);
  EXPECT_EQ(s->n_embd, 2304);
  EXPECT_EQ(s->n_layer, 27);
  EXPECT_EQ(s->n_head, 32);
  EXPECT_EQ(s->head_dim, 128 + 64);
  EXPECT_EQ(s->rope_dim, 64);
  EXPECT_EQ(s->v_head_dim, 128);
  EXPECT_EQ(s->q_lora_rank, 0);
  EXPECT_EQ(s->kv_lora_rank, 512);
  EXPECT_EQ(s->ssm_head_v_dim, 128);
  EXPECT_EQ(s->ssm_conv_kernel, 4);
  EXPECT_EQ(s->kda_rank, 128);
  EXPECT_EQ(s->n_ff, 9216);
  EXPECT_EQ(s->n_dense_lead, 1);
  EXPECT_EQ(s->n_expert, 256);
  EXPECT_EQ(s->n_expert_used, 8);
  EXPECT_EQ(s->n_ff_exp, 1024);
  EXPECT_EQ(s->n_ff_shexp, 1024);
  EXPECT_FLOAT_EQ(s->expert_weights_scale, 2.446f);
  EXPECT_EQ(s->n_expert_groups, 0);
  EXPECT_EQ(s->rope_yarn_factor, 1.0f);
  EXPECT_EQ(s->rope_yarn_log_mul, 0.0f);
  EXPECT_FLOAT_EQ(s->rms_eps, 1e-5f);
  EXPECT_EQ(kda_layer_pattern(*s), kKimiPattern);
  for (int l : {3, 7, 11, 15, 19, 23, 26}) EXPECT_TRUE(layer_attends(*s, l)) << l;
  for (int l : {0, 1, 2, 4, 24, 25}) EXPECT_FALSE(layer_attends(*s, l)) << l;
}

// 49,122,681,728 parameters (its card: 48B), by hand: a KDA layer 2304 (attn_norm) + 3 x 2304 x 4096 (q, k,
// v) + 3 x 4 x 4096 (the convolutions) + 2 x (2304 x 128 + 128 x 4096) (decay and gate inputs through rank
// 128) + 2304 x 32 (beta) + 32 (rates) + 4096 (biases) + 128 (norm) + 4096 x 2304 (output) = 39,516,576; a
// latent layer 2304 + 2304 x 32 x 192 (attn_q) + 2304 x 576 (attn_kv_a_mqa) + 512 + 32 x 512 x (128 + 128)
// (attn_k_b, attn_v_b) + 32 x 128 x 2304 = 29,117,184; the dense feed-forward 2304 + 3 x 2304 x 9216; an MoE
// one 2304 + 2304 x 256 (router) + 256 (selection bias) + 3 x 2304 x 1024 x 257 (256 experts and the shared
// one) = 1,819,609,600; embeddings and output 2 x 2304 x 163840 and the output norm.
TEST(KdaPresetTest, KimiLinear48bA3bParametersCountedByHand) {
  auto r = planned_model("", "kimi-linear-48b-a3b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  constexpr uint64_t kKdaLayer = 2304 + 3ull * 2304 * 4096 + 3ull * 4 * 4096 + 2ull * (2304 * 128 + 128 * 4096) +
                                 2304ull * 32 + 32 + 4096 + 128 + 4096ull * 2304;
  constexpr uint64_t kLatentLayer =
      2304 + 2304ull * 32 * 192 + 2304ull * 576 + 512 + 32ull * 512 * (128 + 128) + 32ull * 128 * 2304;
  constexpr uint64_t kDense = 2304 + 3ull * 2304 * 9216;
  constexpr uint64_t kMoe = 2304 + 2304ull * 256 + 256 + 3ull * 2304 * 1024 * 257;
  EXPECT_EQ(kKdaLayer, 39'516'576u);
  EXPECT_EQ(kLatentLayer, 29'117'184u);
  EXPECT_EQ(kMoe, 1'819'609'600u);
  EXPECT_EQ(r->n_params, 20 * kKdaLayer + 7 * kLatentLayer + kDense + 26 * kMoe + 2ull * 2304 * 163840 + 2304);
  EXPECT_EQ(r->n_params, 49'122'681'728u);
  // 3 + layer 0 (16 KDA + 4 dense) + 19 KDA layers of 16 + 9 (MoE) + 7 latent layers of 7 + 9.
  EXPECT_EQ(r->plan.tensors.size(), 3u + 20u + 19u * 25u + 7u * 16u);
}

// Its tensors as llama.cpp's converter writes them: a KDA layer's q/k/v with a [taps, 1, channels]
// convolution each, ssm_f_a / ssm_f_b and ssm_g_a / ssm_g_b through rank 128, beta per head, the rates
// {1, heads}, a bias per channel, the norm of a head; a latent layer's attn_q (no bottleneck) and split
// attn_k_b / attn_v_b, no gate; layer 0 dense, the others experts with a selection bias and a shared
// expert of the expert width.
TEST(KdaPresetTest, KimiLinearTensorsHaveTheConvertersNamesAndShapes) {
  auto t = planned_tensors_of("", "kimi-linear-48b-a3b", DType::kBF16);
  for (const char* part : {"q", "k", "v"}) {
    EXPECT_EQ(t[std::string("blk.0.attn_") + part + ".weight"].dims, (Dims{2304, 4096})) << part;
    EXPECT_EQ(t[std::string("blk.25.ssm_conv1d_") + part + ".weight"].dims, (Dims{4, 1, 4096})) << part;
  }
  for (const char* input : {"ssm_f", "ssm_g"}) {
    EXPECT_EQ(t[std::string("blk.0.") + input + "_a.weight"].dims, (Dims{2304, 128})) << input;
    EXPECT_EQ(t[std::string("blk.0.") + input + "_b.weight"].dims, (Dims{128, 4096})) << input;
  }
  EXPECT_EQ(t["blk.0.ssm_beta.weight"].dims, (Dims{2304, 32}));
  EXPECT_EQ(t["blk.0.ssm_a"].dims, (Dims{1, 32}));
  EXPECT_EQ(t["blk.0.ssm_a"].kind, WeightKind::kSsmA);  // -exp(A_log)
  EXPECT_EQ(t["blk.0.ssm_dt.bias"].dims, (Dims{4096}));
  EXPECT_EQ(t["blk.0.ssm_norm.weight"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.attn_output.weight"].dims, (Dims{4096, 2304}));
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{2304, 9216}));
  EXPECT_EQ(t.count("blk.0.attn_kv_a_mqa.weight"), 0u);
  for (const char* latent : {"blk.3.", "blk.26."}) {
    const std::string p = latent;
    EXPECT_EQ(t[p + "attn_q.weight"].dims, (Dims{2304, 32 * 192})) << p;
    EXPECT_EQ(t[p + "attn_kv_a_mqa.weight"].dims, (Dims{2304, 512 + 64})) << p;
    EXPECT_EQ(t[p + "attn_k_b.weight"].dims, (Dims{128, 512, 32})) << p;
    EXPECT_EQ(t[p + "attn_v_b.weight"].dims, (Dims{512, 128, 32})) << p;
    EXPECT_EQ(t[p + "attn_output.weight"].dims, (Dims{32 * 128, 2304})) << p;
    for (const char* absent : {"attn_gate.weight", "attn_kv_b.weight", "attn_q_a.weight", "ssm_a", "attn_v.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.26.ffn_gate_exps.weight"].dims, (Dims{2304, 1024, 256}));
  EXPECT_EQ(t["blk.1.exp_probs_b.bias"].dims, (Dims{256}));
  EXPECT_EQ(t["blk.1.ffn_down_shexp.weight"].dims, (Dims{1024, 2304}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{2304, 163840}));
}

// In Q4_K_M the convolutions, rates, biases and norms stay F32 (llama.cpp's quantizer keeps them); the
// rank-128 inputs' 128-wide rows fall back to Q5_0; attn_v, in the KDA layers only, takes Q4_K_M's rule
// numbered among the 20 KDA layers (blk.9 is the 8th: more bits; by its layer number it would not get
// them).
TEST(KdaPresetTest, KimiLinearTypesInQ4KM) {
  auto t = planned_tensors_of("", "kimi-linear-48b-a3b", DType::kQ4_K);
  for (const char* kept : {"blk.0.ssm_conv1d_q.weight", "blk.0.ssm_conv1d_v.weight", "blk.0.ssm_a",
                           "blk.0.ssm_dt.bias", "blk.0.ssm_norm.weight", "blk.1.exp_probs_b.bias"}) {
    EXPECT_EQ(t[kept].type, DType::kF32) << kept;
  }
  EXPECT_EQ(t["blk.0.ssm_f_a.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_f_b.weight"].type, DType::kQ5_0);
  EXPECT_FALSE(t["blk.0.ssm_f_b.weight"].fallback.empty());
  EXPECT_EQ(t["blk.0.ssm_beta.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.4.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.9.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.3.attn_k_b.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
}

// bailingmoe3 on DeepSeek-V3: its latent attention (a rank-1536 query bottleneck, attn_kv_b whole) with a
// gate per head in every 4th layer, KDA of its 128 heads of 128 in the others, each decay and gate input
// one [n_embd, values] matrix and positive rates; its YaRN and dense lead kept; Ling 2.0's 8 expert groups,
// 4 used; sigmoid routing normalised, its scale.
TEST(KdaPresetTest, BailingMoe3OnDeepSeekV3) {
  auto r = planned_model("bailingmoe3", "deepseek-v3", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "bailingmoe3");
  EXPECT_TRUE(s.kda && s.deepseek2 && s.sigmoid_routing && s.expert_weights_norm);
  EXPECT_FALSE(s.split_kv_b);
  EXPECT_EQ(s.n_layer, 61);
  EXPECT_EQ(s.kda_rank, 0);
  EXPECT_EQ(s.ssm_head_v_dim, 128);
  EXPECT_EQ(s.q_lora_rank, 1536);
  EXPECT_EQ(s.n_dense_lead, 3);
  EXPECT_EQ(s.n_expert_groups, 8);
  EXPECT_EQ(s.n_expert_groups_used, 4);
  EXPECT_EQ(s.rope_yarn_factor, 40.0f);
  EXPECT_FLOAT_EQ(s.expert_weights_scale, 2.5f);
  const std::string kinds = kda_layer_pattern(s);
  ASSERT_EQ(kinds.size(), 61u);
  for (int l = 0; l < 61; ++l) EXPECT_EQ(kinds[l], (l + 1) % 4 == 0 ? '*' : 'K') << l;
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{7168, 128 * 128}));
  EXPECT_EQ(t["blk.0.ssm_f_a.weight"].dims, (Dims{7168, 128 * 128}));
  EXPECT_EQ(t["blk.0.ssm_g_a.weight"].dims, (Dims{7168, 128 * 128}));
  EXPECT_EQ(t.count("blk.0.ssm_f_b.weight"), 0u);
  EXPECT_EQ(t["blk.0.ssm_a"].kind, WeightKind::kKdaRate);
  EXPECT_EQ(t["blk.0.ssm_conv1d_k.weight"].dims, (Dims{4, 1, 128 * 128}));
  EXPECT_EQ(t["blk.3.attn_gate.weight"].dims, (Dims{7168, 128}));
  EXPECT_EQ(t["blk.3.attn_q_a.weight"].dims, (Dims{7168, 1536}));
  EXPECT_EQ(t["blk.3.attn_kv_b.weight"].dims, (Dims{512, 128 * (128 + 128)}));
  EXPECT_EQ(t.count("blk.3.ssm_a"), 0u);
  EXPECT_EQ(t.count("blk.60.attn_gate.weight"), 0u);
  EXPECT_EQ(t.count("blk.59.attn_gate.weight"), 1u);
}

// bailingmoe3 and kimi-linear on the other presets: DeepSeek-V2-Lite's softmax routing becomes sigmoid
// (both archs'), its 64 experts 8 groups of 8, its 2 shared experts kept; moe-tiny (no latent) takes
// DeepSeek-V3's attention as bailingmoe3 and Kimi Linear's as kimi-linear, at least 4 layers (KKK*), its 8
// experts ungrouped (groups of one); Kimi Linear's preset as bailingmoe3 keeps its layer list with Ling's
// inputs and gate; as deepseek2 it is every layer latent attention.
TEST(KdaPresetTest, BothArchsOnOtherPresets) {
  auto lite = model_preset("bailingmoe3", "deepseek-v2-lite");
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  EXPECT_TRUE(lite->sigmoid_routing && lite->expert_weights_norm);
  EXPECT_EQ(lite->n_expert_groups, 8);
  EXPECT_EQ(lite->n_ff_shexp, 2 * 1408);
  EXPECT_EQ(lite->q_lora_rank, 0);

  auto ling = model_preset("bailingmoe3", "moe-tiny");
  ASSERT_TRUE(ling.ok()) << ling.status().ToString();
  EXPECT_EQ(ling->n_layer, 4);
  EXPECT_EQ(kda_layer_pattern(*ling), "KKK*");
  EXPECT_EQ(ling->q_lora_rank, 512);
  EXPECT_EQ(ling->n_expert_groups, 1);
  auto kimi = model_preset("kimi-linear", "moe-tiny");
  ASSERT_TRUE(kimi.ok()) << kimi.status().ToString();
  EXPECT_EQ(kda_layer_pattern(*kimi), "KKK*");
  EXPECT_EQ(kimi->q_lora_rank, 0);
  EXPECT_EQ(kimi->head_dim, 192);
  EXPECT_EQ(kimi->kda_rank, 128);
  EXPECT_TRUE(kimi->split_kv_b);
  EXPECT_FLOAT_EQ(kimi->expert_weights_scale, 2.446f);
  auto kimi_v3 = model_preset("kimi-linear", "deepseek-v3");
  ASSERT_TRUE(kimi_v3.ok()) << kimi_v3.status().ToString();
  EXPECT_EQ(kimi_v3->rope_yarn_factor, 1.0f);
  EXPECT_EQ(kimi_v3->q_lora_rank, 1536);

  auto kimi_as_ling = planned_tensors_of("bailingmoe3", "kimi-linear-48b-a3b", DType::kQ8_0, 4);
  EXPECT_EQ(kimi_as_ling["blk.0.ssm_f_a.weight"].dims, (Dims{2304, 4096}));
  EXPECT_EQ(kimi_as_ling.count("blk.0.ssm_f_b.weight"), 0u);
  EXPECT_EQ(kimi_as_ling["blk.3.attn_gate.weight"].dims, (Dims{2304, 32}));
  auto as_deepseek = model_preset("deepseek2", "kimi-linear-48b-a3b");
  ASSERT_TRUE(as_deepseek.ok()) << as_deepseek.status().ToString();
  EXPECT_FALSE(as_deepseek->kda);
  EXPECT_TRUE(as_deepseek->layer_pattern.empty());
  EXPECT_EQ(as_deepseek->kda_rank, 0);
  auto t = planned_tensors_of("deepseek2", "kimi-linear-48b-a3b", DType::kQ8_0, 2);
  EXPECT_EQ(t.count("blk.0.attn_kv_a_mqa.weight"), 1u);
  EXPECT_EQ(t.count("blk.0.ssm_a"), 0u);
}

// A --layers cut keeps the preset's layers from its start (Kimi Linear's list, or KKK* repeated), and where
// none of them would attend, its last layer does; a cut keeps one MoE layer after the dense lead.
TEST(KdaPresetTest, LayerCutsKeepThePattern) {
  struct Cut {
    const char* arch;
    const char* preset;
    int n_layers;
    const char* kinds;
  };
  for (Cut c : {Cut{"", "kimi-linear-48b-a3b", 4, "KKK*"}, Cut{"", "kimi-linear-48b-a3b", 6, "KKK*KK"},
                Cut{"", "kimi-linear-48b-a3b", 2, "K*"}, Cut{"", "kimi-linear-48b-a3b", 1, "*"},
                Cut{"bailingmoe3", "deepseek-v3", 5, "KKK*K"}, Cut{"bailingmoe3", "deepseek-v3", 3, "KK*"}}) {
    SCOPED_TRACE(std::string(c.arch) + " " + c.preset + " " + std::to_string(c.n_layers));
    auto r = planned_model(c.arch, c.preset, DType::kQ8_0, c.n_layers);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(kda_layer_pattern(r->spec), c.kinds);
    auto t = planned_tensors_by_name(r->plan);
    for (int l = 0; l < c.n_layers; ++l) {
      const std::string p = "blk." + std::to_string(l) + ".";
      EXPECT_EQ(t.count(p + "attn_kv_a_mqa.weight"), c.kinds[l] == '*' ? 1u : 0u) << l;
      EXPECT_EQ(t.count(p + "ssm_beta.weight"), c.kinds[l] == 'K' ? 1u : 0u) << l;
    }
    EXPECT_LT(r->spec.n_dense_lead, c.n_layers);
  }
}

// Specs a check refuses, by name: a dense preset as either arch, KDA on another arch, kimi-linear without
// its rank (or bailingmoe3 with one), a pattern of other kinds, expert groups that do not divide the experts.
TEST(KdaPresetTest, BadSpecsAreRefused) {
  for (const char* arch : {"bailingmoe3", "kimi-linear"}) {
    EXPECT_EQ(model_preset(arch, "small").status().code(), Code::kInvalidArgument) << arch;
  }
  auto message = [](const ModelSpec& s) { return std::string(plan_tensors(s, DType::kF32).status().message()); };
  ModelSpec deepseek = *model_preset("deepseek2", "moe-tiny");
  deepseek.kda = true;
  EXPECT_NE(message(deepseek).find("go with arch bailingmoe3 or kimi-linear"), std::string::npos);
  ModelSpec kimi = *model_preset("kimi-linear", "moe-tiny");
  kimi.kda_rank = 0;
  EXPECT_NE(message(kimi).find("kda_rank"), std::string::npos);
  ModelSpec ling = *model_preset("bailingmoe3", "moe-tiny");
  ling.kda_rank = 64;
  EXPECT_NE(message(ling).find("kda_rank"), std::string::npos);
  ling.kda_rank = 0;
  ling.layer_pattern = "KM*";
  EXPECT_NE(message(ling).find("must hold only K*"), std::string::npos);
  ling.layer_pattern = "KKK*";
  ling.n_expert_groups = 3;
  ling.n_expert_groups_used = 1;
  EXPECT_NE(message(ling).find("expert groups"), std::string::npos);
  ling.n_expert_groups = 4;
  ling.n_expert_groups_used = 2;
  EXPECT_TRUE(plan_tensors(ling, DType::kF32).ok());
}

}  // namespace
}  // namespace strata
