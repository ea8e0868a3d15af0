// Mixture-of-experts presets and plans: the archs' tensors, shapes, types and keys as
// llama.cpp writes them (../shared/models/moe/tiny-*.gguf), --layers, and mismatched archs.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

std::map<std::string, PlannedTensor> plan_of(const std::string& arch, const std::string& preset, DType type) {
  auto s = model_preset(arch, preset);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  auto plan = plan_tensors(*s, type);
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return planned_tensors_by_name(*plan);
}

TEST(MoePresetTest, Qwen3MoeTinyHasExpertsQkNormAndNoDenseFfn) {
  auto s = model_preset("", "moe-tiny");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "qwen3moe");
  EXPECT_EQ(s->n_expert, 8);
  EXPECT_EQ(s->n_expert_used, 2);
  EXPECT_EQ(s->n_ff_exp, 256);
  EXPECT_EQ(s->n_ff_shexp, 0);
  auto t = plan_of("", "moe-tiny", DType::kF32);
  EXPECT_EQ(t.size(), 3u + 2u * 12u);
  EXPECT_EQ(t["blk.1.ffn_gate_inp.weight"].dims, (Dims{128, 8}));
  EXPECT_EQ(t["blk.1.ffn_gate_exps.weight"].dims, (Dims{128, 256, 8}));
  EXPECT_EQ(t["blk.1.ffn_up_exps.weight"].dims, (Dims{128, 256, 8}));
  EXPECT_EQ(t["blk.1.ffn_down_exps.weight"].dims, (Dims{256, 128, 8}));
  EXPECT_EQ(t["blk.0.attn_q_norm.weight"].dims, (Dims{32}));
  EXPECT_EQ(t.count("blk.0.ffn_gate.weight"), 0u);
  EXPECT_EQ(t.count("blk.0.ffn_gate_inp_shexp.weight"), 0u);
  EXPECT_EQ(t.count("blk.0.attn_q.bias"), 0u);
}

TEST(MoePresetTest, Qwen2MoeHasBiasesAndASharedExpert) {
  auto s = model_preset("qwen2moe", "moe-tiny");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "qwen2moe");
  EXPECT_EQ(s->n_ff_shexp, 192);
  auto t = plan_of("qwen2moe", "moe-tiny", DType::kF32);
  EXPECT_EQ(t.size(), 3u + 2u * 17u);
  EXPECT_EQ(t["blk.0.attn_q.bias"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.attn_k.bias"].dims, (Dims{64}));
  EXPECT_EQ(t["blk.0.ffn_gate_inp_shexp.weight"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.ffn_gate_shexp.weight"].dims, (Dims{128, 192}));
  EXPECT_EQ(t["blk.0.ffn_up_shexp.weight"].dims, (Dims{128, 192}));
  EXPECT_EQ(t["blk.0.ffn_down_shexp.weight"].dims, (Dims{192, 128}));
  EXPECT_EQ(t["blk.0.ffn_down_exps.weight"].dims, (Dims{256, 128, 8}));
  EXPECT_EQ(t.count("blk.0.attn_q_norm.weight"), 0u);
}

TEST(MoePresetTest, MixtralIsLlamaWithExpertsOfTheFeedForwardWidth) {
  auto s = model_preset("", "mixtral-8x7b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "llama");
  EXPECT_EQ(s->n_expert, 8);
  EXPECT_EQ(s->n_expert_used, 2);
  EXPECT_EQ(s->n_ff, 14336);
  EXPECT_EQ(s->n_ff_exp, 14336);
  EXPECT_EQ(s->n_ff_shexp, 0);
  EXPECT_FALSE(s->qk_norm || s->qkv_bias);
  EXPECT_EQ(s->rope_freq_base, 1e6f);
  auto t = plan_of("", "mixtral-8x7b", DType::kQ8_0);
  EXPECT_EQ(t["blk.31.ffn_gate_exps.weight"].dims, (Dims{4096, 14336, 8}));
  EXPECT_EQ(t["blk.31.ffn_down_exps.weight"].dims, (Dims{14336, 4096, 8}));
  EXPECT_EQ(t["blk.0.attn_k.weight"].dims, (Dims{4096, 1024}));
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{4096, 32000}));
  auto tiny = model_preset("mixtral", "moe-tiny");
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->arch, "llama");
  EXPECT_EQ(tiny->n_ff, 256);
}

// Qwen3-30B-A3B: 30.5B parameters, about 3.3B of them active per token.
TEST(MoePresetTest, Qwen3_30bA3bMatchesTheRealModelsShape) {
  auto s = model_preset("", "qwen3-30b-a3b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "qwen3moe");
  EXPECT_EQ(s->n_layer, 48);
  EXPECT_EQ(s->n_head * s->head_dim, 4096);
  EXPECT_EQ(s->n_head_kv, 4);
  EXPECT_EQ(s->n_ctx, 40960);
  EXPECT_EQ(s->rms_eps, 1e-6f);
  GenerateOptions o;
  o.preset = "qwen3-30b-a3b";
  o.type = DType::kBF16;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->n_params, 30532122624u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.47.ffn_gate_exps.weight"].dims, (Dims{2048, 768, 128}));
  EXPECT_EQ(t["blk.47.ffn_gate_inp.weight"].dims, (Dims{2048, 128}));
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{2048, 4096}));
  EXPECT_EQ(t["blk.0.attn_output.weight"].dims, (Dims{4096, 2048}));
}

