// deepseek2 (DeepSeek-V2/V3, Kimi K2) presets and plans: the tensors and shapes of llama.cpp's
// converter's Multi-head Latent Attention layout (with and without the query bottleneck, attn_kv_b
// whole or split into attn_k_b / attn_v_b), the real models' shapes, --layers, other presets as
// deepseek2 and the reverse, refused layouts, and the types quantization mixes give the new tensors.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// What mkmodel --preset preset --arch deepseek2 --type type [--layers n] [--split-kv-b] would write.
Result<GenerateReport> deepseek_model(const std::string& preset, DType type, int n_layers = 0, bool split = false,
                                      uint32_t mix = 0) {
  GenerateOptions o;
  o.arch = "deepseek2";
  o.preset = preset;
  o.type = type;
  o.mix = mix;
  o.n_layers = n_layers;
  o.split_kv_b = split;
  return plan_model(o);
}

std::map<std::string, PlannedTensor> deepseek_plan_of(const std::string& preset, DType type, int n_layers = 0,
                                                      bool split = false, uint32_t mix = 0) {
  auto r = deepseek_model(preset, type, n_layers, split, mix);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? planned_tensors_by_name(r->plan) : std::map<std::string, PlannedTensor>{};
}

TEST(Deepseek2PresetTest, DeepseekV2LiteHasTheRealModelsShape) {
  auto s = model_preset("", "deepseek-v2-lite");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->arch, "deepseek2");
  EXPECT_TRUE(s->deepseek2);
  EXPECT_FALSE(s->qkv_bias || s->qk_norm || s->tied_embeddings || s->glm4moe || s->split_kv_b);
  EXPECT_EQ(s->n_vocab, 102400);
  EXPECT_EQ(s->n_ctx, 163840);
  EXPECT_EQ(s->n_embd, 2048);
  EXPECT_EQ(s->n_layer, 27);
  EXPECT_EQ(s->n_head, 16);
  EXPECT_EQ(s->n_head_kv, 16);
  EXPECT_EQ(s->head_dim, 192);
  EXPECT_EQ(s->rope_dim, 64);
  EXPECT_EQ(s->v_head_dim, 128);
  EXPECT_EQ(s->q_lora_rank, 0);
  EXPECT_EQ(s->kv_lora_rank, 512);
  EXPECT_EQ(s->n_ff, 10944);
  EXPECT_EQ(s->n_dense_lead, 1);
  EXPECT_EQ(s->n_expert, 64);
  EXPECT_EQ(s->n_expert_used, 6);
  EXPECT_EQ(s->n_ff_exp, 1408);
  EXPECT_EQ(s->n_ff_shexp, 2 * 1408);
  EXPECT_FALSE(s->sigmoid_routing);
  EXPECT_FALSE(s->expert_weights_norm);
  EXPECT_EQ(s->expert_weights_scale, 1.0f);
  EXPECT_EQ(s->rope_yarn_factor, 40.0f);
  EXPECT_EQ(s->rope_yarn_log_mul, 0.0707f);
  EXPECT_EQ(s->rope_freq_base, 10000.0f);
  EXPECT_EQ(s->rms_eps, 1e-6f);
  EXPECT_EQ(block_count(*s), 27);
}

