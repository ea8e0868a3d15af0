// llama.cpp's per-tensor mixes: which tensors a Q3_K_M / Q2_K / IQ4_XS / Q4_K_M / TQ1_0 file
// raises, the width fallbacks, and which tensors are quantized at all.
#include "modelgen/type_mix.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

namespace strata {
namespace {

// A 32-layer dense model with 4 query heads per K/V head (Llama 3 8B-like).
constexpr MixModel kLlama8b{32, 0, 4, true};
// The same with one query head per K/V head (Llama 2 7B-like).
constexpr MixModel kLlama7b{32, 0, 1, true};

uint32_t ft(const char* name) { return *mix_file_type(name); }

TEST(TypeMixTest, NamesAreCaseInsensitiveAndUnknownMixesAreRejected) {
  EXPECT_EQ(mix_file_type("q3_k_m"), 12u);
  EXPECT_EQ(mix_file_type("Q4_K_M"), 15u);
  EXPECT_EQ(mix_file_type("IQ4_XS"), 30u);
  EXPECT_EQ(mix_file_type("bf16"), 32u);
  EXPECT_FALSE(mix_file_type("iq2_xxs"));  // needs an importance matrix
  EXPECT_EQ(lattice_mix_file_type("iq2_xxs"), 19u);  // generated models only
  EXPECT_EQ(lattice_mix_file_type("IQ2_M"), 29u);
  EXPECT_FALSE(lattice_mix_file_type("q4_k_m"));
  EXPECT_EQ(mix_names().find("iq2"), std::string::npos);
  EXPECT_FALSE(mix_file_type("q4_k"));     // a tensor type, not a file type
  EXPECT_EQ(mix_base_type(12), DType::kQ3_K);
  EXPECT_NE(mix_names().find("q3_k_m"), std::string::npos);
}

TEST(TypeMixTest, Q3KMRaisesAttnVFfnDownAttnOutputAndOutput) {
  const uint32_t q3m = ft("Q3_K_M");
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "output.weight", 4096), DType::kQ6_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "token_embd.weight", 4096), DType::kQ3_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.0.attn_v.weight", 4096), DType::kQ5_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.1.attn_v.weight", 4096), DType::kQ5_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.2.attn_v.weight", 4096), DType::kQ4_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.1.ffn_down.weight", 11008), DType::kQ5_K);  // first 16th
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.2.ffn_down.weight", 11008), DType::kQ4_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.5.attn_output.weight", 4096), DType::kQ4_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.5.attn_q.weight", 4096), DType::kQ3_K);
  EXPECT_EQ(mix_tensor_type(q3m, kLlama7b, "blk.5.ffn_up.weight", 4096), DType::kQ3_K);
}

TEST(TypeMixTest, Q2KRaisesAttnVByGroupedQueryAttention) {
  const uint32_t q2 = ft("Q2_K");
  EXPECT_EQ(mix_tensor_type(q2, kLlama7b, "blk.9.attn_v.weight", 4096), DType::kQ3_K);
  EXPECT_EQ(mix_tensor_type(q2, kLlama8b, "blk.9.attn_v.weight", 4096), DType::kQ4_K);
  EXPECT_EQ(mix_tensor_type(q2, kLlama8b, "blk.9.ffn_down.weight", 14336), DType::kQ3_K);
  EXPECT_EQ(mix_tensor_type(q2, kLlama8b, "blk.9.attn_output.weight", 4096), DType::kQ3_K);
  EXPECT_EQ(mix_tensor_type(q2, kLlama8b, "blk.9.ffn_gate.weight", 4096), DType::kQ2_K);
  EXPECT_EQ(mix_tensor_type(q2, kLlama8b, "output.weight", 4096), DType::kQ6_K);
}

TEST(TypeMixTest, Iq4XsGivesTheFirstEighthsFfnDownQ5K) {
  const uint32_t iq4 = ft("IQ4_XS");
  EXPECT_EQ(mix_tensor_type(iq4, kLlama8b, "blk.3.ffn_down.weight", 14336), DType::kQ5_K);
  EXPECT_EQ(mix_tensor_type(iq4, kLlama8b, "blk.4.ffn_down.weight", 14336), DType::kIQ4_XS);
  EXPECT_EQ(mix_tensor_type(iq4, kLlama8b, "blk.4.attn_v.weight", 4096), DType::kQ5_K);
  EXPECT_EQ(mix_tensor_type(iq4, kLlama7b, "blk.4.attn_v.weight", 4096), DType::kIQ4_XS);
}