// Step 3.5 Flash: 196.96B parameters; full layers (l % 4 == 0) of 64 query heads, sliding ones of
// 96, each with a gate per head; three dense layers, then experts beside a shared expert; the full
// layers' rope factors padded to half a head.
TEST(MoePresetTest, Step35FlashMatchesTheRealModelsShape) {
  GenerateOptions o;
  o.preset = "step-3.5-flash";
  o.type = DType::kBF16;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "step35");
  EXPECT_TRUE(r->spec.step35 && r->spec.qk_norm && r->spec.sigmoid_routing && r->spec.expert_weights_norm);
  EXPECT_GT(r->n_params, 196'500'000'000u);
  EXPECT_LT(r->n_params, 197'500'000'000u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{4096, 64 * 128}));
  EXPECT_EQ(t["blk.1.attn_q.weight"].dims, (Dims{4096, 96 * 128}));
  EXPECT_EQ(t["blk.1.attn_gate.weight"].dims, (Dims{4096, 96}));
  EXPECT_EQ(t["blk.1.attn_output.weight"].dims, (Dims{96 * 128, 4096}));
  EXPECT_EQ(t["blk.2.ffn_gate.weight"].dims, (Dims{4096, 11264}));
  EXPECT_EQ(t["blk.3.ffn_gate_exps.weight"].dims, (Dims{4096, 1280, 288}));
  EXPECT_EQ(t["blk.3.ffn_gate_shexp.weight"].dims, (Dims{4096, 1280}));
  EXPECT_EQ(t["blk.3.exp_probs_b.bias"].dims, (Dims{288}));
  EXPECT_EQ(t["rope_freqs.weight"].dims, (Dims{64}));
  EXPECT_EQ(t.count("blk.3.ffn_gate.weight"), 0u);
}

// Cohere's North-Mini-Code-1.0: 31.02B parameters; one dense layer of 3072, then 128 experts of
// 768 routed without a selection bias or a shared expert; no ffn_norm (parallel blocks); an output
// matrix beside the embeddings; a 4096-key window.
TEST(MoePresetTest, NorthMiniCodeMatchesTheRealModelsShape) {
  GenerateOptions o;
  o.preset = "north-mini-code";
  o.type = DType::kBF16;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "cohere2_moe");
  EXPECT_TRUE(r->spec.cohere2_moe && !r->spec.sigmoid_routing && !r->spec.expert_weights_norm);
  EXPECT_EQ(r->spec.sliding_window, 4096);
  EXPECT_GT(r->n_params, 30'900'000'000u);
  EXPECT_LT(r->n_params, 31'100'000'000u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{2048, 32 * 128}));
  EXPECT_EQ(t["blk.0.attn_k.weight"].dims, (Dims{2048, 4 * 128}));
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{2048, 3072}));
  EXPECT_EQ(t["blk.48.ffn_down_exps.weight"].dims, (Dims{768, 2048, 128}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{2048, 262144}));
  for (const char* absent : {"blk.0.ffn_norm.weight", "blk.1.ffn_norm.weight", "blk.1.exp_probs_b.bias",
                             "blk.1.ffn_gate_shexp.weight", "blk.1.ffn_gate.weight"}) {
    EXPECT_EQ(t.count(absent), 0u) << absent;
  }
}

