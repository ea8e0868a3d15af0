// olmo2 / olmoe (AI2 OLMo 2, OLMo 3, OLMoE) presets and plans: the three presets' published shapes and
// sizes, each layer's tensors as llama.cpp's converter writes them (OLMo 2's post-norms without
// pre-norms and QK-norm over whole rows; OLMoE's experts in every layer), cuts, other presets as these
// archs and these presets as others, the spec checks, and the types llama.cpp's mixes give them.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// OLMo 2 1124 7B: 7,298,617,344 parameters (published: 7.30B). By hand: 32 layers of 4 x 4096 x 4096
// attention, q/k norms of 4096 each, two post-norms of 4096 and 3 x 4096 x 11008 feed-forward =
// 6,476,529,664; token_embd and output of 100352 x 4096 = 822,083,584; output_norm 4096.
TEST(OlmoPresetTest, Olmo2_7bMatchesThePublishedShape) {
  auto r = planned_model("", "olmo-2-7b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "olmo2");
  EXPECT_TRUE(s.olmo2 && s.qk_norm && s.post_norms);
  EXPECT_FALSE(s.exaone4 || s.tied_embeddings || s.qkv_bias || s.lfm2);
  EXPECT_EQ(s.n_vocab, 100352);
  EXPECT_EQ(s.n_ctx, 4096);
  EXPECT_EQ(s.n_embd, 4096);
  EXPECT_EQ(s.n_layer, 32);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 32);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 11008);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 500000.0f);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-6f);
  EXPECT_EQ(s.sliding_window, 0);
  EXPECT_FLOAT_EQ(s.rope_yarn_factor, 1.0f);
  EXPECT_EQ(r->n_params, 7'298'617'344u);
}

