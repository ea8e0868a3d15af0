// exaone (LG EXAONE 3.0 / 3.5) and arcee (Arcee AFM) presets and plans: EXAONE 3.5 7.8B's and AFM-4.5B's
// published shapes and sizes, llama's tensors (Arcee's feed-forward without ffn_gate), EXAONE 3.5's llama3
// rope_freqs and AFM's YaRN staying with their own arch, other presets as exaone / arcee, and the checks.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/rope_factors.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// EXAONE 3.5 7.8B: 7,818,448,960 parameters, 6,979,588,160 without the two embedding tables (its card:
// 6.98B). By hand: 32 layers of 2 x 4096 x 4096 + 2 x 4096 x 1024, a feed-forward of 3 x 4096 x 14336 and
// two norms of 4096; untied embeddings 2 x 4096 x 102400, the output norm and 64 rope factors.
TEST(ExaoneArceePresetTest, Exaone35_7_8bMatchesThePublishedShape) {
  auto r = planned_model("", "exaone-3.5-7.8b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "exaone");
  EXPECT_FALSE(s.exaone4 || s.olmo2 || s.falcon_h1 || s.tied_embeddings || s.qk_norm || s.qkv_bias || s.post_norms);
  EXPECT_EQ(s.n_vocab, 102400);
  EXPECT_EQ(s.n_ctx, 32768);
  EXPECT_EQ(s.n_embd, 4096);
  EXPECT_EQ(s.n_layer, 32);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 14336);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 1000000.0f);
  EXPECT_FLOAT_EQ(s.rope_freqs_factor, 8.0f);
  EXPECT_EQ(s.rope_freqs_orig_ctx, 8192);
  EXPECT_EQ(r->n_params, 7'818'448'960u);
  EXPECT_EQ(r->n_params - 2u * 4096u * 102400u, 6'979'588'160u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["rope_freqs.weight"].dims, (Dims{64}));
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{4096, 14336}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{4096, 102400}));
  // Llama 3.1's factors over the head: 1 for the fast pairs, 8 for the slow ones.
  const std::vector<float> f = spec_rope_factors(s);
  ASSERT_EQ(f.size(), 64u);
  EXPECT_FLOAT_EQ(f.front(), 1.0f);
  EXPECT_FLOAT_EQ(f.back(), 8.0f);
}

// Arcee AFM-4.5B: 4,619,189,760 parameters (its model page: 4.6B). By hand: 36 layers of 2 x 2560 x 2560
// + 2 x 2560 x 512, a feed-forward of 2 x 2560 x 18432 (no gate) and two norms of 2560; untied embeddings
// 2 x 2560 x 128005 and the output norm. Its YaRN: 20 over 4096 of its 65536 positions.
TEST(ExaoneArceePresetTest, Afm4_5bMatchesThePublishedShape) {
  auto r = planned_model("", "afm-4.5b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "arcee");
  EXPECT_FALSE(s.tied_embeddings || s.qk_norm || s.qkv_bias || s.post_norms || s.falcon_h1);
  EXPECT_EQ(s.n_vocab, 128005);
  EXPECT_EQ(s.n_ctx, 65536);
  EXPECT_EQ(s.n_embd, 2560);
  EXPECT_EQ(s.n_layer, 36);
  EXPECT_EQ(s.n_head, 20);
  EXPECT_EQ(s.n_head_kv, 4);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 18432);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 10000.0f);
  EXPECT_FLOAT_EQ(s.rope_yarn_factor, 20.0f);
  EXPECT_EQ(s.rope_yarn_orig_ctx, 4096);
  EXPECT_EQ(s.rope_freqs_factor, 0.0f);
  EXPECT_EQ(r->n_params, 4'619'189'760u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t.size(), 3u + 36u * 8u);
  EXPECT_EQ(t.count("blk.0.ffn_gate.weight"), 0u);
  EXPECT_EQ(t["blk.0.ffn_up.weight"].dims, (Dims{2560, 18432}));
  EXPECT_EQ(t["blk.0.ffn_down.weight"].dims, (Dims{18432, 2560}));
  EXPECT_EQ(t["blk.0.ffn_norm.weight"].dims, (Dims{2560}));
  EXPECT_EQ(t.count("rope_freqs.weight"), 0u);
}

