// exaone4 (LG EXAONE 4.0) presets and plans: the 1.2B's and 32B's published shapes and sizes, their
// layers' tensors as llama.cpp's converter writes them (post-norms without pre-norms, QK-norm per
// head, the 32B's rope_freqs from its llama3 rope scaling and the 1.2B's tied embeddings), cuts,
// other presets as exaone4 and EXAONE's presets as other archs, the spec checks, and the types
// llama.cpp's mixes give them.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/rope_factors.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// EXAONE 4.0 1.2B: 1,279,391,488 parameters, 1,069,676,288 without the (tied) embeddings (published:
// 1.07B without embeddings). By hand: 30 layers of 2 x 2048 x 2048 + 2 x 2048 x 512 attention, q/k norms
// of 64, two post-norms of 2048 and 3 x 2048 x 4096 feed-forward = 1,069,674,240; output_norm 2048;
// token_embd 102400 x 2048 = 209,715,200.
TEST(Exaone4PresetTest, Exaone4_1_2bMatchesThePublishedShape) {
  auto r = planned_model("", "exaone-4.0-1.2b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "exaone4");
  EXPECT_TRUE(s.exaone4 && s.qk_norm && s.post_norms && s.tied_embeddings);
  EXPECT_FALSE(s.olmo2 || s.qkv_bias);
  EXPECT_EQ(s.n_vocab, 102400);
  EXPECT_EQ(s.n_ctx, 65536);
  EXPECT_EQ(s.n_embd, 2048);
  EXPECT_EQ(s.n_layer, 30);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 64);
  EXPECT_EQ(s.n_ff, 4096);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 1000000.0f);
  EXPECT_EQ(s.sliding_window, 0);
  EXPECT_FLOAT_EQ(s.rope_freqs_factor, 0.0f);
  EXPECT_EQ(r->n_params, 1'279'391'488u);
  EXPECT_EQ(r->n_params - 102400u * 2048u, 1'069'676'288u);
}

// EXAONE 4.0 32B: 32,003,216,448 parameters, 30,954,640,448 without the embeddings (published: 30.95B
// without embeddings). By hand: 64 layers of 2 x 5120 x 5120 + 2 x 5120 x 1024 attention, q/k norms of
// 128, two post-norms of 5120 and 3 x 5120 x 27392 feed-forward = 30,954,635,264; output_norm 5120;
// rope_freqs 64; token_embd and output 102400 x 5120 each = 1,048,576,000. Its window of 4096 and
// rope_freqs of factor 16 over 8192 positions: 1 for the fast pairs, 16 for the slow ones.
TEST(Exaone4PresetTest, Exaone4_32bMatchesThePublishedShape) {
  auto r = planned_model("", "exaone-4.0-32b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "exaone4");
  EXPECT_FALSE(s.tied_embeddings);
  EXPECT_EQ(s.n_embd, 5120);
  EXPECT_EQ(s.n_layer, 64);
  EXPECT_EQ(s.n_head, 40);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 27392);
  EXPECT_EQ(s.n_ctx, 131072);
  EXPECT_EQ(s.sliding_window, 4096);
  EXPECT_FLOAT_EQ(s.rope_freqs_factor, 16.0f);
  EXPECT_EQ(s.rope_freqs_orig_ctx, 8192);
  EXPECT_EQ(r->n_params, 32'003'216'448u);
  EXPECT_EQ(r->n_params - 2u * 102400u * 5120u, 30'954'640'448u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["rope_freqs.weight"].dims, (Dims{64}));
  EXPECT_EQ(t["rope_freqs.weight"].kind, WeightKind::kRopeFreqs);
  const std::vector<float> factors = spec_rope_factors(s);
  ASSERT_EQ(factors.size(), 64u);
  EXPECT_FLOAT_EQ(factors.front(), 1.0f);
  EXPECT_FLOAT_EQ(factors.back(), 16.0f);
  for (size_t i = 1; i < factors.size(); ++i) EXPECT_GE(factors[i], factors[i - 1]) << i;
}

// EXAONE 4.0 32B cut to 2 layers: llama's attention and feed-forward without attn_norm or ffn_norm,
// post_attention_norm and post_ffw_norm, q/k norms of one head; rope_freqs and the output matrix; the
// cut keeps its window and rope scaling. The 1.2B has no rope_freqs and no output matrix.
TEST(Exaone4TensorPlanTest, LayersNormAfterwardsAndPerHead) {
  auto r = planned_model("", "exaone-4.0-32b", DType::kQ8_0, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.sliding_window, 4096);
  EXPECT_FLOAT_EQ(r->spec.rope_freqs_factor, 16.0f);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t.size(), 4u + 2u * 11u);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_q.weight"].dims, (Dims{5120, 5120})) << p;
    EXPECT_EQ(t[p + "attn_k.weight"].dims, (Dims{5120, 1024})) << p;
    EXPECT_EQ(t[p + "attn_v.weight"].dims, (Dims{5120, 1024})) << p;
    EXPECT_EQ(t[p + "attn_output.weight"].dims, (Dims{5120, 5120})) << p;
    EXPECT_EQ(t[p + "attn_q_norm.weight"].dims, (Dims{128})) << p;
    EXPECT_EQ(t[p + "attn_k_norm.weight"].dims, (Dims{128})) << p;
    EXPECT_EQ(t[p + "post_attention_norm.weight"].dims, (Dims{5120})) << p;
    EXPECT_EQ(t[p + "post_ffw_norm.weight"].dims, (Dims{5120})) << p;
    EXPECT_EQ(t[p + "ffn_gate.weight"].dims, (Dims{5120, 27392})) << p;
    EXPECT_EQ(t[p + "ffn_down.weight"].dims, (Dims{27392, 5120})) << p;
    EXPECT_EQ(t.count(p + "attn_norm.weight") + t.count(p + "ffn_norm.weight"), 0u) << p;
  }
  EXPECT_EQ(t["output.weight"].dims, (Dims{5120, 102400}));
  EXPECT_EQ(t["rope_freqs.weight"].type, DType::kF32);
  auto small = planned_tensors_of("", "exaone-4.0-1.2b", DType::kQ8_0, 1);
  EXPECT_EQ(small["blk.0.attn_q_norm.weight"].dims, (Dims{64}));
  EXPECT_EQ(small["blk.0.attn_k.weight"].dims, (Dims{2048, 512}));
  EXPECT_EQ(small.count("output.weight") + small.count("rope_freqs.weight"), 0u);
}

// Other presets as exaone4 get its layout (post-norms, per-head QK-norm, their own tying) without a
// window or rope_freqs; EXAONE's presets as other archs drop both (as olmo2: whole-row QK-norm).
// rope_freqs_factor outside exaone4, below 1 or without an original context is refused.
TEST(Exaone4PresetTest, OtherPresetsAndArchsTakeTheirOwnLayout) {
  auto tiny = planned_tensors_of("exaone4", "tiny", DType::kF32);
  EXPECT_EQ(tiny["blk.0.attn_q_norm.weight"].dims, (Dims{16}));
  EXPECT_EQ(tiny.count("blk.0.attn_norm.weight") + tiny.count("rope_freqs.weight"), 0u);
  EXPECT_EQ(tiny.count("output.weight"), 1u);
  auto gemma = model_preset("exaone4", "gemma2-2b");
  ASSERT_TRUE(gemma.ok()) << gemma.status().ToString();
  EXPECT_EQ(gemma->sliding_window, 0);
  EXPECT_TRUE(gemma->tied_embeddings && gemma->exaone4);
  for (const char* arch : {"llama", "olmo2"}) {
    auto other = planned_model(arch, "exaone-4.0-32b", DType::kQ8_0, 1);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    EXPECT_EQ(other->spec.sliding_window, 0) << arch;
    EXPECT_FLOAT_EQ(other->spec.rope_freqs_factor, 0.0f) << arch;
    EXPECT_EQ(planned_tensors_by_name(other->plan).count("rope_freqs.weight"), 0u) << arch;
  }
  auto olmo = planned_tensors_of("olmo2", "exaone-4.0-32b", DType::kQ8_0, 1);
  EXPECT_EQ(olmo["blk.0.attn_k_norm.weight"].dims, (Dims{1024}));
  EXPECT_EQ(model_preset("exaone4", "moe-tiny").status().code(), Code::kInvalidArgument);

  ModelSpec s = *model_preset("", "exaone-4.0-32b");
  s.rope_freqs_factor = 0.5f;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("rope_freqs_factor"), std::string::npos);
  s = *model_preset("", "exaone-4.0-32b");
  s.rope_freqs_orig_ctx = 0;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("positive original context"), std::string::npos);
  s = *model_preset("olmo2", "olmo-2-7b");
  s.rope_freqs_factor = 16.0f;
  s.rope_freqs_orig_ctx = 8192;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("for exaone4, exaone and arcee models"),
            std::string::npos);
  s = *model_preset("", "exaone-4.0-1.2b");
  s.post_norms = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("post_norms must be set"), std::string::npos);
}

