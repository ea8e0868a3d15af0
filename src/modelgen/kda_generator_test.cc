// Generated bailingmoe3 (Ling 3.0) and kimi-linear (Kimi Linear) files: the keys ik_llama.cpp reads and
// llama.cpp's converter writes (a head_count_kv per layer, 0 in the KDA layers; ssm.conv_kernel,
// kda.head_dim; Ling's safe gate, lower bound, per-expert shared width and expert groups; deepseek2's
// latent and routing keys, Kimi's without YaRN), the KDA tensors' values and F32 types, and `strata
// quantize` giving a generated F32 file the same types as generating it quantized (attn_v numbered among
// the KDA layers).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/layer_keys.h"
#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/weight_rng.h"

namespace strata {
namespace {

class KdaGeneratorTest : public testing::GeneratorTest {};

// moe-tiny as bailingmoe3 with 16 experts in 8 groups (4 used) and two shared experts: layers KKK*,
// head_count_kv 4 (attn_kv_b whole) in layer 3 only; the KDA keys; the safe gate and its bound; the shared
// expert's width per expert beside expert_shared_count 2 (ik_llama.cpp multiplies them); the groups; the
// routing keys deepseek2 writes; the rates positive in [1, 16]; the convolutions F32 [4, 1, 512].
TEST_F(KdaGeneratorTest, WritesLing3sKeys) {
  ModelSpec spec = *model_preset("bailingmoe3", "moe-tiny");
  spec.n_expert = 16;
  spec.n_expert_groups = 8;
  spec.n_expert_groups_used = 4;
  spec.n_ff_shexp = 2 * spec.n_ff_exp;
  auto f = generate_spec(spec, DType::kQ8_0, "ling");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "bailingmoe3.";
  EXPECT_EQ(f->get_string("general.architecture"), "bailingmoe3");
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 0, 0, 4}));
  const std::pair<const char*, uint64_t> keys[] = {
      {"block_count", 4},         {"ssm.conv_kernel", 4},          {"kda.head_dim", 128},
      {"expert_count", 16},       {"expert_group_count", 8},       {"expert_group_used_count", 4},
      {"expert_shared_count", 2}, {"expert_shared_feed_forward_length", 256}, {"expert_feed_forward_length", 256},
      {"attention.q_lora_rank", 512}, {"attention.kv_lora_rank", 512}, {"rope.dimension_count", 64},
      {"expert_gating_func", 2},  {"leading_dense_block_count", 1}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  EXPECT_EQ(f->get_bool(a + "kda.safe_gate"), true);
  EXPECT_FLOAT_EQ(static_cast<float>(f->get_float(a + "kda.gate_lower_bound").value_or(0)), kKdaGateLowerBound);
  EXPECT_EQ(f->get_bool(a + "expert_weights_norm"), true);
  EXPECT_EQ(f->find(a + "nextn_predict_layers"), nullptr);
  const GgufTensor* rates = f->find_tensor("blk.1.ssm_a");
  ASSERT_NE(rates, nullptr);
  EXPECT_EQ(rates->type, DType::kF32);
  EXPECT_EQ(rates->dims, (std::vector<uint64_t>{1, 4}));
  const auto* av = reinterpret_cast<const float*>(rates->data);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(av[h], 1.0f + 15.0f * WeightRng(7, "blk.1.ssm_a").uniform(h)) << h;
  for (const char* part : {"q", "k", "v"}) {
    const GgufTensor* conv = f->find_tensor(std::string("blk.0.ssm_conv1d_") + part + ".weight");
    ASSERT_NE(conv, nullptr) << part;
    EXPECT_EQ(conv->type, DType::kF32) << part;
    EXPECT_EQ(conv->dims, (std::vector<uint64_t>{4, 1, 512})) << part;
  }
  EXPECT_EQ(f->find_tensor("blk.0.ssm_f_a.weight")->type, DType::kQ8_0);
  EXPECT_EQ(f->find_tensor("blk.3.attn_gate.weight")->dims, (std::vector<uint64_t>{128, 4}));
  EXPECT_EQ(f->find_tensor("blk.3.ffn_up_shexp.weight")->dims, (std::vector<uint64_t>{128, 512}));
}