// OLMo 3 7B: OLMo 2 7B's layers with a 4096-key window and YaRN 8 (over 65536 / 8 = 8192 positions),
// 100278 tokens: 7,298,011,136 parameters (published: 7B; 7.30B by its safetensors).
TEST(OlmoPresetTest, Olmo3_7bAddsItsWindowAndYarn) {
  auto r = planned_model("", "olmo-3-7b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "olmo2");
  EXPECT_EQ(s.n_vocab, 100278);
  EXPECT_EQ(s.n_ctx, 65536);
  EXPECT_EQ(s.sliding_window, 4096);
  EXPECT_FLOAT_EQ(s.rope_yarn_factor, 8.0f);
  EXPECT_EQ(s.n_layer, 32);
  EXPECT_EQ(s.n_ff, 11008);
  EXPECT_EQ(r->n_params, 7'298'011'136u);
  auto cut = planned_model("", "olmo-3-7b", DType::kQ8_0, 4);  // a cut keeps the window and YaRN
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  EXPECT_EQ(cut->spec.sliding_window, 4096);
  EXPECT_FLOAT_EQ(cut->spec.rope_yarn_factor, 8.0f);
}

// OLMoE-1B-7B-0924: 6,919,161,856 parameters, 1,282,017,280 read per token (published: 6.9B and
// 1.3B). By hand: 16 layers of 4 x 2048 x 2048 attention, q/k norms and two pre-norms of 2048, a
// router 2048 x 64 and 64 experts of 3 x 2048 x 1024 (8 of them read per token); token_embd and
// output of 50304 x 2048; output_norm 2048.
TEST(OlmoPresetTest, OlmoE1b7bMatchesThePublishedShape) {
  auto r = planned_model("", "olmoe-1b-7b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "olmoe");
  EXPECT_TRUE(s.qk_norm);
  EXPECT_FALSE(s.olmo2 || s.post_norms || s.sigmoid_routing || s.expert_weights_norm || s.tied_embeddings);
  EXPECT_EQ(s.n_layer, 16);
  EXPECT_EQ(s.n_head, 16);
  EXPECT_EQ(s.n_head_kv, 16);
  EXPECT_EQ(s.n_expert, 64);
  EXPECT_EQ(s.n_expert_used, 8);
  EXPECT_EQ(s.n_ff_exp, 1024);
  EXPECT_EQ(s.n_ff, 1024);  // feed_forward_length is the expert width
  EXPECT_EQ(s.n_ff_shexp, 0);
  EXPECT_EQ(s.n_dense_lead, 0);
  EXPECT_EQ(s.n_vocab, 50304);
  EXPECT_EQ(s.n_ctx, 4096);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 10000.0f);
  EXPECT_EQ(r->n_params, 6'919'161'856u);
  uint64_t active = 0;
  for (const auto& t : r->plan.tensors) {
    uint64_t n = 1;
    for (uint64_t d : t.dims) n *= d;
    active += t.name.find("_exps.") != std::string::npos ? n / 64 * 8 : n;
  }
  EXPECT_EQ(active, 1'282'017'280u);
}

// OLMo 2 7B cut to 2 layers: llama's attention and feed-forward, post_attention_norm and post_ffw_norm,
// no attn_norm or ffn_norm, q/k norms over whole rows; output_norm and an output matrix. As tiny (4
// query heads over 2 K/V heads of 16) attn_k_norm is the K/V row's 32, attn_q_norm the q row's 64.
TEST(OlmoTensorPlanTest, Olmo2LayersNormAfterwardsAndOverWholeRows) {
  auto t = planned_tensors_of("", "olmo-2-7b", DType::kQ8_0, 2);
  EXPECT_EQ(t.size(), 3u + 2u * 11u);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* m : {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight"}) {
      EXPECT_EQ(t[p + m].dims, (Dims{4096, 4096})) << p << m;
    }
    for (const char* v : {"attn_q_norm.weight", "attn_k_norm.weight", "post_attention_norm.weight",
                          "post_ffw_norm.weight"}) {
      EXPECT_EQ(t[p + v].dims, (Dims{4096})) << p << v;
      EXPECT_EQ(t[p + v].type, DType::kF32) << p << v;
    }
    EXPECT_EQ(t[p + "ffn_gate.weight"].dims, (Dims{4096, 11008})) << p;
    EXPECT_EQ(t[p + "ffn_up.weight"].dims, (Dims{4096, 11008})) << p;
    EXPECT_EQ(t[p + "ffn_down.weight"].dims, (Dims{11008, 4096})) << p;
    for (const char* absent : {"attn_norm.weight", "ffn_norm.weight", "attn_q.bias"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["output_norm.weight"].dims, (Dims{4096}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{4096, 100352}));
  EXPECT_EQ(t.count("rope_freqs.weight"), 0u);
  auto tiny = planned_tensors_of("olmo2", "tiny", DType::kF32);
  EXPECT_EQ(tiny["blk.1.attn_q_norm.weight"].dims, (Dims{64}));
  EXPECT_EQ(tiny["blk.1.attn_k_norm.weight"].dims, (Dims{32}));
  EXPECT_EQ(tiny.count("blk.1.attn_norm.weight") + tiny.count("blk.1.ffn_norm.weight"), 0u);
}

// OLMoE cut to one layer: attn_norm and ffn_norm, q/k norms over whole rows, an F32 router and the
// gated experts; no selection bias, no shared expert, no post-norms.
TEST(OlmoTensorPlanTest, OlmoeLayersRouteEveryFeedForward) {
  auto t = planned_tensors_of("", "olmoe-1b-7b", DType::kQ8_0, 1);
  EXPECT_EQ(t["blk.0.attn_norm.weight"].dims, (Dims{2048}));
  EXPECT_EQ(t["blk.0.ffn_norm.weight"].dims, (Dims{2048}));
  EXPECT_EQ(t["blk.0.attn_q_norm.weight"].dims, (Dims{2048}));
  EXPECT_EQ(t["blk.0.attn_k_norm.weight"].dims, (Dims{2048}));
  EXPECT_EQ(t["blk.0.ffn_gate_inp.weight"].dims, (Dims{2048, 64}));
  EXPECT_EQ(t["blk.0.ffn_gate_inp.weight"].type, DType::kF32);
  EXPECT_EQ(t["blk.0.ffn_gate_exps.weight"].dims, (Dims{2048, 1024, 64}));
  EXPECT_EQ(t["blk.0.ffn_up_exps.weight"].dims, (Dims{2048, 1024, 64}));
  EXPECT_EQ(t["blk.0.ffn_down_exps.weight"].dims, (Dims{1024, 2048, 64}));
  for (const char* absent : {"exp_probs_b.bias", "ffn_gate_shexp.weight", "ffn_gate_inp_shexp.weight",
                             "post_attention_norm.weight", "post_ffw_norm.weight", "ffn_gate.weight"}) {
    EXPECT_EQ(t.count(std::string("blk.0.") + absent), 0u) << absent;
  }
  EXPECT_EQ(t["output.weight"].dims, (Dims{2048, 50304}));
}

// Other presets as olmo2 are OLMo 2's kind (post-norms, whole-row QK-norm, no window or YaRN, their
// own tying); moe-tiny as olmoe loses its shared expert, its feed_forward_length the expert width.
// OLMo's presets as other archs drop the layout, OLMo 3's window and YaRN with it (as exaone4 too).
TEST(OlmoPresetTest, OtherPresetsAndArchsTakeTheirOwnLayout) {
  auto tiny = model_preset("olmo2", "tiny");
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_TRUE(tiny->olmo2 && tiny->post_norms && tiny->qk_norm);
  EXPECT_FALSE(tiny->tied_embeddings);
  EXPECT_EQ(tiny->sliding_window, 0);
  auto gemma = model_preset("olmo2", "gemma3-1b");  // Gemma 3's window and tying: the window goes
  ASSERT_TRUE(gemma.ok()) << gemma.status().ToString();
  EXPECT_EQ(gemma->sliding_window, 0);
  EXPECT_TRUE(gemma->tied_embeddings);
  auto moe = model_preset("olmoe", "moe-tiny");
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_TRUE(moe->qk_norm && !moe->post_norms && !moe->sigmoid_routing && !moe->expert_weights_norm);
  EXPECT_EQ(moe->n_ff_shexp, 0);
  EXPECT_EQ(moe->n_ff, 256);
  for (const char* arch : {"llama", "exaone4"}) {
    auto other = model_preset(arch, "olmo-3-7b");
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    EXPECT_FALSE(other->olmo2) << arch;
    EXPECT_EQ(other->sliding_window, 0) << arch;
    EXPECT_FLOAT_EQ(other->rope_yarn_factor, 1.0f) << arch;
  }
  EXPECT_FALSE(model_preset("llama", "olmo-2-7b")->post_norms);
  auto qwen = model_preset("qwen3moe", "olmoe-1b-7b");
  ASSERT_TRUE(qwen.ok()) << qwen.status().ToString();
  EXPECT_EQ(qwen->n_ff_exp, 1024);
  EXPECT_EQ(model_preset("olmoe", "olmo-2-7b").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(model_preset("olmo2", "olmoe-1b-7b").status().code(), Code::kInvalidArgument);
}

// A spec that breaks OLMo's layout: without QK-norm (llama.cpp requires it), without post-norms, or
// flagged olmo2 under another arch.
TEST(OlmoPresetTest, BrokenLayoutsAreRefused) {
  ModelSpec s = *model_preset("", "olmo-2-7b");
  s.qk_norm = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("olmo2's attention has QK-norm"), std::string::npos);
  s = *model_preset("", "olmo-2-7b");
  s.post_norms = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("post_norms must be set"), std::string::npos);
  s = *model_preset("", "olmo-2-7b");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("go with arch olmo2 or exaone4"), std::string::npos);
  s = *model_preset("", "olmoe-1b-7b");
  s.qk_norm = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("olmoe's attention has QK-norm"), std::string::npos);
  s = *model_preset("", "olmoe-1b-7b");
  s.n_ff_shexp = 1024;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("a shared expert is for"), std::string::npos);
}

// Q4_K_M and Q3_K_M as llama.cpp's quantizer makes them, numbered by block as in any llama file:
// OLMo 2 7B's attn_v and ffn_down raised in its first and last 4 blocks and every third between
// (blocks 6, 9, ..., 27), output Q6_K, token_embd the base type; in Q3_K_M attn_v of blocks 0-1 Q5_K, the
// others Q4_K, attn_output Q4_K. OLMoE's 64 experts take the plain rules (not the 8-expert ones):
// attn_v and ffn_down_exps raised in blocks 0-1, 4, 7, 10, 13-15; attn_k the base type.
TEST(OlmoTensorPlanTest, MixesFollowLlamaCppsLayerRules) {
  auto t = planned_tensors_of("", "olmo-2-7b", DType::kQ4_K);
  for (int l : {0, 3, 6, 9, 28, 31}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ6_K) << l;
  }
  for (int l : {4, 5, 7, 26}) {
    EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ4_K) << l;
    EXPECT_EQ(t["blk." + std::to_string(l) + ".ffn_down.weight"].type, DType::kQ4_K) << l;
  }
  EXPECT_EQ(t["output.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.post_ffw_norm.weight"].type, DType::kF32);
  auto q3 = planned_tensors_of("", "olmo-2-7b", DType::kQ3_K);
  EXPECT_EQ(q3["blk.1.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.2.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(q3["blk.5.attn_output.weight"].type, DType::kQ4_K);

  auto moe = planned_tensors_of("", "olmoe-1b-7b", DType::kQ4_K);
  for (int l : {0, 1, 4, 7, 10, 13, 14, 15}) {
    EXPECT_EQ(moe["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
    EXPECT_EQ(moe["blk." + std::to_string(l) + ".ffn_down_exps.weight"].type, DType::kQ6_K) << l;
  }
  for (int l : {2, 3, 5, 12}) {
    EXPECT_EQ(moe["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ4_K) << l;
    EXPECT_EQ(moe["blk." + std::to_string(l) + ".ffn_down_exps.weight"].type, DType::kQ4_K) << l;
  }
  EXPECT_EQ(moe["blk.0.attn_k.weight"].type, DType::kQ4_K);
  EXPECT_EQ(moe["blk.0.attn_output.weight"].type, DType::kQ4_K);
  EXPECT_EQ(moe["blk.0.ffn_gate_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(moe["blk.0.ffn_gate_inp.weight"].type, DType::kF32);
}

}  // namespace
}  // namespace strata