// Poolside Laguna XS.2: about 33B parameters; 48 query heads in the full layers (every 4th), 64 in
// the sliding ones, each gated; one dense layer, then 256 experts of 512 beside a shared expert.
TEST(MoePresetTest, LagunaXs2MatchesThePublishedShape) {
  GenerateOptions o;
  o.preset = "laguna-xs.2";
  o.type = DType::kBF16;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "laguna");
  EXPECT_TRUE(r->spec.laguna && !r->spec.step35 && r->spec.sigmoid_routing && r->spec.expert_weights_norm);
  EXPECT_FLOAT_EQ(r->spec.rope_yarn_factor, 32.0f);
  EXPECT_GT(r->n_params, 32'000'000'000u);
  EXPECT_LT(r->n_params, 34'500'000'000u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{2048, 48 * 128}));
  EXPECT_EQ(t["blk.1.attn_q.weight"].dims, (Dims{2048, 64 * 128}));
  EXPECT_EQ(t["blk.1.attn_gate.weight"].dims, (Dims{2048, 64}));
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{2048, 8192}));
  EXPECT_EQ(t["blk.1.ffn_gate_exps.weight"].dims, (Dims{2048, 512, 256}));
  EXPECT_EQ(t["blk.1.ffn_gate_shexp.weight"].dims, (Dims{2048, 512}));
  EXPECT_EQ(t.count("rope_freqs.weight"), 0u);
}

// MiMo-V2-Flash: about 310B parameters; 64 query heads of 192 (64 rotated) with value heads of
// 128; 4 K/V heads in the full layers (0, 5, 11, ...), 8 with sinks in the sliding ones; one dense
// layer of 16384 (no router), then 256 experts of 2048 with a selection bias, no shared expert.
TEST(MoePresetTest, MimoV2FlashMatchesThePublishedShape) {
  GenerateOptions o;
  o.preset = "mimo-v2-flash";
  o.type = DType::kBF16;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "mimo2");
  EXPECT_TRUE(r->spec.mimo2 && r->spec.sigmoid_routing && r->spec.expert_weights_norm && !r->spec.qk_norm);
  EXPECT_EQ(r->spec.sliding_window, 128);
  EXPECT_GT(r->n_params, 305'000'000'000u);
  EXPECT_LT(r->n_params, 315'000'000'000u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (Dims{4096, 64 * 192}));
  EXPECT_EQ(t["blk.0.attn_k.weight"].dims, (Dims{4096, 4 * 192}));
  EXPECT_EQ(t["blk.0.attn_v.weight"].dims, (Dims{4096, 4 * 128}));
  EXPECT_EQ(t["blk.1.attn_k.weight"].dims, (Dims{4096, 8 * 192}));
  EXPECT_EQ(t["blk.1.attn_v.weight"].dims, (Dims{4096, 8 * 128}));
  EXPECT_EQ(t["blk.1.attn_output.weight"].dims, (Dims{64 * 128, 4096}));
  EXPECT_EQ(t["blk.1.attn_sinks.weight"].dims, (Dims{64}));
  EXPECT_EQ(t["blk.5.attn_k.weight"].dims, (Dims{4096, 4 * 192}));
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{4096, 16384}));
  EXPECT_EQ(t["blk.1.ffn_gate_exps.weight"].dims, (Dims{4096, 2048, 256}));
  EXPECT_EQ(t["blk.1.exp_probs_b.bias"].dims, (Dims{256}));
  for (const char* absent : {"blk.0.attn_sinks.weight", "blk.5.attn_sinks.weight", "blk.0.ffn_gate_inp.weight",
                             "blk.1.ffn_gate_shexp.weight", "blk.1.attn_q_norm.weight"}) {
    EXPECT_EQ(t.count(absent), 0u) << absent;
  }
}

