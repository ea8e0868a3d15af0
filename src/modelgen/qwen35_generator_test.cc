// Generated qwen35 / qwen35moe files: the keys llama.cpp's converter writes for Qwen3.5 (the
// attention interval, the delta-net shapes, a quarter of each head rotated, the rope sections),
// delta-net weights in the ranges that make every state decay, and `strata quantize` giving a
// generated F32 file the same types as generating it quantized.
#include <gtest/gtest.h>

#include <cmath>

#include "gguf/gguf_file.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/weight_rng.h"

namespace strata {
namespace {

class Qwen35GeneratorTest : public testing::GeneratorTest {};

// moe-tiny as qwen35moe: 4 blocks, delta-net layers of 4 key heads and 8 value heads of 16, the
// attention's heads of 32 rotated over 8 values, a shared expert of the expert width.
TEST_F(Qwen35GeneratorTest, WritesQwen35sKeys) {
  auto f = generate(options("qwen35moe", "moe-tiny", DType::kF32, "moe"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "qwen35moe");
  const std::pair<const char*, uint64_t> keys[] = {
      {"block_count", 4},           {"full_attention_interval", 4}, {"ssm.conv_kernel", 4},
      {"ssm.state_size", 16},       {"ssm.group_count", 4},         {"ssm.time_step_rank", 8},
      {"ssm.inner_size", 128},      {"rope.dimension_count", 8},    {"attention.key_length", 32},
      {"attention.value_length", 32}, {"attention.head_count", 4},  {"attention.head_count_kv", 2},
      {"expert_count", 8},          {"expert_used_count", 2},       {"expert_feed_forward_length", 256},
      {"expert_shared_feed_forward_length", 256}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(std::string("qwen35moe.") + key), value) << key;
  EXPECT_EQ(int_array(*f, "qwen35moe.rope.dimension_sections"), (std::vector<int64_t>{1, 1, 2, 0}));
  EXPECT_EQ(f->find_tensor("blk.0.ssm_conv1d.weight")->type, DType::kF32);
}

// A head of Qwen3.5's 256: 64 values rotated in the sections Qwen3.5's files carry.
TEST_F(Qwen35GeneratorTest, Qwen35sHeadWritesItsRopeSections) {
  auto spec = model_preset("qwen35", "tiny");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  spec->head_dim = 256;
  const GenerateOptions o = options("", "", DType::kF32, "wide-heads");
  ASSERT_TRUE(generate_model_from_spec(*spec, o).ok());
  auto f = GgufFile::Open(o.out_path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_uint("qwen35.rope.dimension_count"), 64u);
  EXPECT_EQ(f->get_uint("qwen35.attention.key_length"), 256u);
  EXPECT_EQ(int_array(*f, "qwen35.rope.dimension_sections"), (std::vector<int64_t>{11, 11, 10, 0}));
}

// Every value head decays: ssm_a = -A with A in [1, 16), softplus(ssm_dt.bias) a step in
// [0.001, 0.1]; the convolution's taps spread as a matrix of rows 4 wide; each is the counter-based
// value at its index.
TEST_F(Qwen35GeneratorTest, DeltaNetWeightsDecayAndKeepTheirScale) {
  auto f = generate(options("qwen35", "tiny", DType::kF32, "tiny"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  for (int l : {0, 1, 2}) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const GgufTensor* a = f->find_tensor(p + "ssm_a");
    const GgufTensor* dt = f->find_tensor(p + "ssm_dt.bias");
    const GgufTensor* conv = f->find_tensor(p + "ssm_conv1d.weight");
    ASSERT_TRUE(a != nullptr && dt != nullptr && conv != nullptr) << p;
    ASSERT_EQ(a->n_elements, 8u);
    const auto* av = reinterpret_cast<const float*>(a->data);
    const auto* dtv = reinterpret_cast<const float*>(dt->data);
    for (uint64_t h = 0; h < a->n_elements; ++h) {
      EXPECT_TRUE(av[h] <= -1.0f && av[h] > -16.0f) << p << h << ": " << av[h];
      EXPECT_EQ(av[h], -(1.0f + 15.0f * WeightRng(7, p + "ssm_a").uniform(h))) << p << h;
      const float step = std::log1p(std::exp(dtv[h]));
      EXPECT_TRUE(step >= 0.00099f && step <= 0.1001f) << p << h << ": " << step;
    }
    ASSERT_EQ(conv->n_elements, 4u * 128u);
    const auto* cv = reinterpret_cast<const float*>(conv->data);
    const float half_width = std::sqrt(3.0f / 4.0f);
    double sum_sq = 0;
    for (uint64_t i = 0; i < conv->n_elements; ++i) {
      EXPECT_LE(std::fabs(cv[i]), half_width) << i;
      sum_sq += static_cast<double>(cv[i]) * cv[i];
    }
    EXPECT_NEAR(std::sqrt(sum_sq / static_cast<double>(conv->n_elements)), 0.5, 0.05) << p;
    EXPECT_EQ(cv[511], WeightRng(7, p + "ssm_conv1d.weight").symmetric(511, half_width)) << p;
  }
}

// The small preset as qwen35 with 12 layers in Q4_K_M, by strata quantize from the F32 file and
// by mkmodel: the same type for every tensor. The quantizer reads full_attention_interval (block
// 11's attn_v, the third attn_v, keeps Q4_K) and leaves ssm_conv1d F32.
TEST_F(Qwen35GeneratorTest, QuantizeAndGenerateGiveTheSameMix) {
  GenerateOptions f32 = options("qwen35", "small", DType::kF32, "small-f32");
  f32.n_layers = 12;
  ASSERT_TRUE(generate_model(f32).ok());
  QuantizeOptions q;
  q.in_path = f32.out_path;
  q.file_type = "q4_k_m";
  auto quantized = plan_quantize(q);
  ASSERT_TRUE(quantized.ok()) << quantized.status().ToString();
  GenerateOptions g = options("qwen35", "small", DType::kQ4_K, "unused");
  g.n_layers = 12;
  auto generated = plan_model(g);
  ASSERT_TRUE(generated.ok()) << generated.status().ToString();
  ASSERT_EQ(quantized->tensors.size(), generated->plan.tensors.size());
  for (size_t i = 0; i < quantized->tensors.size(); ++i) {
    const PlannedTensor& t = generated->plan.tensors[i];
    EXPECT_EQ(quantized->tensors[i].name, t.name);
    EXPECT_EQ(quantized->tensors[i].to, t.type) << t.name;
  }
  auto types = planned_tensors_by_name(generated->plan);
  EXPECT_EQ(types["blk.3.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(types["blk.11.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(types["blk.0.ssm_conv1d.weight"].type, DType::kF32);
  EXPECT_EQ(types["blk.0.attn_qkv.weight"].type, DType::kQ5_K);
}

}  // namespace
}  // namespace strata