TEST(Deepseek2PresetTest, DeepseekV3AndKimiK2HaveTheRealModelsShapes) {
  auto v3 = model_preset("", "deepseek-v3");
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ(v3->arch, "deepseek2");
  EXPECT_EQ(v3->n_vocab, 129280);
  EXPECT_EQ(v3->n_ctx, 163840);
  EXPECT_EQ(v3->n_embd, 7168);
  EXPECT_EQ(v3->n_layer, 61);
  EXPECT_EQ(v3->n_head, 128);
  EXPECT_EQ(v3->n_head_kv, 128);
  EXPECT_EQ(v3->head_dim, 192);
  EXPECT_EQ(v3->q_lora_rank, 1536);
  EXPECT_EQ(v3->kv_lora_rank, 512);
  EXPECT_EQ(v3->n_ff, 18432);
  EXPECT_EQ(v3->n_dense_lead, 3);
  EXPECT_EQ(v3->n_expert, 256);
  EXPECT_EQ(v3->n_expert_used, 8);
  EXPECT_EQ(v3->n_ff_exp, 2048);
  EXPECT_EQ(v3->n_ff_shexp, 2048);
  EXPECT_TRUE(v3->sigmoid_routing && v3->expert_weights_norm);
  EXPECT_EQ(v3->expert_weights_scale, 2.5f);
  EXPECT_EQ(v3->rope_yarn_factor, 40.0f);
  EXPECT_EQ(v3->rope_yarn_log_mul, 0.1f);
  EXPECT_EQ(v3->rope_freq_base, 10000.0f);

  auto kimi = model_preset("", "kimi-k2");
  ASSERT_TRUE(kimi.ok()) << kimi.status().ToString();
  EXPECT_EQ(kimi->arch, "deepseek2");
  EXPECT_EQ(kimi->n_vocab, 163840);
  EXPECT_EQ(kimi->n_ctx, 131072);
  EXPECT_EQ(kimi->n_embd, 7168);
  EXPECT_EQ(kimi->n_layer, 61);
  EXPECT_EQ(kimi->n_head, 64);
  EXPECT_EQ(kimi->n_head_kv, 64);
  EXPECT_EQ(kimi->q_lora_rank, 1536);
  EXPECT_EQ(kimi->n_dense_lead, 1);
  EXPECT_EQ(kimi->n_expert, 384);
  EXPECT_EQ(kimi->n_expert_used, 8);
  EXPECT_EQ(kimi->n_ff_shexp, 2048);
  EXPECT_EQ(kimi->expert_weights_scale, 2.827f);
  EXPECT_EQ(kimi->rope_yarn_factor, 32.0f);
  EXPECT_EQ(kimi->rope_yarn_log_mul, 0.1f);
  EXPECT_EQ(kimi->rope_freq_base, 50000.0f);
}

// The parameter counts of the real models' GGUF files: V2-Lite 15.7B, V3 671B (its
// multi-token-prediction layer not written), Kimi K2 1.03T, Mistral Small 4 119B.
TEST(Deepseek2PresetTest, PresetsCountTheRealModelsParameters) {
  struct Expect {
    const char* preset;
    uint64_t low, high;
  };
  for (Expect e : {Expect{"deepseek-v2-lite", 15'600'000'000u, 15'800'000'000u},
                   Expect{"deepseek-v3", 670'000'000'000u, 672'000'000'000u},
                   Expect{"kimi-k2", 1'025'000'000'000u, 1'035'000'000'000u},
                   Expect{"mistral-small-4", 118'500'000'000u, 119'500'000'000u}}) {
    auto r = deepseek_model(e.preset, DType::kBF16);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_GT(r->n_params, e.low) << e.preset << " " << r->n_params;
    EXPECT_LT(r->n_params, e.high) << e.preset << " " << r->n_params;
  }
}

