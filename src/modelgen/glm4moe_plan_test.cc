// glm4moe (GLM-4.5) presets and plans: the tensors and shapes of llama.cpp's converter's layout
// (a leading dense block, the router's selection bias, a gateless shared expert, the NextN
// block after the layers), the glm-4.5-air shape, --layers, other presets as glm4moe, and the
// types a quantization mix gives the new tensors.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// What mkmodel --arch glm4moe --preset preset --type type [--layers n_layers] would write.
Result<GenerateReport> glm_model(const std::string& preset, DType type, int n_layers = 0) {
  GenerateOptions o;
  o.arch = "glm4moe";
  o.preset = preset;
  o.type = type;
  o.n_layers = n_layers;
  return plan_model(o);
}

std::map<std::string, PlannedTensor> glm_plan_of(const std::string& preset, DType type) {
  auto r = glm_model(preset, type);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? planned_tensors_by_name(r->plan) : std::map<std::string, PlannedTensor>{};
}

TEST(Glm4MoePresetTest, Glm45AirHasTheRealModelsShape) {
  auto s = model_preset("", "glm-4.5-air");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->arch, "glm4moe");
  EXPECT_TRUE(s->glm4moe && s->qkv_bias);
  EXPECT_FALSE(s->qk_norm || s->tied_embeddings || s->gpt_oss || s->post_norms);
  EXPECT_EQ(s->n_vocab, 151552);
  EXPECT_EQ(s->n_ctx, 131072);
  EXPECT_EQ(s->n_embd, 4096);
  EXPECT_EQ(s->n_layer, 46);
  EXPECT_EQ(block_count(*s), 47);
  EXPECT_EQ(s->n_head, 96);
  EXPECT_EQ(s->n_head_kv, 8);
  EXPECT_EQ(s->head_dim, 128);
  EXPECT_EQ(s->n_ff, 10944);
  EXPECT_EQ(s->n_expert, 128);
  EXPECT_EQ(s->n_expert_used, 8);
  EXPECT_EQ(s->n_ff_exp, 1408);
  EXPECT_EQ(s->n_ff_shexp, 1408);
  EXPECT_EQ(s->n_dense_lead, 1);
  EXPECT_EQ(s->n_nextn, 1);
  EXPECT_EQ(s->rms_eps, 1e-5f);
  EXPECT_EQ(s->rope_freq_base, 1e6f);
  EXPECT_EQ(s->expert_weights_scale, 1.0f);
  EXPECT_EQ(s->sliding_window, 0);
}

