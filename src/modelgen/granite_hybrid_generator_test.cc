// Generated granitehybrid (IBM Granite 4.0-H) files: the keys llama.cpp's converter writes (a
// head_count_kv per layer, the Mamba-2 shapes, no rope, Granite 4.0-H's multipliers, the expert
// width as feed_forward_length), Mamba-2 weights in the ranges that keep every state decaying, and
// `strata quantize` giving a generated F32 file the same types as generating it quantized.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/weight_rng.h"

namespace strata {
namespace {

// The shared fixture with options for granitehybrid presets, cut to n_layers (0: the preset's).
class GraniteHybridGeneratorTest : public testing::GeneratorTest {
 protected:
  GenerateOptions options(const std::string& preset, DType type, int n_layers, const std::string& name) const {
    GenerateOptions o = GeneratorTest::options("granitehybrid", preset, type, name);
    o.n_layers = n_layers;
    return o;
  }
};

// moe-tiny as granitehybrid with 7 layers: K/V heads in layer 5 only; Mamba-2 layers of 4 heads of
// 64 over one group of 32 state values; Granite 4.0-H's multipliers (attention scale 1 / 32, the
// head size); the expert width as feed_forward_length and no expert_feed_forward_length.
TEST_F(GraniteHybridGeneratorTest, WritesGranite40HsKeys) {
  auto f = generate(options("moe-tiny", DType::kF32, 7, "keys"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "granitehybrid.";
  EXPECT_EQ(f->get_string("general.architecture"), "granitehybrid");
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0}));
  const std::pair<const char*, uint64_t> keys[] = {
      {"block_count", 7},       {"embedding_length", 128},       {"attention.head_count", 4},
      {"ssm.conv_kernel", 4},   {"ssm.state_size", 32},          {"ssm.group_count", 1},
      {"ssm.time_step_rank", 4}, {"ssm.inner_size", 256},        {"feed_forward_length", 256},
      {"expert_count", 8},      {"expert_used_count", 2},        {"expert_shared_feed_forward_length", 512}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  EXPECT_EQ(f->find(a + "expert_feed_forward_length"), nullptr);
  EXPECT_EQ(f->find(a + "full_attention_interval"), nullptr);
  EXPECT_EQ(f->get_bool(a + "rope.scaling.finetuned"), std::optional<bool>(false));
  EXPECT_FLOAT_EQ(f->get_float(a + "embedding_scale").value_or(0), 12.0f);
  EXPECT_FLOAT_EQ(f->get_float(a + "attention.scale").value_or(0), 1.0f / 32);
  EXPECT_FLOAT_EQ(f->get_float(a + "residual_scale").value_or(0), 0.22f);
  EXPECT_FLOAT_EQ(f->get_float(a + "logit_scale").value_or(0), 6.0f);
  EXPECT_EQ(f->find_tensor("blk.0.ssm_a")->dims, (std::vector<uint64_t>{1, 4}));
  EXPECT_EQ(f->find_tensor("blk.0.ssm_conv1d.weight")->type, DType::kF32);
}

// Every Mamba-2 head decays at a sane rate: ssm_a = -exp(u), u in [-2, 0.5]; ssm_dt.bias in [-2, 0];
// ssm_d in [0.5, 1.5]; each the counter-based value at its index.
TEST_F(GraniteHybridGeneratorTest, Mamba2WeightsKeepTheirRanges) {
  auto f = generate(options("moe-tiny", DType::kF32, 2, "ranges"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const GgufTensor* a = f->find_tensor("blk.0.ssm_a");
  const GgufTensor* dt = f->find_tensor("blk.0.ssm_dt.bias");
  const GgufTensor* d = f->find_tensor("blk.0.ssm_d");
  ASSERT_TRUE(a != nullptr && dt != nullptr && d != nullptr);
  ASSERT_EQ(a->n_elements, 4u);
  const auto* av = reinterpret_cast<const float*>(a->data);
  const auto* dtv = reinterpret_cast<const float*>(dt->data);
  const auto* dv = reinterpret_cast<const float*>(d->data);
  for (uint64_t h = 0; h < a->n_elements; ++h) {
    EXPECT_TRUE(av[h] <= -std::exp(-2.0f) && av[h] >= -std::exp(0.5f)) << h << ": " << av[h];
    EXPECT_EQ(av[h], -std::exp(-2.0f + 2.5f * WeightRng(7, "blk.0.ssm_a").uniform(h))) << h;
    EXPECT_TRUE(dtv[h] > -2.0f && dtv[h] <= 0.0f) << h << ": " << dtv[h];
    EXPECT_TRUE(dv[h] >= 0.5f && dv[h] < 1.5f) << h << ": " << dv[h];
    EXPECT_EQ(dv[h], 1.0f + WeightRng(7, "blk.0.ssm_d").symmetric(h, 0.5f)) << h;
  }
}

// The small preset as granitehybrid with 16 layers in Q3_K_M: the quantizer reads the attending
// layers from head_count_kv (block 15's attn_v, the second attn_v, takes Q3_K_M's Q5_K for the
// first two).
TEST_F(GraniteHybridGeneratorTest, QuantizeAndGenerateGiveTheSameMix) {
  ModelSpec spec = *model_preset("granitehybrid", "small");
  set_layer_count(&spec, 16);
  auto types = quantized_as_planned(spec, "q3_k_m", DType::kQ3_K, "small16");
  EXPECT_EQ(types["blk.15.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(types["blk.0.ssm_in.weight"].type, DType::kQ3_K);
  EXPECT_EQ(types["blk.0.ssm_d"].type, DType::kF32);
}

// Q2_K raises attn_v to Q4_K where llama.cpp's n_gqa() (layer 0's heads over its K/V heads) is 4
// or more: small with 2 K/V heads (8 / 2) in one layer, which attends; with 6 layers layer 0 is a
// Mamba-2 layer without K/V heads, n_gqa 0, and block 5's attn_v keeps Q2_K's Q3_K.
TEST_F(GraniteHybridGeneratorTest, QuantizeAndGenerateReadLayerZerosHeadsForGqa) {
  ModelSpec spec = *model_preset("granitehybrid", "small");
  spec.n_head_kv = 2;
  set_layer_count(&spec, 1);
  EXPECT_EQ(quantized_as_planned(spec, "q2_k", DType::kQ2_K, "one")["blk.0.attn_v.weight"].type, DType::kQ4_K);
  set_layer_count(&spec, 6);
  EXPECT_EQ(quantized_as_planned(spec, "q2_k", DType::kQ2_K, "six")["blk.5.attn_v.weight"].type, DType::kQ3_K);
}

}  // namespace
}  // namespace strata