// GLM-5: about 744B parameters (its NextN block among them); DeepSeek's latent attention in the
// split form with a query bottleneck of 2048, value heads of 256; three dense layers, then 256
// experts of 2048 beside a shared one; every block's indexer of 32 heads of 128.
TEST(MoePresetTest, Glm5MatchesThePublishedShape) {
  GenerateOptions o;
  o.preset = "glm-5";
  o.type = DType::kBF16;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "glm-dsa");
  EXPECT_TRUE(r->spec.glm_dsa && r->spec.deepseek2 && r->spec.split_kv_b && r->spec.sigmoid_routing);
  EXPECT_EQ(r->spec.n_nextn, 1);
  EXPECT_FLOAT_EQ(r->spec.rope_yarn_factor, 1.0f);
  EXPECT_GT(r->n_params, 735'000'000'000u);
  EXPECT_LT(r->n_params, 760'000'000'000u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["blk.0.attn_q_a.weight"].dims, (Dims{6144, 2048}));
  EXPECT_EQ(t["blk.0.attn_q_b.weight"].dims, (Dims{2048, 64 * 256}));
  EXPECT_EQ(t["blk.0.attn_kv_a_mqa.weight"].dims, (Dims{6144, 512 + 64}));
  EXPECT_EQ(t["blk.0.attn_k_b.weight"].dims, (Dims{192, 512, 64}));
  EXPECT_EQ(t["blk.0.attn_v_b.weight"].dims, (Dims{512, 256, 64}));
  EXPECT_EQ(t["blk.0.attn_output.weight"].dims, (Dims{64 * 256, 6144}));
  EXPECT_EQ(t["blk.2.ffn_gate.weight"].dims, (Dims{6144, 12288}));
  EXPECT_EQ(t["blk.3.ffn_gate_exps.weight"].dims, (Dims{6144, 2048, 256}));
  EXPECT_EQ(t["blk.3.indexer.attn_q_b.weight"].dims, (Dims{2048, 32 * 128}));
  EXPECT_EQ(t["blk.3.indexer.attn_k.weight"].dims, (Dims{6144, 128}));
  EXPECT_EQ(t["blk.3.indexer.proj.weight"].dims, (Dims{6144, 32}));
  EXPECT_EQ(t["blk.78.nextn.eh_proj.weight"].dims, (Dims{2 * 6144, 6144}));
  EXPECT_EQ(t.count("blk.79.attn_q_a.weight"), 0u);
}

TEST(MoePresetTest, LayersOverrideKeepsTheShape) {
  GenerateOptions o;
  o.preset = "qwen3-30b-a3b";
  o.type = DType::kQ4_K;
  o.n_layers = 2;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->spec.n_layer, 2);
  EXPECT_EQ(r->spec.n_expert, 128);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t.count("blk.1.ffn_up_exps.weight"), 1u);
  EXPECT_EQ(t.count("blk.2.ffn_up_exps.weight"), 0u);
  o.preset = "tiny";
  o.n_layers = 5;
  EXPECT_EQ(plan_model(o)->spec.n_layer, 5);
  o.n_layers = -1;
  EXPECT_EQ(plan_model(o).status().code(), Code::kInvalidArgument);
}

TEST(MoePresetTest, ArchAndPresetMustAgreeOnExperts) {
  auto dense_arch = model_preset("qwen3", "moe-tiny");
  ASSERT_FALSE(dense_arch.ok());
  EXPECT_NE(dense_arch.status().message().find("preset 'moe-tiny' is mixture-of-experts (--arch qwen3moe, qwen2moe, "
                                               "mixtral, gpt-oss, glm4moe, llama4, deepseek2, mistral4, minimax-m2, minimax-m3, ernie4_5-moe, "
                                               "qwen35moe, qwen3next, qwen3vlmoe, granitemoe, step35, laguna, hunyuan-moe, cohere2_moe, mimo2, glm-dsa, granitehybrid, nemotron_h_moe, lfm2moe, olmoe, bailingmoe3 or kimi-linear); --arch qwen3 needs one of: tiny, small"),
            std::string::npos)
      << dense_arch.status().message();
  auto moe_arch = model_preset("qwen3moe", "1b");
  ASSERT_FALSE(moe_arch.ok());
  EXPECT_NE(moe_arch.status().message().find("needs one of: moe-tiny, qwen3-30b-a3b, qwen1.5-moe-a2.7b, gpt-oss-20b, mixtral-8x7b"),
            std::string::npos)
      << moe_arch.status().message();
  ModelSpec s = *model_preset("", "moe-tiny");
  s.n_expert_used = 9;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("expert_used_count 9 must be 1..8"),
            std::string::npos);
}

TEST(MoeTensorPlanTest, RoutersStayF32AndExpertsQuantizeLikeMatrices) {
  for (DType type : {DType::kF16, DType::kQ8_0, DType::kQ4_0}) {
    auto t = plan_of("qwen2moe", "moe-tiny", type);
    EXPECT_EQ(t["blk.0.ffn_gate_inp.weight"].type, DType::kF32) << dtype_name(type);
    EXPECT_EQ(t["blk.0.ffn_gate_inp_shexp.weight"].type, DType::kF32) << dtype_name(type);
    EXPECT_EQ(t["blk.0.ffn_gate_exps.weight"].type, type) << dtype_name(type);
    EXPECT_EQ(t["blk.0.ffn_down_exps.weight"].type, type) << dtype_name(type);
    EXPECT_EQ(t["blk.0.ffn_up_shexp.weight"].type, type) << dtype_name(type);
  }
}