TEST(TypeMixTest, TiedEmbeddingsTakeTheOutputType) {
  MixModel tied = kLlama8b;
  tied.has_output = false;
  EXPECT_EQ(mix_tensor_type(ft("Q4_K_M"), tied, "token_embd.weight", 1024), DType::kQ6_K);
  EXPECT_EQ(mix_tensor_type(ft("Q8_0"), tied, "token_embd.weight", 1024), DType::kQ8_0);
  EXPECT_EQ(mix_tensor_type(ft("Q4_0"), tied, "token_embd.weight", 1024), DType::kQ6_K);
  // 288 is whole Q4_0 blocks, so the mix says Q6_K, which falls back to Q8_0.
  EXPECT_EQ(width_fallback(mix_tensor_type(ft("Q4_0"), tied, "token_embd.weight", 288), 288), DType::kQ8_0);
  EXPECT_EQ(mix_tensor_type(ft("Q4_K_M"), tied, "token_embd.weight", 288), DType::kQ8_0);  // not whole Q4_K
}

TEST(TypeMixTest, EightExpertModelsKeepAttentionInMoreBits) {
  const MixModel mixtral{32, 8, 4, true};
  EXPECT_EQ(mix_tensor_type(ft("Q3_K_M"), mixtral, "blk.4.attn_v.weight", 4096), DType::kQ8_0);
  EXPECT_EQ(mix_tensor_type(ft("Q2_K"), mixtral, "blk.4.attn_k.weight", 4096), DType::kQ8_0);
  EXPECT_EQ(mix_tensor_type(ft("Q2_K"), mixtral, "blk.4.attn_output.weight", 4096), DType::kQ5_K);
  EXPECT_EQ(mix_tensor_type(ft("Q2_K"), mixtral, "blk.4.ffn_down_exps.weight", 14336), DType::kQ3_K);
}

// How many matrices of each type a mix gives a TinyLlama-1.1B-shaped model (22 layers, 32
// query heads on 4 K/V heads, 2048 wide, ffn 5632).
std::map<DType, int> tinyllama_mix(uint32_t file_type) {
  const MixModel m{22, 0, 8, true};
  std::map<DType, int> count;
  ++count[mix_tensor_type(file_type, m, "token_embd.weight", 2048)];
  ++count[mix_tensor_type(file_type, m, "output.weight", 2048)];
  for (int l = 0; l < 22; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* t : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up"}) {
      ++count[mix_tensor_type(file_type, m, p + t + ".weight", 2048)];
    }
    ++count[mix_tensor_type(file_type, m, p + "ffn_down.weight", 5632)];
  }
  return count;
}

// The mixes of llama-quantize's files of these names made from a generated 1.1B F16 model
// with an importance matrix (`strata gguf-info` of each).
TEST(TypeMixTest, LatticeMixesMatchLlamaQuantizesFiles) {
  using M = std::map<DType, int>;
  EXPECT_EQ(tinyllama_mix(*lattice_mix_file_type("IQ3_S")), (M{{DType::kIQ3_S, 133}, {DType::kQ4_K, 22},
                                                                {DType::kQ6_K, 1}}));
  EXPECT_EQ(tinyllama_mix(*lattice_mix_file_type("IQ3_XXS")),
            (M{{DType::kIQ3_XXS, 66}, {DType::kIQ2_S, 44}, {DType::kIQ3_S, 23}, {DType::kQ4_K, 22},
               {DType::kQ5_K, 1}}));
  EXPECT_EQ(tinyllama_mix(*lattice_mix_file_type("IQ2_S")),
            (M{{DType::kIQ2_XS, 108}, {DType::kIQ3_S, 25}, {DType::kQ4_K, 22}, {DType::kQ5_K, 1}}));
}