// moe-tiny as deepseek2: DeepSeek-V3's attention (a 512-rank query bottleneck: 4 x 128), block 0
// dense, block 1 MoE with the selection bias and one shared expert.
TEST(Deepseek2TensorPlanTest, EveryTensorOfTheKvBLayoutWithItsShape) {
  auto t = deepseek_plan_of("moe-tiny", DType::kF32);
  EXPECT_EQ(t.size(), 3u + 12u + 17u);
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{128, 259}));
  EXPECT_EQ(t["output_norm.weight"].dims, (Dims{128}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{128, 259}));
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_norm.weight"].dims, (Dims{128})) << p;
    EXPECT_EQ(t[p + "attn_q_a.weight"].dims, (Dims{128, 512})) << p;
    EXPECT_EQ(t[p + "attn_q_a_norm.weight"].dims, (Dims{512})) << p;
    EXPECT_EQ(t[p + "attn_q_a_norm.weight"].kind, WeightKind::kNorm) << p;
    EXPECT_EQ(t[p + "attn_q_b.weight"].dims, (Dims{512, 4 * 192})) << p;
    EXPECT_EQ(t[p + "attn_kv_a_mqa.weight"].dims, (Dims{128, 512 + 64})) << p;
    EXPECT_EQ(t[p + "attn_kv_a_norm.weight"].dims, (Dims{512})) << p;
    EXPECT_EQ(t[p + "attn_kv_b.weight"].dims, (Dims{512, 4 * (128 + 128)})) << p;
    EXPECT_EQ(t[p + "attn_output.weight"].dims, (Dims{4 * 128, 128})) << p;
    EXPECT_EQ(t[p + "ffn_norm.weight"].dims, (Dims{128})) << p;
    for (const char* absent : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_k_b.weight",
                               "attn_v_b.weight", "post_attention_norm.weight", "ffn_gate_inp_shexp.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{128, 256}));
  EXPECT_EQ(t["blk.0.ffn_up.weight"].dims, (Dims{128, 256}));
  EXPECT_EQ(t["blk.0.ffn_down.weight"].dims, (Dims{256, 128}));
  EXPECT_EQ(t.count("blk.0.ffn_gate_inp.weight"), 0u);
  EXPECT_EQ(t["blk.1.ffn_gate_inp.weight"].dims, (Dims{128, 8}));
  EXPECT_EQ(t["blk.1.ffn_gate_inp.weight"].type, DType::kF32);
  EXPECT_EQ(t["blk.1.exp_probs_b.bias"].dims, (Dims{8}));
  EXPECT_EQ(t["blk.1.exp_probs_b.bias"].kind, WeightKind::kSelectionBias);
  EXPECT_EQ(t["blk.1.ffn_gate_exps.weight"].dims, (Dims{128, 256, 8}));
  EXPECT_EQ(t["blk.1.ffn_up_exps.weight"].dims, (Dims{128, 256, 8}));
  EXPECT_EQ(t["blk.1.ffn_down_exps.weight"].dims, (Dims{256, 128, 8}));
  EXPECT_EQ(t["blk.1.ffn_gate_shexp.weight"].dims, (Dims{128, 256}));
  EXPECT_EQ(t["blk.1.ffn_up_shexp.weight"].dims, (Dims{128, 256}));
  EXPECT_EQ(t["blk.1.ffn_down_shexp.weight"].dims, (Dims{256, 128}));
  EXPECT_EQ(t.count("blk.1.ffn_gate.weight"), 0u);
  EXPECT_EQ(t.count("blk.2.attn_norm.weight"), 0u);
}

// --split-kv-b: attn_kv_b's place taken by attn_k_b [qk_nope, kv_lora, n_head] and attn_v_b
// [kv_lora, v, n_head], which name it as their source; everything else as before.
TEST(Deepseek2TensorPlanTest, SplitKvBReplacesKvBWithPerHeadKeyAndValueMatrices) {
  auto whole = deepseek_plan_of("moe-tiny", DType::kF32);
  auto t = deepseek_plan_of("moe-tiny", DType::kF32, 0, true);
  EXPECT_EQ(t.size(), whole.size() + 2);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t.count(p + "attn_kv_b.weight"), 0u) << p;
    EXPECT_EQ(t[p + "attn_k_b.weight"].dims, (Dims{128, 512, 4})) << p;
    EXPECT_EQ(t[p + "attn_k_b.weight"].kind, WeightKind::kKvBKeys) << p;
    EXPECT_EQ(t[p + "attn_v_b.weight"].dims, (Dims{512, 128, 4})) << p;
    EXPECT_EQ(t[p + "attn_v_b.weight"].kind, WeightKind::kKvBValues) << p;
    for (const char* split : {"attn_k_b.weight", "attn_v_b.weight"}) {
      EXPECT_EQ(t[p + split].source, p + "attn_kv_b.weight") << p << split;
      EXPECT_EQ(t[p + split].source_head_rows, 256u) << p << split;
    }
  }
  for (const auto& [name, planned] : whole) {
    if (name.find("attn_kv_b") != std::string::npos) continue;
    EXPECT_EQ(t[name].dims, planned.dims) << name;
  }
}

