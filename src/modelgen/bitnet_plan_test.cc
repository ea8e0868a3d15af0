// bitnet (llama.cpp's BitNet b1.58) and bitnet-b1.58 (Microsoft's converter's, BitNet b1.58 2B4T) presets
// and plans: 2B4T's published shape and size, llama's tensors with the two sub-norms per layer and no
// output matrix, the matrices ternary but token_embd, the gate (relu^2 or SiLU) by arch and preset, other
// presets as bitnet and 2B4T as another arch, the spec checks, and llama.cpp's Q4_K_M mix of a tied model.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// BitNet b1.58 2B4T: 2,412,820,480 parameters, 2,084,485,120 besides its 128256 x 2560 embedding table
// (328,335,360; its card: 2B parameters). By hand, each of the 30 layers: q and output 2 x 2560 x 2560, k
// and v 2 x 2560 x 640, a gated feed-forward 3 x 2560 x 6912, attn_norm and ffn_norm 2 x 2560, the
// sub-norms 2560 + 6912 (69,482,752 a layer); tied embeddings and the output norm.
TEST(BitnetPresetTest, Bitnet2b4tMatchesThePublishedShape) {
  auto r = planned_model("", "bitnet-b1.58-2b-4t", DType::kF32);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "bitnet-b1.58");
  EXPECT_TRUE(s.bitnet && s.bitnet_relu2 && s.tied_embeddings);
  EXPECT_FALSE(s.qk_norm || s.qkv_bias || s.post_norms || s.rope_freqs || s.falcon_h1);
  EXPECT_EQ(s.n_vocab, 128256);
  EXPECT_EQ(s.n_ctx, 4096);
  EXPECT_EQ(s.n_embd, 2560);
  EXPECT_EQ(s.n_layer, 30);
  EXPECT_EQ(s.n_head, 20);
  EXPECT_EQ(s.n_head_kv, 5);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 6912);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 500000.0f);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-5f);
  EXPECT_EQ(s.rope_yarn_factor, 1.0f);
  EXPECT_EQ(s.sliding_window, 0);
  EXPECT_EQ(r->n_params, 2'412'820'480u);
  EXPECT_EQ(30u * 69'482'752u + 128256u * 2560u + 2560u, 2'412'820'480u);
  EXPECT_EQ(r->n_params - 128256u * 2560u, 2'084'485'120u);
}

// 2B4T's tensors: per layer llama's nine and attn_sub_norm [2560] and ffn_sub_norm [6912] (F32 norms);
// token_embd and the output norm, no output.weight. Every matrix ternary but token_embd.
TEST(BitnetTensorPlanTest, LayersHaveSubNormsAndTernaryMatrices) {
  auto t = planned_tensors_of("", "bitnet-b1.58-2b-4t", DType::kQ8_0, 2);
  EXPECT_EQ(t.size(), 2u + 2u * 11u);
  EXPECT_EQ(t.count("output.weight"), 0u);
  EXPECT_EQ(t["token_embd.weight"].kind, WeightKind::kEmbedding);
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{2560, 128256}));
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_sub_norm.weight"].dims, (Dims{2560})) << p;
    EXPECT_EQ(t[p + "attn_sub_norm.weight"].kind, WeightKind::kNorm) << p;
    EXPECT_EQ(t[p + "attn_sub_norm.weight"].type, DType::kF32) << p;
    EXPECT_EQ(t[p + "ffn_sub_norm.weight"].dims, (Dims{6912})) << p;
    EXPECT_EQ(t[p + "ffn_sub_norm.weight"].type, DType::kF32) << p;
    EXPECT_EQ(t[p + "attn_k.weight"].dims, (Dims{2560, 640})) << p;
    EXPECT_EQ(t[p + "ffn_down.weight"].dims, (Dims{6912, 2560})) << p;
    for (const char* m : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
      EXPECT_EQ(t[p + m + ".weight"].kind, WeightKind::kTernary) << p << m;
      EXPECT_EQ(t[p + m + ".weight"].type, DType::kQ8_0) << p << m;
    }
  }
}

