// falcon-h1 (TII Falcon-H1) presets and plans: Falcon-H1-7B's published shape and size, every layer's
// Mamba-2 mixer and attention under one norm with the bare ffn_norm as llama.cpp's converter writes them,
// other presets as falcon-h1 (Granite 4.0-H Tiny's Mamba-2 proportions), Falcon-H1's preset as other
// archs, the spec checks, and the types the mixes give attn_v and ffn_down, numbered by layer as
// llama.cpp's quantizer numbers them (every layer has both).
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// Falcon-H1-7B: 7,585,654,880 parameters (its model page: 7.59B). By hand, each of the 44 layers: ssm_in
// 3072 x (3072 + 3584 + 24), convolution 4 x 3584 + 3584, three vectors of 24, ssm_norm 3072, ssm_out
// 3072 x 3072; q and output 2 x 3072 x 1536, k and v 2 x 3072 x 256; feed-forward 3 x 3072 x 12288; two
// norms of 3072 (172,408,152 a layer); untied embeddings 2 x 3072 x 130049 and the output norm.
TEST(FalconH1PresetTest, FalconH1_7bMatchesThePublishedShape) {
  auto r = planned_model("", "falcon-h1-7b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "falcon-h1");
  EXPECT_TRUE(s.falcon_h1);
  EXPECT_FALSE(s.mamba2 || s.nemotron_h || s.tied_embeddings || s.qk_norm || s.qkv_bias || s.post_norms);
  EXPECT_EQ(s.full_attn_interval, 0);
  EXPECT_EQ(s.n_vocab, 130049);
  EXPECT_EQ(s.n_ctx, 262144);
  EXPECT_EQ(s.n_embd, 3072);
  EXPECT_EQ(s.n_layer, 44);
  EXPECT_EQ(s.n_head, 12);
  EXPECT_EQ(s.n_head_kv, 2);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 12288);
  EXPECT_EQ(s.ssm_conv_kernel, 4);
  EXPECT_EQ(s.ssm_n_v_heads, 24);
  EXPECT_EQ(s.ssm_head_v_dim, 128);
  EXPECT_EQ(s.ssm_n_k_heads, 1);
  EXPECT_EQ(s.ssm_head_k_dim, 256);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 1e11f);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-5f);
  for (int l : {0, 21, 43}) EXPECT_TRUE(layer_attends(s, l)) << l;
  EXPECT_EQ(r->n_params, 7'585'654'880u);
}