// V2-Lite's queries without a bottleneck (one attn_q), softmax routing without a selection bias;
// --layers 2 keeps its dense first layer and one MoE layer of 64 experts with 2 shared.
TEST(Deepseek2TensorPlanTest, V2LiteHasOneQueryMatrixAndNoSelectionBias) {
  for (bool split : {false, true}) {
    auto r = deepseek_model("deepseek-v2-lite", DType::kQ8_0, 2, split);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->spec.n_layer, 2);
    EXPECT_EQ(r->spec.n_dense_lead, 1);
    auto t = planned_tensors_by_name(r->plan);
    EXPECT_EQ(t.size(), 3u + 2 * 7u + 3u + 7u + (split ? 2u : 0u)) << split;
    EXPECT_EQ(t["token_embd.weight"].dims, (Dims{2048, 102400}));
    for (const std::string p : {"blk.0.", "blk.1."}) {
      EXPECT_EQ(t[p + "attn_q.weight"].dims, (Dims{2048, 16 * 192})) << p;
      EXPECT_EQ(t.count(p + "attn_q_a.weight") + t.count(p + "attn_q_a_norm.weight") + t.count(p + "attn_q_b.weight"),
                0u)
          << p;
      EXPECT_EQ(t[p + "attn_kv_a_mqa.weight"].dims, (Dims{2048, 576})) << p;
      EXPECT_EQ(t[p + "attn_output.weight"].dims, (Dims{16 * 128, 2048})) << p;
      if (split) {
        EXPECT_EQ(t[p + "attn_k_b.weight"].dims, (Dims{128, 512, 16})) << p;
        EXPECT_EQ(t[p + "attn_v_b.weight"].dims, (Dims{512, 128, 16})) << p;
      } else {
        EXPECT_EQ(t[p + "attn_kv_b.weight"].dims, (Dims{512, 16 * 256})) << p;
      }
    }
    EXPECT_EQ(t["blk.0.ffn_up.weight"].dims, (Dims{2048, 10944}));
    EXPECT_EQ(t["blk.1.ffn_gate_inp.weight"].dims, (Dims{2048, 64}));
    EXPECT_EQ(t.count("blk.1.exp_probs_b.bias"), 0u);
    EXPECT_EQ(t["blk.1.ffn_down_exps.weight"].dims, (Dims{1408, 2048, 64}));
    EXPECT_EQ(t["blk.1.ffn_up_shexp.weight"].dims, (Dims{2048, 2816}));
    EXPECT_EQ(t["blk.1.ffn_down_shexp.weight"].dims, (Dims{2816, 2048}));
  }
}

// A cut keeps the leading dense blocks that fit and at least one MoE layer.
TEST(Deepseek2PresetTest, LayersCutKeepsAnMoeLayer) {
  struct Cut {
    int n_layers, n_dense_lead;
  };
  for (Cut c : {Cut{1, 0}, Cut{2, 1}, Cut{3, 2}, Cut{4, 3}, Cut{5, 3}}) {
    auto r = deepseek_model("deepseek-v3", DType::kQ8_0, c.n_layers);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->spec.n_layer, c.n_layers);
    EXPECT_EQ(r->spec.n_dense_lead, c.n_dense_lead) << c.n_layers;
    auto t = planned_tensors_by_name(r->plan);
    const std::string last = "blk." + std::to_string(c.n_layers - 1) + ".";
    EXPECT_EQ(t[last + "ffn_up_exps.weight"].dims, (Dims{7168, 2048, 256})) << c.n_layers;
    EXPECT_EQ(t.count("blk." + std::to_string(c.n_layers) + ".attn_norm.weight"), 0u);
  }
  ModelSpec glm = *model_preset("glm4moe", "moe-tiny");
  set_layer_count(&glm, 1);
  EXPECT_EQ(glm.n_dense_lead, 1);  // glm4moe's NextN block is its MoE block
}