// Q4_K_M and IQ4_XS as llama.cpp's quantizer makes them, by block: the 1.2B's 4 query heads per K/V
// head and tied token_embd (an output: Q6_K); its attn_v and ffn_down raised in blocks 0-2, 26-29 and
// (l - 3) % 3 == 2 between; in IQ4_XS attn_v Q5_K (n_gqa 4) and ffn_down of blocks 0-2 Q5_K. The 32B's
// rope_freqs stays F32 and its output is Q6_K.
TEST(Exaone4TensorPlanTest, MixesFollowLlamaCppsLayerRules) {
  auto t = planned_tensors_of("", "exaone-4.0-1.2b", DType::kQ4_K);
  for (int l : {0, 2, 5, 8, 26, 27, 29}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ6_K) << l;
  }
  for (int l : {3, 4, 6, 25}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ4_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ4_K) << l;
  }
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.0.attn_q_norm.weight"].type, DType::kF32);
  auto iq4 = planned_tensors_of("", "exaone-4.0-1.2b", DType::kIQ4_XS);
  EXPECT_EQ(iq4["blk.10.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(iq4["blk.2.ffn_down.weight"].type, DType::kQ5_K);
  EXPECT_EQ(iq4["blk.3.ffn_down.weight"].type, DType::kIQ4_XS);
  auto big = planned_tensors_of("", "exaone-4.0-32b", DType::kQ4_K, 8);
  EXPECT_EQ(big["rope_freqs.weight"].type, DType::kF32);
  EXPECT_EQ(big["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(big["token_embd.weight"].type, DType::kQ4_K);
}

}  // namespace
}  // namespace strata