// bitnet on its own preset gates by relu^2 (2B4T's hidden_act), on another by SiLU (1bitLLM's); bitnet-b1.58
// always by relu^2; both tie an untied preset. 2B4T as llama: no sub-norms, plain matrices.
TEST(BitnetPresetTest, TheGateFollowsArchAndPreset) {
  auto own = model_preset("bitnet", "bitnet-b1.58-2b-4t");
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_TRUE(own->bitnet && own->bitnet_relu2);
  auto small = planned_model("bitnet", "small", DType::kF32);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_TRUE(small->spec.bitnet && small->spec.tied_embeddings);
  EXPECT_FALSE(small->spec.bitnet_relu2);
  auto st = planned_tensors_by_name(small->plan);
  EXPECT_EQ(st["blk.3.attn_sub_norm.weight"].dims, (Dims{256}));
  EXPECT_EQ(st["blk.3.ffn_sub_norm.weight"].dims, (Dims{768}));
  EXPECT_EQ(st.count("output.weight"), 0u);
  auto b158 = model_preset("bitnet-b1.58", "small");
  ASSERT_TRUE(b158.ok()) << b158.status().ToString();
  EXPECT_TRUE(b158->bitnet && b158->bitnet_relu2 && b158->tied_embeddings);

  auto as_llama = planned_model("llama", "bitnet-b1.58-2b-4t", DType::kF32, 1);
  ASSERT_TRUE(as_llama.ok()) << as_llama.status().ToString();
  EXPECT_FALSE(as_llama->spec.bitnet || as_llama->spec.bitnet_relu2);
  auto lt = planned_tensors_by_name(as_llama->plan);
  EXPECT_EQ(lt.count("blk.0.attn_sub_norm.weight"), 0u);
  EXPECT_EQ(lt["blk.0.attn_q.weight"].kind, WeightKind::kMatrix);
  EXPECT_EQ(model_preset("bitnet", "moe-tiny").status().code(), Code::kInvalidArgument);
}

// BitNet's parts on another arch, an untied bitnet file (llama.cpp would ignore its output matrix) and
// bitnet-b1.58 gating by SiLU (its files cannot say so) are refused.
TEST(BitnetPresetTest, BitnetPartsOutOfPlaceAreRefused) {
  ModelSpec s = *model_preset("", "bitnet-b1.58-2b-4t");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("go with arch bitnet or bitnet-b1.58"),
            std::string::npos);
  s = *model_preset("llama", "small");
  s.bitnet_relu2 = true;
  EXPECT_EQ(plan_tensors(s, DType::kF32).status().code(), Code::kInvalidArgument);
  s = *model_preset("bitnet", "small");
  s.tied_embeddings = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("tied_embeddings must be set"), std::string::npos);
  s = *model_preset("", "bitnet-b1.58-2b-4t");
  s.bitnet_relu2 = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("bitnet_relu2 must be set"), std::string::npos);
}

// Q4_K_M for 2B4T as llama.cpp's quantizer makes it: no output matrix, so token_embd takes the output's
// Q6_K; attn_v and ffn_down by layer over the 30 (use_more_bits raises 0..2, every third from 5, 26..29),
// the others Q4_K.
TEST(BitnetTensorPlanTest, Q4KMixFollowsLlamasForATiedModel) {
  auto t = planned_tensors_of("", "bitnet-b1.58-2b-4t", DType::kQ4_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ6_K);
  for (int l : {0, 2, 5, 8, 26, 27, 29}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ6_K) << l;
  }
  for (int l : {3, 4, 6, 25}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ4_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ4_K) << l;
  }
  EXPECT_EQ(t["blk.4.ffn_up.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.4.attn_sub_norm.weight"].type, DType::kF32);
}

}  // namespace
}  // namespace strata