// --type mxfp4 puts every matrix in MXFP4 (routers F32); the mix MXFP4_MOE only the experts,
// the other matrices in Q8_0, in a file of type 38 either way.
TEST(MoeTensorPlanTest, Mxfp4AndTheMxfp4MoeMix) {
  auto s = model_preset("qwen2moe", "moe-tiny");
  ASSERT_TRUE(s.ok());
  auto all = plan_tensors(*s, DType::kMXFP4);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->file_type, 38u);
  auto moe = plan_tensors(*s, DType::kMXFP4, 38);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ(moe->file_type, 38u);
  auto a = planned_tensors_by_name(*all), m = planned_tensors_by_name(*moe);
  for (const char* name : {"blk.0.ffn_gate_exps.weight", "blk.1.ffn_up_exps.weight", "blk.1.ffn_down_exps.weight"}) {
    EXPECT_EQ(a[name].type, DType::kMXFP4) << name;
    EXPECT_EQ(m[name].type, DType::kMXFP4) << name;
  }
  for (const char* name :
       {"token_embd.weight", "output.weight", "blk.0.attn_q.weight", "blk.1.ffn_down_shexp.weight"}) {
    EXPECT_EQ(a[name].type, DType::kMXFP4) << name;
    EXPECT_EQ(m[name].type, DType::kQ8_0) << name;
  }
  for (const auto& t : {a, m}) {
    EXPECT_EQ(t.at("blk.0.ffn_gate_inp.weight").type, DType::kF32);
    EXPECT_EQ(t.at("blk.0.ffn_gate_inp_shexp.weight").type, DType::kF32);
    EXPECT_EQ(t.at("blk.0.attn_norm.weight").type, DType::kF32);
    EXPECT_EQ(t.at("blk.0.attn_q.bias").type, DType::kF32);
    for (const auto& [name, x] : t) EXPECT_TRUE(x.fallback.empty()) << name;
  }
  EXPECT_FALSE(plan_tensors(*s, DType::kQ8_0, 38).ok());  // a mix of another type
}

// llama.cpp's Q4_K_M: ffn_down_exps follows ffn_down's more-bits layers; 128 experts leave
// attention alone.
TEST(MoeTensorPlanTest, Q4KMixOnQwen3_30bA3b) {
  auto t = plan_of("", "qwen3-30b-a3b", DType::kQ4_K);
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_down_exps.weight"].type, DType::kQ6_K);   // first eighth
  EXPECT_EQ(t["blk.6.ffn_down_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.8.ffn_down_exps.weight"].type, DType::kQ6_K);   // every third between
  EXPECT_EQ(t["blk.47.ffn_down_exps.weight"].type, DType::kQ6_K);  // last eighth
  EXPECT_EQ(t["blk.6.ffn_gate_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_up_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_gate_inp.weight"].type, DType::kF32);
  EXPECT_EQ(t["blk.6.attn_k.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.attn_v.weight"].type, DType::kQ6_K);
  for (const auto& [name, x] : t) EXPECT_TRUE(x.fallback.empty()) << name;
}

// Its size: the real Qwen3-30B-A3B Q4_K_M is 18.6 GB.
TEST(MoeTensorPlanTest, Qwen3_30bA3bQ4KFileIsAbout18GB) {
  GenerateOptions o;
  o.preset = "qwen3-30b-a3b";
  o.type = DType::kQ4_K;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->n_bytes, 17'000'000'000u);
  EXPECT_LT(r->n_bytes, 19'000'000'000u);
}

// llama.cpp's 8-expert rule: attn_k / attn_v in Q8_0, attn_output in Q5_K for Q4_K_M.
TEST(MoeTensorPlanTest, EightExpertModelsKeepAttentionInMoreBits) {
  auto t = plan_of("", "mixtral-8x7b", DType::kQ4_K);
  EXPECT_EQ(t["blk.10.attn_k.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.10.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.10.attn_output.weight"].type, DType::kQ5_K);
  EXPECT_EQ(t["blk.10.attn_q.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_down_exps.weight"].type, DType::kQ6_K);
  auto q5 = plan_of("", "mixtral-8x7b", DType::kQ5_K);
  EXPECT_EQ(q5["blk.10.attn_output.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q5["blk.10.attn_v.weight"].type, DType::kQ8_0);
}

}  // namespace
}  // namespace strata