// moe-tiny as kimi-linear: head_count_kv 1 (the split form) in layer 3 only, the latent widths of the split
// form, no query rank, Kimi's routing keys (sigmoid, normalised, times 2.446; one shared expert), and none of
// Ling's gate, group or shared-width keys nor a YaRN key; the rates -A with A in [1, 16]; the rank-128
// inputs.
TEST_F(KdaGeneratorTest, WritesKimiLinearsKeys) {
  auto f = generate(options("kimi-linear", "moe-tiny", DType::kQ8_0, "kimi"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "kimi-linear.";
  EXPECT_EQ(f->get_string("general.architecture"), "kimi-linear");
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 0, 0, 1}));
  const std::pair<const char*, uint64_t> keys[] = {
      {"ssm.conv_kernel", 4},       {"kda.head_dim", 128},         {"attention.kv_lora_rank", 512},
      {"attention.key_length", 576}, {"attention.key_length_mla", 192}, {"attention.value_length_mla", 128},
      {"rope.dimension_count", 64}, {"expert_shared_count", 1},    {"leading_dense_block_count", 1},
      {"expert_gating_func", 2}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  EXPECT_FLOAT_EQ(static_cast<float>(f->get_float(a + "expert_weights_scale").value_or(0)), 2.446f);
  EXPECT_EQ(f->get_bool(a + "expert_weights_norm"), true);
  for (const char* absent : {"kda.safe_gate", "kda.gate_lower_bound", "expert_group_count",
                             "expert_shared_feed_forward_length", "rope.scaling.yarn_log_multiplier",
                             "rope.scaling.type", "attention.q_lora_rank", "swiglu_clamp_exp"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  const GgufTensor* rates = f->find_tensor("blk.2.ssm_a");
  ASSERT_NE(rates, nullptr);
  const auto* av = reinterpret_cast<const float*>(rates->data);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(av[h], -(1.0f + 15.0f * WeightRng(7, "blk.2.ssm_a").uniform(h))) << h;
  EXPECT_EQ(f->find_tensor("blk.0.ssm_f_b.weight")->dims, (std::vector<uint64_t>{128, 512}));
  EXPECT_EQ(f->find_tensor("blk.0.ssm_g_a.weight")->dims, (std::vector<uint64_t>{128, 128}));
  EXPECT_NE(f->find_tensor("blk.3.attn_k_b.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.3.attn_kv_b.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.3.attn_gate.weight"), nullptr);
}

// strata quantize on a generated F32 file gives every tensor the type generating it quantized gives, in
// Q4_K_M (16 experts, so not llama.cpp's 8-expert rule): the convolutions and rates F32, attn_v numbered
// among the KDA layers as llama.cpp counts attn_v tensors. In 8 layers KKK*KKK* the 6 KDA layers' 3rd and
// 6th (blk.2, blk.6) get more bits, not blk.0, which by its layer number would.
TEST_F(KdaGeneratorTest, QuantizeGivesTheGeneratedTypes) {
  for (const char* arch : {"bailingmoe3", "kimi-linear"}) {
    SCOPED_TRACE(arch);
    ModelSpec spec = *model_preset(arch, "moe-tiny");
    set_layer_count(&spec, 8);
    spec.n_embd = 256;  // whole Q4_K blocks
    spec.n_expert = 16;
    auto t = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, std::string(arch) + "-q4km");
    EXPECT_EQ(t["blk.0.ssm_conv1d_q.weight"].type, DType::kF32);
    EXPECT_EQ(t["blk.0.ssm_a"].type, DType::kF32);
    EXPECT_EQ(t["blk.0.attn_v.weight"].type, DType::kQ4_K);
    EXPECT_EQ(t["blk.2.attn_v.weight"].type, DType::kQ6_K);
    EXPECT_EQ(t["blk.4.attn_v.weight"].type, DType::kQ4_K);
    EXPECT_EQ(t["blk.6.attn_v.weight"].type, DType::kQ6_K);
  }
}

}  // namespace
}  // namespace strata