// Falcon-H1-7B cut to 2 layers: each layer one attn_norm, the Mamba-2 mixer (one group), attention
// without q/k norms or biases, the feed-forward norm named blk.N.ffn_norm (no .weight), a SwiGLU
// feed-forward; an untied output.
TEST(FalconH1TensorPlanTest, EveryLayerHasTheMixerAttentionAndBareFfnNorm) {
  auto t = planned_tensors_of("", "falcon-h1-7b", DType::kF32, 2);
  EXPECT_EQ(t.size(), 3u + 2u * 17u);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_norm.weight"].dims, (Dims{3072})) << p;
    EXPECT_EQ(t[p + "ssm_in.weight"].dims, (Dims{3072, 3072 + 3584 + 24})) << p;  // z, x B C, dt
    EXPECT_EQ(t[p + "ssm_conv1d.weight"].dims, (Dims{4, 3584})) << p;
    EXPECT_EQ(t[p + "ssm_conv1d.bias"].dims, (Dims{3584})) << p;
    EXPECT_EQ(t[p + "ssm_dt.bias"].dims, (Dims{24})) << p;
    EXPECT_EQ(t[p + "ssm_a"].dims, (Dims{1, 24})) << p;
    EXPECT_EQ(t[p + "ssm_d"].dims, (Dims{1, 24})) << p;
    EXPECT_EQ(t[p + "ssm_norm.weight"].dims, (Dims{3072, 1})) << p;
    EXPECT_EQ(t[p + "ssm_out.weight"].dims, (Dims{3072, 3072})) << p;
    EXPECT_EQ(t[p + "attn_q.weight"].dims, (Dims{3072, 1536})) << p;
    EXPECT_EQ(t[p + "attn_k.weight"].dims, (Dims{3072, 256})) << p;
    EXPECT_EQ(t[p + "attn_v.weight"].dims, (Dims{3072, 256})) << p;
    EXPECT_EQ(t[p + "attn_output.weight"].dims, (Dims{1536, 3072})) << p;
    EXPECT_EQ(t[p + "ffn_norm"].dims, (Dims{3072})) << p;
    EXPECT_EQ(t[p + "ffn_norm"].kind, WeightKind::kNorm) << p;
    EXPECT_EQ(t[p + "ffn_gate.weight"].dims, (Dims{3072, 12288})) << p;
    EXPECT_EQ(t[p + "ffn_up.weight"].dims, (Dims{3072, 12288})) << p;
    EXPECT_EQ(t[p + "ffn_down.weight"].dims, (Dims{12288, 3072})) << p;
    for (const char* absent : {"ffn_norm.weight", "attn_q_norm.weight", "attn_q.bias", "post_attention_norm.weight",
                               "ssm_in.bias"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.0.ssm_a"].kind, WeightKind::kMamba2A);
  EXPECT_EQ(t["output.weight"].dims, (Dims{3072, 130049}));
  EXPECT_EQ(t.count("rope_freqs.weight"), 0u);
}

// Other presets as falcon-h1: Granite 4.0-H Tiny's Mamba-2 proportions (2 * n_embd values in heads of 64,
// one group of min(128, n_embd / 4) state values) in every layer; a Qwen3.5 or Nemotron preset drops its
// own recurrent layout. Falcon-H1's preset as llama: no ssm_* tensor, an ffn_norm.weight.
TEST(FalconH1PresetTest, OtherPresetsTakeGranitesMamba2Proportions) {
  auto tiny = planned_model("falcon-h1", "tiny", DType::kF32);
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_EQ(tiny->spec.n_layer, 2);
  EXPECT_EQ(tiny->spec.ssm_n_v_heads, 2);
  EXPECT_EQ(tiny->spec.ssm_head_v_dim, 64);
  EXPECT_EQ(tiny->spec.ssm_n_k_heads, 1);
  EXPECT_EQ(tiny->spec.ssm_head_k_dim, 16);
  auto tt = planned_tensors_by_name(tiny->plan);
  EXPECT_EQ(tt["blk.1.ssm_in.weight"].dims, (Dims{64, 128 + 160 + 2}));
  EXPECT_EQ(tt["blk.1.attn_q.weight"].dims, (Dims{64, 64}));
  EXPECT_EQ(tt["blk.1.ffn_norm"].dims, (Dims{64}));

  auto nemotron = model_preset("falcon-h1", "nemotron-nano-9b-v2");
  ASSERT_TRUE(nemotron.ok()) << nemotron.status().ToString();
  EXPECT_TRUE(nemotron->layer_pattern.empty());
  EXPECT_EQ(nemotron->ssm_n_k_heads, 1);
  EXPECT_EQ(nemotron->ssm_n_v_heads, 140);
  auto qwen35 = model_preset("falcon-h1", "qwen3.5-9b");
  ASSERT_TRUE(qwen35.ok()) << qwen35.status().ToString();
  EXPECT_EQ(qwen35->full_attn_interval, 0);
  EXPECT_EQ(qwen35->ssm_n_v_heads, 128);

  auto llama = planned_tensors_of("llama", "falcon-h1-7b", DType::kQ8_0, 1);
  EXPECT_EQ(llama.count("blk.0.ssm_in.weight") + llama.count("blk.0.ffn_norm"), 0u);
  EXPECT_EQ(llama["blk.0.ffn_norm.weight"].dims, (Dims{3072}));
  EXPECT_EQ(model_preset("falcon-h1", "moe-tiny").status().code(), Code::kInvalidArgument);
}

// A Falcon-H1 spec on another arch, another arch's spec with Falcon-H1's layers, and Mamba-2 heads that do
// not split over the groups are refused.
TEST(FalconH1PresetTest, BrokenLayoutsAreRefused) {
  ModelSpec s = *model_preset("", "falcon-h1-7b");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("go with arch falcon-h1, not llama"),
            std::string::npos);
  s = *model_preset("", "falcon-h1-7b");
  s.ssm_n_k_heads = 5;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("heads (time_step_rank 24) a multiple of the "
                                                                  "groups (group_count 5)"),
            std::string::npos);
  s = *model_preset("", "falcon-h1-7b");
  s.ssm_conv_kernel = 1;
  EXPECT_EQ(plan_tensors(s, DType::kF32).status().code(), Code::kInvalidArgument);
}

// Q4_K_M as llama.cpp's quantizer makes it for Falcon-H1-7B: attn_v and ffn_down numbered by layer over
// the 44 (every layer has both: use_more_bits raises 0..4, every third from 7, 38..43), n_gqa 6 (12 / 2);
// the Mamba-2 matrices the base type; the convolution, ssm_a / ssm_d, ssm_norm and the bare ffn_norm F32.
TEST(FalconH1TensorPlanTest, MixesNumberAttnVAndFfnDownByLayer) {
  auto t = planned_tensors_of("", "falcon-h1-7b", DType::kQ4_K);
  for (int l : {0, 4, 7, 10, 37, 38, 43}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ6_K) << l;
  }
  for (int l : {5, 6, 8, 36}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ4_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ4_K) << l;
  }
  EXPECT_EQ(t["blk.0.ssm_in.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_out.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.attn_output.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  for (const char* f32 : {"blk.0.ssm_conv1d.weight", "blk.0.ssm_conv1d.bias", "blk.0.ssm_a", "blk.0.ssm_d",
                          "blk.0.ssm_dt.bias", "blk.0.ssm_norm.weight", "blk.0.ffn_norm", "blk.0.attn_norm.weight"}) {
    EXPECT_EQ(t[f32].type, DType::kF32) << f32;
  }
  // IQ2_XXS: n_gqa 6 >= 4 gives every attn_v Q4_K; the first eighth's ffn_down (0..4) Q2_K.
  auto low = planned_tensors_of("", "falcon-h1-7b", DType::kIQ2_XXS);
  EXPECT_EQ(low["blk.20.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(low["blk.4.ffn_down.weight"].type, DType::kQ2_K);
  EXPECT_EQ(low["blk.5.ffn_down.weight"].type, DType::kIQ2_XXS);
}

}  // namespace
}  // namespace strata