// Another MoE preset as deepseek2 takes DeepSeek-V3's attention, routing and YaRN; a DeepSeek
// preset as another MoE arch drops the latent attention and plans as that arch.
TEST(Deepseek2PresetTest, OtherMoePresetsTakeDeepseekV3sLayoutAndBack) {
  auto qwen = model_preset("deepseek2", "qwen3-30b-a3b");
  ASSERT_TRUE(qwen.ok()) << qwen.status().ToString();
  EXPECT_TRUE(qwen->deepseek2);
  EXPECT_FALSE(qwen->qk_norm);
  EXPECT_EQ(qwen->q_lora_rank, 1536);
  EXPECT_EQ(qwen->kv_lora_rank, 512);
  EXPECT_EQ(qwen->head_dim, 192);
  EXPECT_EQ(qwen->rope_dim, 64);
  EXPECT_EQ(qwen->v_head_dim, 128);
  EXPECT_EQ(qwen->n_head_kv, qwen->n_head);
  EXPECT_EQ(qwen->n_ff_shexp, 768);
  EXPECT_EQ(qwen->n_dense_lead, 1);
  EXPECT_TRUE(qwen->sigmoid_routing && qwen->expert_weights_norm);
  EXPECT_EQ(qwen->expert_weights_scale, 2.5f);
  EXPECT_EQ(qwen->rope_yarn_log_mul, 0.1f);
  auto oss = model_preset("deepseek2", "gpt-oss-20b");
  ASSERT_TRUE(oss.ok()) << oss.status().ToString();
  EXPECT_FALSE(oss->gpt_oss || oss->qkv_bias);
  EXPECT_EQ(oss->sliding_window, 0);
  EXPECT_EQ(oss->rope_yarn_factor, 40.0f);
  EXPECT_TRUE(plan_tensors(*oss, DType::kF16).ok());
  EXPECT_EQ(model_preset("deepseek2", "moe-tiny")->q_lora_rank, 512);  // at most 4 n_embd

  for (const char* arch : {"qwen3moe", "glm4moe", "llama4", "mixtral", "gpt-oss", "qwen2moe"}) {
    auto as_other = model_preset(arch, "deepseek-v3");
    ASSERT_TRUE(as_other.ok()) << arch << ": " << as_other.status().ToString();
    EXPECT_FALSE(as_other->deepseek2) << arch;
    EXPECT_EQ(as_other->kv_lora_rank + as_other->q_lora_rank + as_other->rope_dim + as_other->v_head_dim, 0) << arch;
    EXPECT_EQ(as_other->rope_yarn_log_mul, 0.0f) << arch;
    EXPECT_EQ(as_other->sigmoid_routing, std::string(arch) == "glm4moe") << arch;
    ModelSpec cut = *as_other;
    cut.n_layer = 2;
    auto plan = plan_tensors(cut, DType::kQ8_0);
    ASSERT_TRUE(plan.ok()) << arch << ": " << plan.status().ToString();
    auto t = planned_tensors_by_name(*plan);
    EXPECT_EQ(t.count("blk.1.attn_kv_a_mqa.weight"), 0u) << arch;
  }
}