// About 110B parameters with the NextN block, as GLM-4.5-Air's GGUF files count them.
TEST(Glm4MoePresetTest, Glm45AirCountsAbout110BParameters) {
  auto r = glm_model("glm-4.5-air", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GT(r->n_params, 109'000'000'000u);
  EXPECT_LT(r->n_params, 111'000'000'000u);
}

// moe-tiny as glm4moe: block 0 dense, block 1 MoE, block 2 the NextN block (MoE plus nextn.*).
TEST(Glm4MoeTensorPlanTest, EveryTensorOfTheLayoutWithItsShape) {
  auto t = glm_plan_of("moe-tiny", DType::kF32);
  EXPECT_EQ(t.size(), 3u + 12u + 17u + 21u);
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{128, 259}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{128, 259}));
  for (int l = 0; l < 3; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_q.weight"].dims, (Dims{128, 128})) << p;
    EXPECT_EQ(t[p + "attn_q.bias"].dims, (Dims{128})) << p;
    EXPECT_EQ(t[p + "attn_k.bias"].dims, (Dims{64})) << p;
    EXPECT_EQ(t[p + "attn_v.bias"].dims, (Dims{64})) << p;
    EXPECT_EQ(t[p + "post_attention_norm.weight"].dims, (Dims{128})) << p;
    for (const char* absent : {"ffn_norm.weight", "attn_output.bias", "attn_q_norm.weight", "ffn_gate_inp_shexp.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{128, 256}));
  EXPECT_EQ(t["blk.0.ffn_down.weight"].dims, (Dims{256, 128}));
  EXPECT_EQ(t.count("blk.0.ffn_gate_inp.weight"), 0u);
  for (const std::string p : {"blk.1.", "blk.2."}) {
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].dims, (Dims{128, 8})) << p;
    EXPECT_EQ(t[p + "exp_probs_b.bias"].dims, (Dims{8})) << p;
    EXPECT_EQ(t[p + "exp_probs_b.bias"].kind, WeightKind::kSelectionBias) << p;
    EXPECT_EQ(t[p + "ffn_up_exps.weight"].dims, (Dims{128, 256, 8})) << p;
    EXPECT_EQ(t[p + "ffn_down_exps.weight"].dims, (Dims{256, 128, 8})) << p;
    EXPECT_EQ(t[p + "ffn_gate_shexp.weight"].dims, (Dims{128, 256})) << p;
    EXPECT_EQ(t[p + "ffn_down_shexp.weight"].dims, (Dims{256, 128})) << p;
    EXPECT_EQ(t.count(p + "ffn_gate.weight"), 0u) << p;
  }
  EXPECT_EQ(t["blk.2.nextn.eh_proj.weight"].dims, (Dims{256, 128}));
  for (const char* norm : {"enorm", "hnorm", "shared_head_norm"}) {
    EXPECT_EQ(t["blk.2.nextn." + std::string(norm) + ".weight"].dims, (Dims{128})) << norm;
    EXPECT_EQ(t.count("blk.1.nextn." + std::string(norm) + ".weight"), 0u) << norm;
  }
  EXPECT_EQ(t.count("blk.3.attn_q.weight"), 0u);
}

TEST(Glm4MoeTensorPlanTest, LayersOverrideKeepsTheNextNBlockAfterThem) {
  auto r = glm_model("glm-4.5-air", DType::kQ8_0, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.n_layer, 2);
  EXPECT_EQ(block_count(r->spec), 3);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.ffn_up.weight"].dims, (Dims{4096, 10944}));
  EXPECT_EQ(t["blk.1.ffn_up_exps.weight"].dims, (Dims{4096, 1408, 128}));
  EXPECT_EQ(t["blk.2.nextn.eh_proj.weight"].dims, (Dims{8192, 4096}));
  EXPECT_EQ(t["blk.2.ffn_up_shexp.weight"].dims, (Dims{4096, 1408}));
  EXPECT_EQ(t["blk.1.attn_q.weight"].dims, (Dims{4096, 12288}));
  EXPECT_EQ(t["blk.1.attn_output.weight"].dims, (Dims{12288, 4096}));
  EXPECT_EQ(t.count("blk.1.nextn.eh_proj.weight"), 0u);
  EXPECT_EQ(t.count("blk.3.attn_norm.weight"), 0u);
}

// Another MoE preset as glm4moe: a shared expert of its expert width, one dense block of its
// n_ff; glm-4.5-air as another arch loses the dense block and the NextN block.
TEST(Glm4MoePresetTest, OtherMoePresetsTakeTheGlmLayout) {
  auto qwen = model_preset("glm4moe", "qwen3-30b-a3b");
  ASSERT_TRUE(qwen.ok()) << qwen.status().ToString();
  EXPECT_EQ(qwen->n_ff_shexp, 768);
  EXPECT_EQ(qwen->n_ff, 6144);
  EXPECT_EQ(qwen->n_dense_lead, 1);
  EXPECT_FALSE(qwen->qk_norm);
  auto oss = model_preset("glm4moe", "gpt-oss-20b");
  ASSERT_TRUE(oss.ok()) << oss.status().ToString();
  EXPECT_FALSE(oss->gpt_oss);
  EXPECT_EQ(oss->sliding_window, 0);
  EXPECT_EQ(oss->rope_yarn_factor, 1.0f);
  EXPECT_TRUE(plan_tensors(*oss, DType::kF16).ok());
  auto as_qwen = model_preset("qwen3moe", "glm-4.5-air");
  ASSERT_TRUE(as_qwen.ok()) << as_qwen.status().ToString();
  EXPECT_FALSE(as_qwen->glm4moe);
  EXPECT_EQ(block_count(*as_qwen), 46);
  EXPECT_EQ(as_qwen->n_dense_lead, 0);
  EXPECT_EQ(as_qwen->n_ff_shexp, 0);
  auto plan = plan_tensors(*as_qwen, DType::kF16);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(planned_tensors_by_name(*plan).count("blk.0.exp_probs_b.bias"), 0u);
}

TEST(Glm4MoePresetTest, DensePresetsAndBrokenLayoutsAreRefused) {
  auto dense = model_preset("glm4moe", "tiny");
  ASSERT_FALSE(dense.ok());
  EXPECT_NE(dense.status().message().find("--arch glm4moe needs one of: moe-tiny"), std::string::npos)
      << dense.status().message();
  EXPECT_NE(
      model_preset("qwen3", "glm-4.5-air").status().message().find("mixtral, gpt-oss, glm4moe, llama4, deepseek2, mistral4, "
                                                                   "minimax-m2, minimax-m3, ernie4_5-moe, qwen35moe, qwen3next, qwen3vlmoe, granitemoe, step35, laguna, hunyuan-moe, cohere2_moe, mimo2, glm-dsa, granitehybrid, nemotron_h_moe, lfm2moe, olmoe, bailingmoe3 or kimi-linear"),
      std::string::npos);
  ModelSpec s = *model_preset("glm4moe", "moe-tiny");
  s.n_ff_shexp = 300;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("whole number of experts of 256"), std::string::npos);
  s = *model_preset("glm4moe", "moe-tiny");
  s.n_dense_lead = 3;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("leading_dense_block_count 3 must be 0..2"),
            std::string::npos);
  s = *model_preset("qwen3moe", "moe-tiny");
  s.n_nextn = 1;
  EXPECT_FALSE(plan_tensors(s, DType::kF32).ok());
}

