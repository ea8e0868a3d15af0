// Presets, tensor names/shapes as llama.cpp writes them, and type choice with fallbacks.
#include "modelgen/tensor_plan.h"

#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"

namespace strata {
namespace {

TEST(ModelPresetTest, TinyLlamaShapeMatchesTinyLlama1B) {
  auto s = model_preset("", "1b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "llama");
  EXPECT_EQ(s->n_embd, 2048);
  EXPECT_EQ(s->n_layer, 22);
  EXPECT_EQ(s->n_head, 32);
  EXPECT_EQ(s->n_head_kv, 4);
  EXPECT_EQ(s->n_ff, 5632);
  EXPECT_EQ(s->n_vocab, 32000);
  GenerateOptions o;
  o.preset = "tinyllama";
  o.type = DType::kQ8_0;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok());
  // TinyLlama-1.1B's parameter count.
  EXPECT_EQ(r->n_params, 1100048384u);
}

TEST(ModelPresetTest, Qwen3ShapeHasQkNormTiedEmbeddingsAndWideHeads) {
  auto s = model_preset("", "qwen3-0.6b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "qwen3");
  EXPECT_EQ(s->head_dim, 128);
  EXPECT_TRUE(s->qk_norm);
  EXPECT_TRUE(s->tied_embeddings);
  EXPECT_EQ(s->rope_freq_base, 1e6f);
  auto plan = plan_tensors(*s, DType::kQ8_0);
  ASSERT_TRUE(plan.ok());
  auto t = planned_tensors_by_name(*plan);
  EXPECT_EQ(t.count("output.weight"), 0u);
  EXPECT_EQ(t["blk.27.attn_q_norm.weight"].dims, (std::vector<uint64_t>{128}));
  EXPECT_EQ(t["blk.0.attn_q.weight"].dims, (std::vector<uint64_t>{1024, 2048}));
  EXPECT_EQ(t["blk.0.attn_k.weight"].dims, (std::vector<uint64_t>{1024, 1024}));
  EXPECT_EQ(t["blk.0.attn_output.weight"].dims, (std::vector<uint64_t>{2048, 1024}));
  EXPECT_EQ(t["token_embd.weight"].dims, (std::vector<uint64_t>{1024, 151936}));
}

TEST(ModelPresetTest, Llama3ShapeHasGroupedQueryAttentionAndLargeVocab) {
  auto s = model_preset("", "llama3-8b");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->arch, "llama");
  EXPECT_EQ(s->rope_freq_base, 500000.0f);
  auto plan = plan_tensors(*s, DType::kQ8_0);
  ASSERT_TRUE(plan.ok());
  auto t = planned_tensors_by_name(*plan);
  EXPECT_EQ(t["blk.31.attn_q.weight"].dims, (std::vector<uint64_t>{4096, 4096}));
  EXPECT_EQ(t["blk.0.attn_k.weight"].dims, (std::vector<uint64_t>{4096, 1024}));
  EXPECT_EQ(t["blk.0.ffn_down.weight"].dims, (std::vector<uint64_t>{14336, 4096}));
  EXPECT_EQ(t["output.weight"].dims, (std::vector<uint64_t>{4096, 128256}));
  GenerateOptions o;
  o.preset = "llama3-8b";
  o.type = DType::kQ8_0;
  auto r = plan_model(o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->n_params, 8030261248u);  // Llama-3-8B's parameter count
}

TEST(ModelPresetTest, Qwen2HasQkvBiases) {
  auto s = model_preset("qwen2", "tiny");
  ASSERT_TRUE(s.ok());
  auto t = planned_tensors_by_name(*plan_tensors(*s, DType::kF32));
  EXPECT_EQ(t["blk.1.attn_q.bias"].dims, (std::vector<uint64_t>{64}));
  EXPECT_EQ(t["blk.1.attn_k.bias"].dims, (std::vector<uint64_t>{32}));
  EXPECT_EQ(t["blk.1.attn_v.bias"].type, DType::kF32);
  EXPECT_EQ(t.count("blk.0.attn_q_norm.weight"), 0u);
}

TEST(ModelPresetTest, UnknownNamesAreRejected) {
  EXPECT_NE(model_preset("", "huge").status().message().find("unknown preset 'huge'"), std::string::npos);
  EXPECT_NE(model_preset("gpt2", "tiny").status().message().find("unknown architecture 'gpt2'"), std::string::npos);
  ModelSpec s = *model_preset("", "tiny");
  EXPECT_EQ(plan_tensors(s, DType::kQ8_1).status().code(), Code::kUnsupported);
  s.n_head_kv = 3;
  EXPECT_EQ(plan_tensors(s, DType::kF32).status().code(), Code::kInvalidArgument);
}

TEST(TensorPlanTest, LlamaTensorNamesAndShapes) {
  auto s = model_preset("llama", "tiny");
  auto plan = plan_tensors(*s, DType::kF16);
  ASSERT_TRUE(plan.ok());
  auto t = planned_tensors_by_name(*plan);
  EXPECT_EQ(plan->tensors.size(), 2u + 2u * 9u + 1u);
  EXPECT_EQ(t["token_embd.weight"].dims, (std::vector<uint64_t>{64, 259}));
  EXPECT_EQ(t["output.weight"].dims, (std::vector<uint64_t>{64, 259}));
  EXPECT_EQ(t["blk.1.ffn_gate.weight"].dims, (std::vector<uint64_t>{64, 128}));
  EXPECT_EQ(t["blk.1.ffn_down.weight"].dims, (std::vector<uint64_t>{128, 64}));
  EXPECT_EQ(t["blk.0.attn_norm.weight"].type, DType::kF32);
  EXPECT_EQ(t["output_norm.weight"].type, DType::kF32);
  EXPECT_EQ(t["blk.0.attn_q.weight"].type, DType::kF16);
  EXPECT_EQ(plan->file_type, 1u);
}

// --arch deci over 8 layers of the small preset: the 6th without attention, the 7th with
// attn_output alone, the 8th without a feed-forward, the widths n_ff, 3/4 and 1/2 of it in whole
// blocks of 256 (768, 512, 256), written per layer.
TEST(TensorPlanTest, DeciLayersFollowTheirKinds) {
  auto s = model_preset("deci", "small");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  set_layer_count(&*s, 8);
  auto plan = plan_tensors(*s, DType::kF16);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  auto t = planned_tensors_by_name(*plan);
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (std::vector<uint64_t>{256, 768}));
  EXPECT_EQ(t["blk.1.ffn_gate.weight"].dims, (std::vector<uint64_t>{256, 512}));
  EXPECT_EQ(t["blk.2.ffn_down.weight"].dims, (std::vector<uint64_t>{256, 256}));
  EXPECT_EQ(t["blk.6.attn_output.weight"].dims, (std::vector<uint64_t>{256, 256}));
  EXPECT_EQ(t.count("blk.6.attn_norm.weight"), 1u);
  for (const char* absent : {"blk.5.attn_norm.weight", "blk.5.attn_q.weight", "blk.5.attn_output.weight",
                             "blk.6.attn_q.weight", "blk.6.attn_k.weight", "blk.7.ffn_norm.weight",
                             "blk.7.ffn_gate.weight"}) {
    EXPECT_EQ(t.count(absent), 0u) << absent;
  }
  EXPECT_EQ(t.count("blk.7.attn_q.weight"), 1u);
  EXPECT_EQ(deci_layer_heads(*s, 5), 0);
  EXPECT_EQ(deci_layer_kv_heads(*s, 6), 0);
  EXPECT_EQ(deci_ffn_width(*s, 7), 0);
}

TEST(TensorPlanTest, Q4KMixKeepsOutputAndSomeLayersInQ6K) {
  auto s = model_preset("llama", "1b");
  auto plan = plan_tensors(*s, DType::kQ4_K);
  ASSERT_TRUE(plan.ok());
  auto t = planned_tensors_by_name(*plan);
  EXPECT_EQ(plan->file_type, 15u);  // Q4_K_M
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_down.weight"].type, DType::kQ6_K);   // first eighth
  EXPECT_EQ(t["blk.21.attn_v.weight"].type, DType::kQ6_K);    // last eighth
  EXPECT_EQ(t["blk.3.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.4.ffn_down.weight"].type, DType::kQ6_K);   // every third between
  EXPECT_EQ(t["blk.10.attn_q.weight"].type, DType::kQ4_K);
  for (const auto& x : plan->tensors) EXPECT_TRUE(x.fallback.empty()) << x.name;
}

TEST(TensorPlanTest, NarrowMatricesFallBackAndSayWhy) {
  auto s = model_preset("llama", "tiny");  // 64 wide: no 256-element K-quant block fits
  auto t = planned_tensors_by_name(*plan_tensors(*s, DType::kQ4_K));
  EXPECT_EQ(t["blk.0.attn_q.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.0.attn_q.weight"].fallback, "width 64 is not whole q4_K blocks of 256");
  EXPECT_EQ(t["output.weight"].type, DType::kQ8_0);  // Q6_K does not fit either
  auto q8 = planned_tensors_by_name(*plan_tensors(*s, DType::kQ8_0));
  EXPECT_TRUE(q8["blk.0.attn_q.weight"].fallback.empty());
  ModelSpec odd = *s;
  odd.n_ff = 72;  // not whole 32-blocks: Q8_0 falls back to F16
  auto f = planned_tensors_by_name(*plan_tensors(odd, DType::kQ8_0));
  EXPECT_EQ(f["blk.0.ffn_down.weight"].type, DType::kF16);
  EXPECT_EQ(f["blk.0.ffn_up.weight"].type, DType::kQ8_0);
}

// The 1b preset (TinyLlama: 22 layers, 8 query heads per K/V head) in llama.cpp's Q3_K_M,
// Q2_K and IQ4_XS mixes.
TEST(TensorPlanTest, LowBitTypesFollowTheirLlamaCppMix) {
  auto s = model_preset("llama", "1b");
  auto q3 = plan_tensors(*s, DType::kQ3_K);
  ASSERT_TRUE(q3.ok());
  EXPECT_EQ(q3->file_type, 12u);  // Q3_K_M
  auto t = planned_tensors_by_name(*q3);
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ3_K);
  EXPECT_EQ(t["blk.1.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(t["blk.2.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ffn_down.weight"].type, DType::kQ5_K);
  EXPECT_EQ(t["blk.9.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.9.attn_output.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.9.ffn_gate.weight"].type, DType::kQ3_K);

  auto q2 = plan_tensors(*s, DType::kQ2_K);
  EXPECT_EQ(q2->file_type, 10u);
  auto t2 = planned_tensors_by_name(*q2);
  EXPECT_EQ(t2["blk.9.attn_v.weight"].type, DType::kQ4_K);  // 8 query heads per K/V head
  EXPECT_EQ(t2["blk.9.ffn_down.weight"].type, DType::kQ3_K);
  EXPECT_EQ(t2["blk.9.attn_q.weight"].type, DType::kQ2_K);

  auto iq4 = plan_tensors(*s, DType::kIQ4_XS);
  EXPECT_EQ(iq4->file_type, 30u);
  auto t4 = planned_tensors_by_name(*iq4);
  EXPECT_EQ(t4["blk.1.ffn_down.weight"].type, DType::kQ5_K);
  EXPECT_EQ(t4["blk.9.ffn_down.weight"].type, DType::kIQ4_XS);
  EXPECT_EQ(t4["blk.9.attn_v.weight"].type, DType::kQ5_K);
  for (const auto& x : iq4->tensors) EXPECT_TRUE(x.fallback.empty()) << x.name;
}

TEST(TensorPlanTest, NarrowLowBitMatricesFallBackToIq4Nl) {
  auto s = model_preset("llama", "tiny");
  auto t = planned_tensors_by_name(*plan_tensors(*s, DType::kQ3_K));
  EXPECT_EQ(t["blk.0.attn_q.weight"].type, DType::kIQ4_NL);
  EXPECT_EQ(t["blk.0.attn_q.weight"].fallback, "width 64 is not whole q3_K blocks of 256");
  EXPECT_EQ(t["blk.0.attn_v.weight"].type, DType::kQ5_1);  // Q5_K in the mix, then Q5_1
  for (DType type : {DType::kQ4_1, DType::kQ5_1, DType::kIQ4_NL}) {
    auto p = planned_tensors_by_name(*plan_tensors(*s, type));
    EXPECT_TRUE(p["blk.0.ffn_up.weight"].fallback.empty()) << dtype_name(type);
  }
}

}  // namespace
}  // namespace strata