TEST(Deepseek2PresetTest, DensePresetsAndBrokenLayoutsAreRefused) {
  auto dense = model_preset("deepseek2", "tiny");
  ASSERT_FALSE(dense.ok());
  EXPECT_NE(dense.status().message().find("--arch deepseek2 needs one of: moe-tiny"), std::string::npos)
      << dense.status().message();
  EXPECT_NE(dense.status().message().find("deepseek-v2-lite, deepseek-v3, kimi-k2, mistral-small-4, ernie-4.5-21b-a3b, minimax-m2"), std::string::npos)
      << dense.status().message();

  auto split_qwen = plan_model([] {
    GenerateOptions o;
    o.arch = "qwen3moe";
    o.preset = "moe-tiny";
    o.split_kv_b = true;
    return o;
  }());
  ASSERT_FALSE(split_qwen.ok());
  EXPECT_NE(split_qwen.status().message().find("is for deepseek2 models, not qwen3moe"), std::string::npos)
      << split_qwen.status().message();

  const ModelSpec good = *model_preset("deepseek2", "moe-tiny");
  ModelSpec s = good;
  s.n_head_kv = 2;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("head_count_kv must be 4"), std::string::npos);
  s = good;
  s.n_ff_shexp = 0;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("needs a shared expert"), std::string::npos);
  s = good;
  s.n_ff_shexp = 300;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("whole number of experts of 256"), std::string::npos);
  s = good;
  s.rope_dim = 192;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("rope width under the key head width 192"),
            std::string::npos);
  s = good;
  s.n_dense_lead = 3;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("leading_dense_block_count 3 must be 0..2"),
            std::string::npos);
  s = *model_preset("qwen3moe", "moe-tiny");
  s.kv_lora_rank = 512;
  EXPECT_FALSE(plan_tensors(s, DType::kF32).ok());
  s = *model_preset("qwen3moe", "moe-tiny");
  s.sigmoid_routing = true;
  EXPECT_FALSE(plan_tensors(s, DType::kF32).ok());
}

// Q4_K_M on DeepSeek-V3: llama.cpp's quantizer has no rule for the latent attention's matrices,
// so they take Q4_K; routers, the selection bias and the norms stay F32; ffn_down (dense, experts,
// shared) follows the more-bits layers of 61 (the first 7, every third from 9, the last 8);
// attn_output is Q4_K with 256 experts. Split: attn_k_b's 128-wide rows are not whole Q4_K blocks
// and fall back to Q5_0; attn_v_b's 512 are.
TEST(Deepseek2TensorPlanTest, Q4KMixGivesTheLatentAttentionTheBaseType) {
  auto t = deepseek_plan_of("deepseek-v3", DType::kQ4_K, 0, true);
  for (const char* q4 : {"blk.5.attn_q_a.weight", "blk.5.attn_q_b.weight", "blk.5.attn_kv_a_mqa.weight",
                         "blk.5.attn_v_b.weight", "blk.5.attn_output.weight", "blk.0.ffn_up.weight",
                         "blk.10.ffn_down_exps.weight", "blk.10.ffn_down_shexp.weight", "token_embd.weight"}) {
    EXPECT_EQ(t[q4].type, DType::kQ4_K) << q4;
  }
  for (const char* f32 : {"blk.5.exp_probs_b.bias", "blk.5.ffn_gate_inp.weight", "blk.5.attn_q_a_norm.weight",
                          "blk.5.attn_kv_a_norm.weight", "blk.5.ffn_norm.weight"}) {
    EXPECT_EQ(t[f32].type, DType::kF32) << f32;
  }
  for (const char* q6 : {"output.weight", "blk.0.ffn_down.weight", "blk.9.ffn_down_exps.weight",
                         "blk.9.ffn_down_shexp.weight", "blk.60.ffn_down_exps.weight"}) {
    EXPECT_EQ(t[q6].type, DType::kQ6_K) << q6;
  }
  EXPECT_EQ(t["blk.5.attn_k_b.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.5.attn_k_b.weight"].fallback, "width 128 is not whole q4_K blocks of 256");
  EXPECT_TRUE(t["blk.5.attn_v_b.weight"].fallback.empty());
  EXPECT_EQ(deepseek_plan_of("deepseek-v3", DType::kQ4_K)["blk.5.attn_kv_b.weight"].type, DType::kQ4_K);

  // moe-tiny's 8 experts: attn_output in Q5_K, as llama.cpp gives 8-expert models.
  EXPECT_EQ(deepseek_plan_of("moe-tiny", DType::kQ4_K)["blk.1.attn_output.weight"].type, DType::kQ5_K);
  // V2-Lite: one attn_q in Q4_K; 1408-wide expert rows fall back (Q6_K -> Q8_0, Q4_K -> Q5_0).
  auto lite = deepseek_plan_of("deepseek-v2-lite", DType::kQ4_K);
  EXPECT_EQ(lite["blk.3.attn_q.weight"].type, DType::kQ4_K);
  EXPECT_EQ(lite["blk.1.ffn_down_exps.weight"].type, DType::kQ8_0);
  EXPECT_EQ(lite["blk.4.ffn_down_exps.weight"].type, DType::kQ5_0);
  EXPECT_EQ(lite["blk.1.ffn_down_shexp.weight"].type, DType::kQ6_K);
  EXPECT_EQ(lite["blk.0.ffn_down.weight"].type, DType::kQ8_0);  // Q6_K, 10944 wide
}