// Another preset as exaone has no rope scaling, as arcee only its own YaRN (OLMo 3's, over n_ctx / 8);
// their presets as another arch drop theirs (llama keeps a gate; exaone4 drops EXAONE 3.5's rope_freqs);
// arcee on a MoE preset is refused.
TEST(ExaoneArceePresetTest, RopeScalingStaysWithItsOwnArch) {
  auto small = planned_model("arcee", "small", DType::kF32);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->spec.rope_yarn_factor, 1.0f);
  EXPECT_EQ(small->spec.rope_yarn_orig_ctx, 0);
  auto st = planned_tensors_by_name(small->plan);
  EXPECT_EQ(st.count("blk.0.ffn_gate.weight"), 0u);
  EXPECT_EQ(st["blk.3.ffn_up.weight"].dims, (Dims{256, 768}));
  auto olmo = model_preset("exaone", "olmo-3-7b");
  ASSERT_TRUE(olmo.ok()) << olmo.status().ToString();
  EXPECT_EQ(olmo->rope_yarn_factor, 1.0f);
  EXPECT_EQ(olmo->sliding_window, 0);
  EXPECT_EQ(olmo->rope_freqs_factor, 0.0f);
  auto olmo_arcee = model_preset("arcee", "olmo-3-7b");
  ASSERT_TRUE(olmo_arcee.ok()) << olmo_arcee.status().ToString();
  EXPECT_FLOAT_EQ(olmo_arcee->rope_yarn_factor, 8.0f);
  EXPECT_EQ(olmo_arcee->rope_yarn_orig_ctx, 0);
  auto exaone4 = model_preset("exaone", "exaone-4.0-32b");
  ASSERT_TRUE(exaone4.ok()) << exaone4.status().ToString();
  EXPECT_EQ(exaone4->rope_freqs_factor, 0.0f);

  auto as_llama = planned_model("llama", "afm-4.5b", DType::kQ8_0, 1);
  ASSERT_TRUE(as_llama.ok()) << as_llama.status().ToString();
  EXPECT_EQ(as_llama->spec.rope_yarn_factor, 1.0f);
  EXPECT_EQ(as_llama->spec.rope_yarn_orig_ctx, 0);
  EXPECT_EQ(planned_tensors_by_name(as_llama->plan).count("blk.0.ffn_gate.weight"), 1u);
  auto as_exaone4 = model_preset("exaone4", "exaone-3.5-7.8b");
  ASSERT_TRUE(as_exaone4.ok()) << as_exaone4.status().ToString();
  EXPECT_EQ(as_exaone4->rope_freqs_factor, 0.0f);
  auto as_arcee = model_preset("arcee", "exaone-3.5-7.8b");
  ASSERT_TRUE(as_arcee.ok()) << as_arcee.status().ToString();
  EXPECT_EQ(as_arcee->rope_freqs_factor, 0.0f);
  EXPECT_EQ(model_preset("arcee", "moe-tiny").status().code(), Code::kInvalidArgument);
}

// EXAONE's rope_freqs on an arch that does not bake them, and AFM's own YaRN context on another arch or
// without YaRN, are refused.
TEST(ExaoneArceePresetTest, RopeScalingOnTheWrongArchIsRefused) {
  ModelSpec s = *model_preset("", "exaone-3.5-7.8b");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("is for exaone4, exaone and arcee models"),
            std::string::npos);
  s = *model_preset("", "afm-4.5b");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("is for arcee models with YaRN"), std::string::npos);
  s = *model_preset("", "afm-4.5b");
  s.rope_yarn_factor = 1.0f;
  EXPECT_EQ(plan_tensors(s, DType::kF32).status().code(), Code::kInvalidArgument);
}

// Q4_K_M for AFM-4.5B as llama.cpp's quantizer makes it: attn_v and the gate-less ffn_down by layer over
// the 36 (use_more_bits raises 0..3, every third from 6, 31..35), n_gqa 5 (20 / 4).
TEST(ExaoneArceeTensorPlanTest, ArceeMixFollowsLlamas) {
  auto r = planned_model("", "afm-4.5b", DType::kQ4_K);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto t = planned_tensors_by_name(r->plan);
  for (int l : {0, 3, 6, 31, 35}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ6_K) << l;
  }
  EXPECT_EQ(t["blk.4.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.4.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.4.ffn_up.weight"].type, DType::kQ4_K);
}

}  // namespace
}  // namespace strata