// Q4_K_M on GLM-4.5-Air: exp_probs_b, biases and norms stay F32; the shared expert and the
// dense block follow ffn_down's more-bits layers (the first eighth of 47 blocks, every third
// between, the last eighth: NextN counted); eh_proj is a plain matrix; 1408-wide rows are not
// whole Q4_K / Q6_K blocks and fall back to Q5_0 / Q8_0, as llama.cpp's quantizer does.
TEST(Glm4MoeTensorPlanTest, Q4KMixGivesTheNewTensorsTheirTypes) {
  auto t = glm_plan_of("glm-4.5-air", DType::kQ4_K);
  for (const char* f32 : {"blk.3.exp_probs_b.bias", "blk.3.ffn_gate_inp.weight", "blk.3.attn_q.bias",
                          "blk.46.attn_v.bias", "blk.3.post_attention_norm.weight", "blk.46.nextn.enorm.weight",
                          "blk.46.nextn.hnorm.weight", "blk.46.nextn.shared_head_norm.weight"}) {
    EXPECT_EQ(t[f32].type, DType::kF32) << f32;
  }
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.46.nextn.eh_proj.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_down.weight"].type, DType::kQ8_0);  // Q6_K, 10944 wide
  EXPECT_EQ(t["blk.0.ffn_up.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.6.ffn_up_shexp.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.6.ffn_down_shexp.weight"].type, DType::kQ5_0);  // Q4_K, 1408 wide
  EXPECT_EQ(t["blk.7.ffn_down_shexp.weight"].type, DType::kQ8_0);  // Q6_K, 1408 wide
  EXPECT_EQ(t["blk.46.ffn_down_exps.weight"].type, DType::kQ8_0);
  EXPECT_FALSE(t["blk.46.ffn_down_exps.weight"].fallback.empty());
  EXPECT_EQ(t["blk.0.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.6.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.6.attn_k.weight"].type, DType::kQ4_K);
}

}  // namespace
}  // namespace strata