// llama.cpp's rules for the 1- and 2-bit mixes (IQ2_XXS's counts are those of llama-quantize's
// file too; the others have no file of theirs to compare with here).
TEST(TypeMixTest, LowBitLatticeMixesRaiseEmbeddingsAttnVFirstFfnDownAndAttnOutput) {
  using M = std::map<DType, int>;
  EXPECT_EQ(tinyllama_mix(*lattice_mix_file_type("IQ2_XXS")),
            (M{{DType::kIQ2_XXS, 130}, {DType::kQ2_K, 3}, {DType::kQ4_K, 22}, {DType::kQ5_K, 1}}));
  EXPECT_EQ(tinyllama_mix(*lattice_mix_file_type("IQ2_M")),
            (M{{DType::kIQ2_S, 108}, {DType::kIQ3_S, 25}, {DType::kQ4_K, 22}, {DType::kQ5_K, 1}}));
  EXPECT_EQ(tinyllama_mix(*lattice_mix_file_type("IQ1_S")),
            (M{{DType::kIQ1_S, 108}, {DType::kIQ2_XXS, 22}, {DType::kQ2_K, 3}, {DType::kQ4_K, 22}, {DType::kQ5_K, 1}}));
  EXPECT_EQ(mix_tensor_type(*lattice_mix_file_type("IQ1_M"), kLlama7b, "blk.9.attn_v.weight", 4096), DType::kQ2_K);
  EXPECT_EQ(mix_tensor_type(*lattice_mix_file_type("IQ2_S"), kLlama7b, "blk.9.attn_v.weight", 4096), DType::kIQ3_S);
  EXPECT_EQ(mix_tensor_type(*lattice_mix_file_type("IQ2_XS"), kLlama7b, "blk.9.attn_k.weight", 4096), DType::kIQ2_XS);
  EXPECT_EQ(mix_tensor_type(*lattice_mix_file_type("IQ1_M"), kLlama7b, "output.weight", 4096), DType::kQ5_K);
  EXPECT_EQ(width_fallback(DType::kIQ1_M, 288), DType::kIQ4_NL);
  EXPECT_EQ(mix_base_type(*lattice_mix_file_type("IQ2_S")), DType::kIQ2_XS);
}

// llama.cpp's TQ1_0 / TQ2_0 (file types 36, 37; BitNet b1.58): every matrix ternary but the
// output (Q6_K; Q8_0 where its rows are not whole 256s) and a separate token_embd (Q4_K); tied
// embeddings take the output's type; the Mixtral-style attn_v / attn_k rule still holds; rows
// that are not whole 256s fall back to Q4_0 (F16 when not whole 32s either).
TEST(TypeMixTest, TernaryMixesKeepTheEmbeddingsAndOutputInKQuants) {
  using M = std::map<DType, int>;
  for (const auto& [name, type, id] : {std::tuple{"tq1_0", DType::kTQ1_0, 36u}, std::tuple{"TQ2_0", DType::kTQ2_0, 37u}}) {
    ASSERT_EQ(mix_file_type(name), id) << name;
    EXPECT_EQ(mix_base_type(id), type);
    EXPECT_EQ(tinyllama_mix(id), (M{{type, 154}, {DType::kQ4_K, 1}, {DType::kQ6_K, 1}})) << name;
    constexpr MixModel kBitnet2b{30, 0, 4, false};  // BitNet b1.58 2B4T: tied embeddings, 2560 wide
    EXPECT_EQ(mix_tensor_type(id, kBitnet2b, "token_embd.weight", 2560), DType::kQ6_K);
    EXPECT_EQ(mix_tensor_type(id, kBitnet2b, "blk.0.attn_v.weight", 2560), type);
    EXPECT_EQ(mix_tensor_type(id, kBitnet2b, "blk.29.ffn_down.weight", 6912), type);
    EXPECT_EQ(mix_tensor_type(id, kLlama8b, "output.weight", 4000), DType::kQ8_0);  // not whole 256s
    const MixModel mixtral{32, 8, 4, true};
    EXPECT_EQ(mix_tensor_type(id, mixtral, "blk.4.attn_v.weight", 4096), DType::kQ8_0);
    EXPECT_EQ(mix_tensor_type(id, mixtral, "blk.4.attn_k.weight", 4096), DType::kQ8_0);
    EXPECT_EQ(mix_tensor_type(id, mixtral, "blk.4.attn_output.weight", 4096), type);
    EXPECT_EQ(width_fallback(type, 288), DType::kQ4_0);
    EXPECT_EQ(width_fallback(type, 72), DType::kF16);
    EXPECT_EQ(width_fallback(type, 2560), type);
  }
  EXPECT_NE(mix_names().find("tq1_0 tq2_0"), std::string::npos);
}

// llama.cpp's MXFP4_MOE (file type 38, gpt-oss's): the experts MXFP4, every other matrix,
// embeddings and output included, Q8_0.
TEST(TypeMixTest, Mxfp4MoePutsOnlyTheExpertsInMxfp4) {
  const uint32_t mx = ft("mxfp4_moe");
  EXPECT_EQ(mx, 38u);
  EXPECT_EQ(mix_base_type(mx), DType::kMXFP4);
  EXPECT_NE(mix_names().find("mxfp4_moe"), std::string::npos);
  constexpr MixModel kMoe{24, 32, 8, true};
  for (const char* name : {"blk.3.ffn_gate_exps.weight", "blk.3.ffn_up_exps.weight", "blk.0.ffn_down_exps.weight"}) {
    EXPECT_EQ(mix_tensor_type(mx, kMoe, name, 2880), DType::kMXFP4) << name;
  }
  for (const char* name : {"token_embd.weight", "output.weight", "blk.3.attn_q.weight", "blk.3.attn_v.weight",
                           "blk.0.ffn_down.weight", "blk.3.ffn_up_shexp.weight", "blk.3.attn_output.weight"}) {
    EXPECT_EQ(mix_tensor_type(mx, kMoe, name, 2880), DType::kQ8_0) << name;
  }
}

