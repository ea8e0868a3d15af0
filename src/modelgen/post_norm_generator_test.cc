// Generated olmo2, exaone4 and olmoe files (AI2 OLMo 2 / OLMo 3, LG EXAONE 4.0, AI2 OLMoE): the keys
// llama.cpp's converter writes (no key_length where the config has no head_dim, OLMo 3's window and
// YaRN, EXAONE 4.0's key_length, window and baked rope_freqs, OLMoE's expert counts with
// feed_forward_length as the expert width and no other expert key), the tensors' shapes, and `strata
// quantize` giving a generated F32 file the same types as generating it quantized.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/generator_test_fixture.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/rope_factors.h"

namespace strata {
namespace {

class PostNormGeneratorTest : public testing::GeneratorTest {
 protected:
  PostNormGeneratorTest() { seed_ = 5; }
};

// tiny as olmo2 (OLMo 2): the common keys, no key_length (OLMo's config has no head_dim), no window,
// pattern or rope scaling; post-norms and whole-row q/k norms, no pre-norms; an output matrix.
TEST_F(PostNormGeneratorTest, WritesOlmo2sKeys) {
  auto f = generate(options("olmo2", "tiny", DType::kQ8_0, "olmo2"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "olmo2.";
  EXPECT_EQ(f->get_string("general.architecture"), "olmo2");
  const std::pair<const char*, uint64_t> keys[] = {{"block_count", 2},         {"embedding_length", 64},
                                                   {"attention.head_count", 4}, {"attention.head_count_kv", 2},
                                                   {"feed_forward_length", 128}, {"context_length", 512}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  for (const char* absent : {"attention.key_length", "attention.sliding_window", "attention.sliding_window_pattern",
                             "rope.scaling.type", "expert_count"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  EXPECT_EQ(f->find_tensor("blk.0.attn_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.attn_q_norm.weight")->dims, (std::vector<uint64_t>{64}));
  EXPECT_EQ(f->find_tensor("blk.1.attn_k_norm.weight")->dims, (std::vector<uint64_t>{32}));
  EXPECT_NE(f->find_tensor("blk.1.post_attention_norm.weight"), nullptr);
  EXPECT_NE(f->find_tensor("blk.1.post_ffw_norm.weight"), nullptr);
  EXPECT_NE(f->find_tensor("output.weight"), nullptr);
}

// OLMo 3's parts on tiny: attention.sliding_window, YaRN (type, factor, the original context
// n_ctx / factor) and sliding_window_pattern, a flag per layer (every layer but each 4th slides), as
// llama.cpp's converter writes them.
TEST_F(PostNormGeneratorTest, WritesOlmo3sWindowAndYarn) {
  ModelSpec spec = *model_preset("olmo2", "tiny");
  spec.sliding_window = 16;
  spec.rope_yarn_factor = 4.0f;
  auto f = generate_spec(spec, DType::kF32, "olmo3");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_uint("olmo2.attention.sliding_window"), 16u);
  EXPECT_EQ(f->get_string("olmo2.rope.scaling.type"), "yarn");
  EXPECT_FLOAT_EQ(static_cast<float>(f->find("olmo2.rope.scaling.factor")->as_float().value_or(0)), 4.0f);
  EXPECT_EQ(f->get_uint("olmo2.rope.scaling.original_context_length"), 128u);
  const GgufValue* pattern = f->find("olmo2.attention.sliding_window_pattern");
  ASSERT_NE(pattern, nullptr);
  ASSERT_EQ(pattern->array_size(), static_cast<size_t>(spec.n_layer));
  for (int l = 0; l < spec.n_layer; ++l) {
    EXPECT_EQ(pattern->uint_at(static_cast<size_t>(l)), (l + 1) % 4 != 0 ? 1u : 0u) << "layer " << l;
  }
}

// tiny as exaone4 (EXAONE 4.0 1.2B's kind): key_length and value_length (its config has head_dim), q/k
// norms of one head, no window or rope_freqs. With the 32B's parts: the window and rope_freqs.weight
// holding the llama3 factors of its head over the original context, no rope scaling key.
TEST_F(PostNormGeneratorTest, WritesExaone4sKeysAndRopeFreqs) {
  auto plain = generate(options("exaone4", "tiny", DType::kQ8_0, "exaone4"));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->get_uint("exaone4.attention.key_length"), 16u);
  EXPECT_EQ(plain->get_uint("exaone4.attention.value_length"), 16u);
  EXPECT_EQ(plain->find("exaone4.attention.sliding_window"), nullptr);
  EXPECT_EQ(plain->find_tensor("rope_freqs.weight"), nullptr);
  EXPECT_EQ(plain->find_tensor("blk.0.attn_norm.weight"), nullptr);
  EXPECT_EQ(plain->find_tensor("blk.0.attn_q_norm.weight")->dims, (std::vector<uint64_t>{16}));
  EXPECT_EQ(plain->find_tensor("blk.0.attn_k_norm.weight")->dims, (std::vector<uint64_t>{16}));

  ModelSpec spec = *model_preset("exaone4", "tiny");
  spec.sliding_window = 8;
  spec.rope_freqs_factor = 16.0f;
  spec.rope_freqs_orig_ctx = 128;
  auto f = generate_spec(spec, DType::kQ8_0, "exaone4-32b");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_uint("exaone4.attention.sliding_window"), 8u);
  ASSERT_NE(f->find("exaone4.attention.sliding_window_pattern"), nullptr);
  EXPECT_EQ(f->find("exaone4.attention.sliding_window_pattern")->array_size(), static_cast<size_t>(spec.n_layer));
  EXPECT_EQ(f->find("exaone4.rope.scaling.type"), nullptr);
  const GgufTensor* freqs = f->find_tensor("rope_freqs.weight");
  ASSERT_NE(freqs, nullptr);
  ASSERT_EQ(freqs->type, DType::kF32);
  const std::vector<float> want = spec_rope_factors(spec);
  ASSERT_EQ(freqs->n_elements, want.size());
  std::vector<float> got(want.size());
  std::memcpy(got.data(), freqs->data, got.size() * sizeof(float));
  EXPECT_EQ(got, want);
  EXPECT_FLOAT_EQ(got.front(), 1.0f);
  EXPECT_FLOAT_EQ(got.back(), 16.0f);
}

// moe-tiny as olmoe: the expert counts and feed_forward_length as the expert width, as OLMoE's
// converter writes them, and no other expert key (softmax, weights as they are, no shared expert: the
// arch's); whole-row q/k norms; a router without a selection bias.
TEST_F(PostNormGeneratorTest, WritesOlmoesExpertKeys) {
  auto f = generate(options("olmoe", "moe-tiny", DType::kQ8_0, "olmoe"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "olmoe.";
  const std::pair<const char*, uint64_t> keys[] = {
      {"expert_count", 8}, {"expert_used_count", 2}, {"feed_forward_length", 256}, {"block_count", 2}};
  for (const auto& [key, value] : keys) EXPECT_EQ(f->get_uint(a + key), value) << key;
  for (const char* absent : {"expert_feed_forward_length", "expert_shared_feed_forward_length", "expert_shared_count",
                             "expert_gating_func", "expert_weights_norm", "expert_weights_scale",
                             "leading_dense_block_count", "attention.key_length"}) {
    EXPECT_EQ(f->find(a + absent), nullptr) << absent;
  }
  EXPECT_EQ(f->find_tensor("blk.0.attn_q_norm.weight")->dims, (std::vector<uint64_t>{128}));
  EXPECT_EQ(f->find_tensor("blk.0.attn_k_norm.weight")->dims, (std::vector<uint64_t>{64}));
  EXPECT_NE(f->find_tensor("blk.0.attn_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_gate_inp.weight")->type, DType::kF32);
  EXPECT_EQ(f->find_tensor("blk.0.exp_probs_b.bias"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_up_shexp.weight"), nullptr);
}

// tiny as olmo2 and as exaone4 (tied, as EXAONE 4.0 1.2B) over 8 layers, F32 then quantized: the
// types of generating them quantized. Q4_K_M raises attn_v and ffn_down in blocks 0, 3, 6 and 7 (to
// Q6_K, which 64- and 128-wide rows hold as Q8_0; the others' Q4_K as Q5_0); the tied token_embd is an
// output (Q8_0 for rows of 64). Q3_K_M: attn_v of blocks 0-1 Q5_K (as Q5_1), attn_output Q4_K.
TEST_F(PostNormGeneratorTest, QuantizeAndGenerateGiveOlmo2AndExaone4TheSameMix) {
  ModelSpec olmo = *model_preset("olmo2", "tiny");
  set_layer_count(&olmo, 8);
  auto q4 = quantized_as_planned(olmo, "q4_k_m", DType::kQ4_K, "olmo8");
  for (int l : {0, 3, 6, 7}) EXPECT_EQ(q4["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ8_0) << l;
  for (int l : {1, 2, 4, 5}) EXPECT_EQ(q4["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ5_0) << l;
  EXPECT_EQ(q4["blk.3.ffn_down.weight"].type, DType::kQ8_0);
  auto q3 = quantized_as_planned(olmo, "q3_k_m", DType::kQ3_K, "olmo8q3");
  EXPECT_EQ(q3["blk.1.attn_v.weight"].type, DType::kQ5_1);
  EXPECT_EQ(q3["blk.2.attn_output.weight"].type, DType::kQ5_0);

  ModelSpec exaone = *model_preset("exaone4", "tiny");
  exaone.tied_embeddings = true;
  set_layer_count(&exaone, 8);
  auto e4 = quantized_as_planned(exaone, "q4_k_m", DType::kQ4_K, "exaone8");
  EXPECT_EQ(e4["token_embd.weight"].type, DType::kQ8_0);
  EXPECT_EQ(e4["blk.6.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(e4["blk.5.attn_v.weight"].type, DType::kQ5_0);
  EXPECT_EQ(e4["blk.0.post_ffw_norm.weight"].type, DType::kF32);
}

// moe-tiny as olmoe with 8 experts (llama.cpp's 8-expert rules: attn_v, attn_k Q8_0) and with 16
// narrower ones (the plain rules, ffn_down_exps by block); alike in both.
TEST_F(PostNormGeneratorTest, QuantizeAndGenerateGiveOlmoeTheSameExpertMix) {
  ModelSpec eight = *model_preset("olmoe", "moe-tiny");
  auto e8 = quantized_as_planned(eight, "q4_k_m", DType::kQ4_K, "olmoe8");
  EXPECT_EQ(e8["blk.0.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(e8["blk.1.attn_k.weight"].type, DType::kQ8_0);
  EXPECT_EQ(e8["blk.1.ffn_gate_inp.weight"].type, DType::kF32);
  ModelSpec sixteen = eight;
  sixteen.n_expert = 16;
  sixteen.n_expert_used = 4;
  sixteen.n_ff = sixteen.n_ff_exp = 64;
  set_layer_count(&sixteen, 8);
  auto e16 = quantized_as_planned(sixteen, "q4_k_m", DType::kQ4_K, "olmoe16");
  EXPECT_EQ(e16["blk.3.ffn_down_exps.weight"].type, DType::kQ8_0);
  EXPECT_EQ(e16["blk.4.ffn_down_exps.weight"].type, DType::kQ5_0);
  EXPECT_EQ(e16["blk.1.attn_k.weight"].type, DType::kQ5_0);
}

}  // namespace
}  // namespace strata
