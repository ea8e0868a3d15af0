// Generated falcon-h1 (TII Falcon-H1), exaone (EXAONE 3.5) and arcee (AFM) files: the keys llama.cpp's
// converters write (Falcon-H1's Mamba-2 shapes, head_count_kv once, key/value_length, no rope dimension
// key and no multipliers; EXAONE 3.5's rope_freqs; AFM's YaRN over its own original context and its
// key_length), and `strata quantize` giving a generated F32 file the same types as generating it
// quantized, Falcon-H1's attn_v and ffn_down numbered by layer as llama.cpp numbers them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/narrow_spec_test_util.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/plan_test_util.h"

namespace strata {
namespace {

class FalconH1GeneratorTest : public testing::GeneratorTest {};

// tiny as falcon-h1: head_count and head_count_kv once (every layer attends), key/value_length though 4 x
// 16 = 64 is the width, Mamba-2 shapes of 2 heads of 64 over one group of 16 state values; no
// rope.dimension_count (Mamba-2's converter writes none), no Granite rope key, no multiplier; the bare
// ffn_norm F32, ssm_norm one row per group.
TEST_F(FalconH1GeneratorTest, WritesFalconH1sKeys) {
  auto f = generate(options("falcon-h1", "tiny", DType::kQ8_0, "falcon"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "falcon-h1.";
  EXPECT_EQ(f->get_string("general.architecture"), "falcon-h1");
  EXPECT_EQ(f->get_array(a + "attention.head_count_kv"), nullptr);
  const std::pair<const char*, uint64_t> keys[] = {
      {"block_count", 2},          {"embedding_length", 64},      {"feed_forward_length", 128},
      {"attention.head_count", 4}, {"attention.head_count_kv", 2}, {"attention.key_length", 16},
      {"attention.value_length", 16}, {"ssm.conv_kernel", 4},      {"ssm.state_size", 16},
      {"ssm.group_count", 1},      {"ssm.time_step_rank", 2},     {"ssm.inner_size", 128},
      {"context_length", 512}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  for (const char* absent : {"rope.dimension_count", "rope.scaling.finetuned", "embedding_scale", "attention.scale",
                             "residual_scale", "logit_scale", "full_attention_interval", "expert_count"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  const GgufTensor* norm = f->find_tensor("blk.1.ffn_norm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->type, DType::kF32);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.0.ssm_norm.weight")->dims, (std::vector<uint64_t>{128, 1}));
  EXPECT_EQ(f->find_tensor("blk.0.ssm_conv1d.weight")->type, DType::kF32);
  EXPECT_EQ(f->find_tensor("blk.0.ssm_a")->type, DType::kF32);
  EXPECT_NE(f->find_tensor("output.weight"), nullptr);
}

// A preset's spec narrowed to 1 layer (a file of a few MiB), its rope and layout kept.
ModelSpec narrowed(const std::string& preset) { return narrowed_preset("", preset, 1); }

// EXAONE 3.5: its rope_freqs (64 factors, 1 to 8) and no key_length (its converter writes none; heads fill
// n_embd). AFM-4.5B: YaRN 20 over 4096 of its 65536 positions, key/value_length (its config has head_dim),
// no ffn_gate.
TEST_F(FalconH1GeneratorTest, WritesExaoneAndArceeKeys) {
  GenerateOptions eo = options("", "", DType::kQ8_0, "exaone");
  ASSERT_TRUE(generate_model_from_spec(narrowed("exaone-3.5-7.8b"), eo).ok());
  auto e = GgufFile::Open(eo.out_path);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->get_string("general.architecture"), "exaone");
  EXPECT_EQ(e->find("exaone.attention.key_length"), nullptr);
  EXPECT_EQ(e->get_uint("exaone.rope.dimension_count"), 128u);
  const GgufTensor* freqs = e->find_tensor("rope_freqs.weight");
  ASSERT_NE(freqs, nullptr);
  ASSERT_EQ(freqs->n_elements, 64u);
  const auto* factors = reinterpret_cast<const float*>(freqs->data);
  EXPECT_FLOAT_EQ(factors[0], 1.0f);
  EXPECT_FLOAT_EQ(factors[63], 8.0f);

  GenerateOptions ao = options("", "", DType::kQ8_0, "arcee");
  ASSERT_TRUE(generate_model_from_spec(narrowed("afm-4.5b"), ao).ok());
  auto f = GgufFile::Open(ao.out_path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "arcee.";
  EXPECT_EQ(f->get_string(a + "rope.scaling.type"), "yarn");
  EXPECT_FLOAT_EQ(f->get_float(a + "rope.scaling.factor").value_or(0), 20.0f);
  EXPECT_EQ(f->get_uint(a + "rope.scaling.original_context_length"), 4096u);
  EXPECT_EQ(f->get_uint(a + "context_length"), 65536u);
  EXPECT_EQ(f->get_uint(a + "attention.key_length"), 128u);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_gate.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("rope_freqs.weight"), nullptr);
}

// tiny as falcon-h1 over 8 layers: strata quantize reads a file whose every layer has an attn_v as
// llama.cpp does (no attention interval: head_count_kv is one number, ssm.* present). In Q4_K_M (rows of 64
// fall back: Q6_K to Q8_0, Q4_K to Q5_0) attn_v and ffn_down of blocks 0, 3, 6 and 7 raised, 1 and 5 not;
// numbered as if every 4th layer attended, blocks 6 and 7 would not be. In Q3_K_M attn_v of blocks 0 and 1
// Q5_K, block 2's Q4_K (Q5_1 and Q5_0 by width).
TEST_F(FalconH1GeneratorTest, QuantizeAndGenerateNumberAttnVAndFfnDownByLayer) {
  ModelSpec spec = *model_preset("falcon-h1", "tiny");
  set_layer_count(&spec, 8);
  auto q4 = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, "tiny8");
  for (int l : {0, 3, 6, 7}) {
    EXPECT_EQ(q4["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ8_0) << l;
    EXPECT_EQ(q4["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ8_0) << l;
  }
  for (int l : {1, 5}) {
    EXPECT_EQ(q4["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ5_0) << l;
    EXPECT_EQ(q4["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ5_0) << l;
  }
  EXPECT_EQ(q4["blk.0.ssm_conv1d.weight"].type, DType::kF32);
  EXPECT_EQ(q4["blk.0.ffn_norm"].type, DType::kF32);
  auto q3 = quantized_as_planned(spec, "q3_k_m", DType::kQ3_K, "tiny8q3");
  EXPECT_EQ(q3["blk.1.attn_v.weight"].type, DType::kQ5_1);
  EXPECT_EQ(q3["blk.2.attn_v.weight"].type, DType::kQ5_0);
}

// small as arcee and EXAONE 3.5 narrowed: llama's numbering, alike in both (EXAONE's rope_freqs F32 in
// both).
TEST_F(FalconH1GeneratorTest, QuantizeAndGenerateAgreeForExaoneAndArcee) {
  auto arcee = quantized_as_planned(*model_preset("arcee", "small"), "q4_k_m", DType::kQ4_K, "arcee4");
  EXPECT_EQ(arcee["blk.3.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(arcee["blk.0.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(arcee["blk.1.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(arcee.count("blk.0.ffn_gate.weight"), 0u);
  auto exaone = quantized_as_planned(narrowed("exaone-3.5-7.8b"), "q4_k_m", DType::kQ4_K, "exaone1");
  EXPECT_EQ(exaone["rope_freqs.weight"].type, DType::kF32);
  EXPECT_EQ(exaone["blk.0.ffn_down.weight"].type, DType::kQ6_K);
}

}  // namespace
}  // namespace strata