TEST(TypeMixTest, FloatFileTypesHaveNoMix) {
  EXPECT_EQ(mix_tensor_type(ft("F16"), kLlama8b, "output.weight", 4096), DType::kF16);
  EXPECT_EQ(mix_tensor_type(ft("BF16"), kLlama8b, "blk.0.attn_v.weight", 4096), DType::kBF16);
}

TEST(TypeMixTest, NarrowRowsFallBackAsLlamaCppDoes) {
  EXPECT_EQ(width_fallback(DType::kQ3_K, 288), DType::kIQ4_NL);
  EXPECT_EQ(width_fallback(DType::kQ2_K, 288), DType::kIQ4_NL);
  EXPECT_EQ(width_fallback(DType::kIQ4_XS, 288), DType::kIQ4_NL);
  EXPECT_EQ(width_fallback(DType::kQ4_K, 288), DType::kQ5_0);
  EXPECT_EQ(width_fallback(DType::kQ5_K, 288), DType::kQ5_1);
  EXPECT_EQ(width_fallback(DType::kQ6_K, 288), DType::kQ8_0);
  EXPECT_EQ(width_fallback(DType::kQ3_K, 72), DType::kF16);  // not whole 32s either
  EXPECT_EQ(width_fallback(DType::kQ8_0, 72), DType::kF16);
  EXPECT_EQ(width_fallback(DType::kQ3_K, 512), DType::kQ3_K);
}

TEST(TypeMixTest, OnlyWeightMatricesAreQuantized) {
  EXPECT_TRUE(is_quantizable_tensor("blk.0.attn_q.weight", 2));
  EXPECT_TRUE(is_quantizable_tensor("blk.0.ffn_down_exps.weight", 3));
  EXPECT_FALSE(is_quantizable_tensor("blk.0.attn_norm.weight", 1));
  EXPECT_FALSE(is_quantizable_tensor("blk.0.attn_q_norm.weight", 2));
  EXPECT_FALSE(is_quantizable_tensor("blk.0.ffn_gate_inp.weight", 2));
  EXPECT_FALSE(is_quantizable_tensor("blk.0.attn_q.bias", 2));
  EXPECT_FALSE(is_quantizable_tensor("rope_freqs.weight", 1));
  EXPECT_FALSE(is_quantizable_tensor("blk.0.ssm_conv1d.weight", 2));  // 4 taps per channel
  EXPECT_TRUE(is_quantizable_tensor("blk.0.ssm_alpha.weight", 2));
  EXPECT_FALSE(is_quantizable_tensor("blk.0.ssm_a", 1));
}

// Qwen3.5-35B-A3B-like (attention in every 4th of 40 layers): llama.cpp raises attn_v by its
// index among the attn_v tensors, block 35's being the 9th (not raised) and block 7's the 2nd
// (raised); a dense model of 40 layers raises block 35's (the last eighth) and not block 6's.
TEST(TypeMixTest, HybridModelsRaiseAttnVByItsIndexAmongTheAttendingLayers) {
  constexpr MixModel kHybrid{40, 256, 8, true, 4};
  constexpr MixModel kDense{40, 256, 8, true};
  const uint32_t q4m = ft("Q4_K_M");
  EXPECT_EQ(mix_tensor_type(q4m, kHybrid, "blk.35.attn_v.weight", 2048), DType::kQ4_K);
  EXPECT_EQ(mix_tensor_type(q4m, kHybrid, "blk.7.attn_v.weight", 2048), DType::kQ6_K);
  EXPECT_EQ(mix_tensor_type(q4m, kDense, "blk.35.attn_v.weight", 2048), DType::kQ6_K);
  EXPECT_EQ(mix_tensor_type(q4m, kDense, "blk.6.attn_v.weight", 2048), DType::kQ4_K);
  EXPECT_EQ(mix_tensor_type(q4m, kHybrid, "blk.35.ffn_down_exps.weight", 512), DType::kQ6_K);  // by layer
  EXPECT_EQ(mix_tensor_type(q4m, kHybrid, "blk.0.attn_qkv.weight", 2048), DType::kQ5_K);
}

}  // namespace
}  // namespace strata
