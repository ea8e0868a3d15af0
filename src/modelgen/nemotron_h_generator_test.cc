// Generated nemotron_h / nemotron_h_moe (NVIDIA Nemotron-H, Nemotron 3 Nano) files: the keys
// llama.cpp's converter writes (a head_count_kv and a feed_forward_length per layer, the Mamba-2
// shapes, the head widths, no rope, no Granite multipliers; Nemotron 3 Nano's routing keys), and
// `strata quantize` giving a generated F32 file the same types as generating it quantized, its
// attn_v and gate-less ffn_down numbered as llama.cpp numbers them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/plan_test_util.h"

namespace strata {
namespace {

class NemotronHGeneratorTest : public testing::GeneratorTest {};

// tiny as nemotron_h: 7 layers M-M-M*-, K/V heads in layer 5 only, the feed-forward width in layers
// 1, 3 and 6; head_count once; Mamba-2 layers of 2 heads of 64 over one group of 16 state values;
// key/value_length written though 4 x 16 = 64 is the width; no rope (rope.scaling.finetuned false);
// no Granite multipliers and no expert keys.
TEST_F(NemotronHGeneratorTest, WritesNemotronHsKeys) {
  auto f = generate(options("nemotron_h", "tiny", DType::kF32, "dense"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "nemotron_h.";
  EXPECT_EQ(f->get_string("general.architecture"), "nemotron_h");
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0}));
  EXPECT_EQ(int_array(*f, a + "feed_forward_length"), (std::vector<int64_t>{0, 128, 0, 128, 0, 0, 128}));
  EXPECT_EQ(f->get_array(a + "attention.head_count"), nullptr);
  const std::pair<const char*, uint64_t> keys[] = {
      {"block_count", 7},        {"embedding_length", 64},   {"attention.head_count", 4},
      {"attention.key_length", 16}, {"attention.value_length", 16}, {"ssm.conv_kernel", 4},
      {"ssm.state_size", 16},    {"ssm.group_count", 1},     {"ssm.time_step_rank", 2},
      {"ssm.inner_size", 128}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  EXPECT_EQ(f->get_bool(a + "rope.scaling.finetuned"), std::optional<bool>(false));
  for (const char* absent : {"embedding_scale", "attention.scale", "residual_scale", "logit_scale", "expert_count",
                             "full_attention_interval", "expert_weights_scale"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  EXPECT_EQ(f->find_tensor("blk.0.ssm_norm.weight")->dims, (std::vector<uint64_t>{128, 1}));
  EXPECT_EQ(f->find_tensor("blk.1.ffn_gate.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_norm.weight"), nullptr);
  EXPECT_NE(f->find_tensor("output.weight"), nullptr);
}

// moe-tiny as nemotron_h_moe: 7 layers MEMEM*E, feed_forward_length the expert width in the expert
// layers; Nemotron 3 Nano's expert keys as its converter writes them (the widths, one shared expert,
// one group, weights normalised and scaled by 2.5; no gating function: sigmoid is the arch's); the
// selection bias F32 within +- 0.1.
TEST_F(NemotronHGeneratorTest, WritesNemotron3NanosExpertKeys) {
  auto f = generate(options("nemotron_h_moe", "moe-tiny", DType::kQ8_0, "moe"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "nemotron_h_moe.";
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 0, 0, 0, 0, 2, 0}));
  EXPECT_EQ(int_array(*f, a + "feed_forward_length"), (std::vector<int64_t>{0, 256, 0, 256, 0, 0, 256}));
  const std::pair<const char*, uint64_t> keys[] = {
      {"expert_count", 8},        {"expert_used_count", 2},   {"expert_feed_forward_length", 256},
      {"expert_shared_feed_forward_length", 512}, {"expert_shared_count", 1}, {"expert_group_count", 1},
      {"ssm.time_step_rank", 4},  {"ssm.group_count", 1},     {"ssm.state_size", 32}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  EXPECT_EQ(f->get_bool(a + "expert_weights_norm"), std::optional<bool>(true));
  EXPECT_FLOAT_EQ(f->get_float(a + "expert_weights_scale").value_or(0), 2.5f);
  EXPECT_EQ(f->find(a + "expert_gating_func"), nullptr);
  const GgufTensor* bias = f->find_tensor("blk.1.exp_probs_b.bias");
  ASSERT_NE(bias, nullptr);
  ASSERT_EQ(bias->type, DType::kF32);
  const auto* b = reinterpret_cast<const float*>(bias->data);
  for (uint64_t e = 0; e < bias->n_elements; ++e) EXPECT_TRUE(b[e] >= -0.1f && b[e] <= 0.1f) << e << ": " << b[e];
  EXPECT_EQ(f->find_tensor("blk.1.ffn_gate_inp.weight")->type, DType::kF32);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_gate_exps.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_gate_shexp.weight"), nullptr);
}

// small as nemotron_h cut to 16 layers (M-M-M*-M-M-M*-M-): strata quantize reads the attending layers
// from head_count_kv and the feed-forward layers from feed_forward_length, as mkmodel plans them. In
// Q4_K_M its 7 ffn_down are numbered 0..6 against the 16 layers (llama.cpp's i_ffn_down): blocks 1,
// 3 and 10 (numbers 0, 1, 4) raised to Q6_K, blocks 13 and 15 (numbers 5, 6) not, though their block
// numbers would raise them; of the two attn_v the second (block 12) raised. In Q3_K_M the first
// ffn_down and both attn_v (the first two) Q5_K.
TEST_F(NemotronHGeneratorTest, QuantizeAndGenerateNumberAttnVAndFfnDownAlike) {
  ModelSpec spec = *model_preset("nemotron_h", "small");
  set_layer_count(&spec, 16);
  auto q4 = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, "small16");
  for (int l : {1, 3, 10}) EXPECT_EQ(q4["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ6_K) << l;
  for (int l : {6, 8, 13, 15}) EXPECT_EQ(q4["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ4_K) << l;
  EXPECT_EQ(q4["blk.5.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(q4["blk.12.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(q4["blk.0.ssm_in.weight"].type, DType::kQ4_K);
  EXPECT_EQ(q4["blk.0.ssm_norm.weight"].type, DType::kF32);
  auto q3 = quantized_as_planned(spec, "q3_k_m", DType::kQ3_K, "small16q3");
  EXPECT_EQ(q3["blk.1.ffn_down.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.3.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(q3["blk.5.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.12.attn_v.weight"].type, DType::kQ5_K);
}

// moe-tiny as nemotron_h_moe in Q4_K_M: the expert and shared-expert ffn_down by the layer in their
// name (block 6, the last eighth of 7 layers, raised; block 3 not), alike in both.
TEST_F(NemotronHGeneratorTest, QuantizeAndGenerateGiveTheSameExpertMix) {
  ModelSpec spec = *model_preset("nemotron_h_moe", "moe-tiny");
  auto types = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, "moe7");
  EXPECT_EQ(types["blk.6.ffn_down_exps.weight"].type, DType::kQ6_K);
  EXPECT_EQ(types["blk.3.ffn_down_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(types["blk.6.ffn_down_shexp.weight"].type, DType::kQ6_K);
  EXPECT_EQ(types["blk.1.exp_probs_b.bias"].type, DType::kF32);
}

}  // namespace
}  // namespace strata