// MXFP4_MOE (mxfp4_moe): llama.cpp's MXFP4 goes to every 3-D tensor, the experts and the split
// attn_k_b / attn_v_b; every other matrix is Q8_0. Q2_K's attn_k_b falls back to IQ4_NL.
TEST(Deepseek2TensorPlanTest, Mxfp4MoeMixPutsTheThreeDimensionalTensorsInMxfp4) {
  auto t = deepseek_plan_of("moe-tiny", DType::kMXFP4, 0, true, 38);
  for (const char* mx : {"blk.1.attn_k_b.weight", "blk.1.attn_v_b.weight", "blk.0.attn_k_b.weight",
                         "blk.1.ffn_gate_exps.weight", "blk.1.ffn_down_exps.weight"}) {
    EXPECT_EQ(t[mx].type, DType::kMXFP4) << mx;
  }
  for (const char* q8 : {"blk.1.attn_q_a.weight", "blk.1.attn_q_b.weight", "blk.1.attn_kv_a_mqa.weight",
                         "blk.1.attn_output.weight", "blk.1.ffn_up_shexp.weight", "blk.0.ffn_down.weight",
                         "output.weight", "token_embd.weight"}) {
    EXPECT_EQ(t[q8].type, DType::kQ8_0) << q8;
  }
  EXPECT_EQ(t["blk.1.exp_probs_b.bias"].type, DType::kF32);
  EXPECT_EQ(deepseek_plan_of("moe-tiny", DType::kQ2_K, 0, true)["blk.1.attn_k_b.weight"].type, DType::kIQ4_NL);
}

// Mistral Small 4 (mistral4): DeepSeek's latent attention in llama.cpp's newer layout (attn_k_b /
// attn_v_b, no attn_kv_b) and each layer's experts as one ffn_gate_up_exps of twice the expert width.
TEST(Deepseek2TensorPlanTest, Mistral4WritesTheNewerLayoutWithFusedExperts) {
  GenerateOptions o;
  o.preset = "mistral-small-4";
  o.type = DType::kQ8_0;
  o.n_layers = 2;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "mistral4");
  EXPECT_TRUE(r->spec.deepseek2 && r->spec.mistral4 && r->spec.split_kv_b && r->spec.fused_gate_up_exps);
  EXPECT_FALSE(r->spec.sigmoid_routing);
  EXPECT_EQ(r->spec.n_dense_lead, 0);
  auto plan = planned_tensors_by_name(r->plan);
  EXPECT_EQ(plan["blk.1.ffn_gate_up_exps.weight"].dims, (std::vector<uint64_t>{4096, 4096, 128}));
  EXPECT_EQ(plan["blk.1.attn_k_b.weight"].dims, (std::vector<uint64_t>{64, 256, 32}));
  EXPECT_EQ(plan["blk.1.attn_v_b.weight"].dims, (std::vector<uint64_t>{256, 128, 32}));
  for (const char* absent : {"blk.1.ffn_gate_exps.weight", "blk.1.ffn_up_exps.weight", "blk.1.attn_kv_b.weight",
                             "blk.0.ffn_gate.weight"}) {
    EXPECT_EQ(plan.count(absent), 0u) << absent;
  }
}

}  // namespace
}  // namespace strata
