// Generated lfm2 / lfm2moe (Liquid LFM2, LFM2-MoE) files: the keys llama.cpp's converter writes (a
// head_count_kv per layer, shortconv.l_cache, no key_length where the heads fill n_embd, LFM2-MoE's
// dense lead and sigmoid gate), the tensors' names and types, and `strata quantize` giving a
// generated F32 file the same types as generating it quantized, its attn_v numbered among the
// attending layers as llama.cpp numbers them and its short-convolution taps left F32.
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

class Lfm2GeneratorTest : public testing::GeneratorTest {};

// tiny as lfm2: 2 layers C*, K/V heads in layer 1 only; 3 convolution taps; head_count and
// feed_forward_length once; no key_length (4 heads of 16 fill the 64 wide); no Mamba-2, interval or
// expert keys; the taps F32 [3, 64] in a Q8_0 file; token_embd_norm, no output_norm or output.
TEST_F(Lfm2GeneratorTest, WritesLfm2sKeys) {
  auto f = generate(options("lfm2", "tiny", DType::kQ8_0, "dense"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "lfm2.";
  EXPECT_EQ(f->get_string("general.architecture"), "lfm2");
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(f->get_array(a + "attention.head_count"), nullptr);
  EXPECT_EQ(f->get_array(a + "feed_forward_length"), nullptr);
  const std::pair<const char*, uint64_t> keys[] = {{"block_count", 2},         {"embedding_length", 64},
                                                   {"attention.head_count", 4}, {"feed_forward_length", 128},
                                                   {"shortconv.l_cache", 3},    {"vocab_size", 259}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  for (const char* absent : {"attention.key_length", "ssm.conv_kernel", "full_attention_interval", "expert_count",
                             "leading_dense_block_count", "expert_gating_func", "attention.sliding_window"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  const GgufTensor* taps = f->find_tensor("blk.0.shortconv.conv.weight");
  ASSERT_NE(taps, nullptr);
  EXPECT_EQ(taps->type, DType::kF32);
  EXPECT_EQ(taps->dims, (std::vector<uint64_t>{3, 64}));
  EXPECT_EQ(f->find_tensor("blk.0.shortconv.in_proj.weight")->type, DType::kQ8_0);
  EXPECT_EQ(f->find_tensor("blk.1.attn_q_norm.weight")->dims, (std::vector<uint64_t>{16}));
  EXPECT_NE(f->find_tensor("token_embd_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("output_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("output.weight"), nullptr);
}

// moe-tiny as lfm2moe cut to 3 layers (CC*): LFM2-8B-A1B's expert keys as its converter writes them
// (the counts, the expert width beside the dense one, one leading dense layer, the sigmoid gate; no
// shared expert, no weights norm or scale: the renormalisation is the arch's); the selection bias F32
// within +- 0.1.
TEST_F(Lfm2GeneratorTest, WritesLfm2MoesExpertKeys) {
  GenerateOptions o = options("lfm2moe", "moe-tiny", DType::kQ8_0, "moe");
  o.n_layers = 3;
  auto f = generate(o);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "lfm2moe.";
  EXPECT_EQ(int_array(*f, a + "attention.head_count_kv"), (std::vector<int64_t>{0, 0, 2}));
  const std::pair<const char*, uint64_t> keys[] = {
      {"expert_count", 8},      {"expert_used_count", 2},         {"expert_feed_forward_length", 256},
      {"feed_forward_length", 256}, {"leading_dense_block_count", 1}, {"expert_gating_func", 2},
      {"shortconv.l_cache", 3}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  for (const char* absent : {"expert_shared_feed_forward_length", "expert_shared_count", "expert_weights_norm",
                             "expert_weights_scale"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  EXPECT_NE(f->find_tensor("blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_gate_inp.weight"), nullptr);
  const GgufTensor* bias = f->find_tensor("blk.1.exp_probs_b.bias");
  ASSERT_NE(bias, nullptr);
  ASSERT_EQ(bias->type, DType::kF32);
  const auto* b = reinterpret_cast<const float*>(bias->data);
  for (uint64_t e = 0; e < bias->n_elements; ++e) EXPECT_TRUE(b[e] >= -0.1f && b[e] <= 0.1f) << e << ": " << b[e];
  EXPECT_EQ(f->find_tensor("blk.1.ffn_gate_inp.weight")->type, DType::kF32);
  EXPECT_NE(f->find_tensor("blk.2.ffn_gate_exps.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.2.ffn_up_shexp.weight"), nullptr);
}

// tiny as lfm2 with LFM2-1.2B's layer_types (attending at 2, 5, 8, 10, 12, 14) and 4 query heads per K/V
// head: strata quantize reads the attending layers from head_count_kv, as mkmodel plans them. In
// Q4_K_M the 3rd and 6th attn_v (blocks 8 and 14) raised to Q6_K, block 10 not; in Q3_K_M the first
// two (blocks 2 and 5) Q5_K; in IQ4_XS attn_v unraised, layer 0's K/V heads being 0 (n_gqa 0, not 4).
// Rows 64 wide are not whole K-quant blocks: Q6_K falls back to Q8_0, Q5_K to Q5_1, Q4_K to Q5_0,
// IQ4_XS to IQ4_NL. The taps F32 in each.
TEST_F(Lfm2GeneratorTest, QuantizeAndGenerateNumberAttnVAlike) {
  ModelSpec spec = *model_preset("lfm2", "tiny");
  spec.layer_pattern = "CC*CC*CC*C*C*C*C";
  spec.n_head_kv = 1;
  set_layer_count(&spec, 16);
  auto q4 = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, "tiny16");
  for (int l : {8, 14}) EXPECT_EQ(q4["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ8_0) << l;
  for (int l : {2, 10}) EXPECT_EQ(q4["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ5_0) << l;
  EXPECT_EQ(q4["blk.0.shortconv.in_proj.weight"].type, DType::kQ5_0);
  EXPECT_EQ(q4["blk.0.shortconv.conv.weight"].type, DType::kF32);
  auto q3 = quantized_as_planned(spec, "q3_k_m", DType::kQ3_K, "tiny16q3");
  EXPECT_EQ(q3["blk.5.attn_v.weight"].type, DType::kQ5_1);
  EXPECT_EQ(q3["blk.8.attn_v.weight"].type, DType::kQ5_0);
  auto iq4 = quantized_as_planned(spec, "iq4_xs", DType::kIQ4_XS, "tiny16iq4");
  EXPECT_EQ(iq4["blk.2.attn_v.weight"].type, DType::kIQ4_NL);
  EXPECT_EQ(iq4["blk.0.shortconv.conv.weight"].type, DType::kF32);
}

// moe-tiny as lfm2moe cut to 8 layers (CC*CC*CC, one dense layer) in Q4_K_M: the dense and expert
// ffn_down by the layer in their name (blocks 0, 3 and 7 raised, block 4 not), attn_v Q8_0 (llama.cpp's
// rule for 8 experts); alike in both.
TEST_F(Lfm2GeneratorTest, QuantizeAndGenerateGiveTheSameExpertMix) {
  ModelSpec spec = *model_preset("lfm2moe", "moe-tiny");
  set_layer_count(&spec, 8);
  auto types = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, "moe8");
  EXPECT_EQ(types["blk.0.ffn_down.weight"].type, DType::kQ6_K);
  EXPECT_EQ(types["blk.3.ffn_down_exps.weight"].type, DType::kQ6_K);
  EXPECT_EQ(types["blk.4.ffn_down_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(types["blk.7.ffn_down_exps.weight"].type, DType::kQ6_K);
  EXPECT_EQ(types["blk.2.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(types["blk.5.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(types["blk.1.exp_probs_b.bias"].type, DType::kF32);
}

}  // namespace
}  // namespace strata
