// granitehybrid (IBM Granite 4.0-H) presets and plans: Granite 4.0-H Tiny's published shape and size,
// the Mamba-2 and attention layers' tensors as llama.cpp's converter writes them, which layers
// attend in a --layers cut, other presets as granitehybrid (Tiny's proportions; dense too),
// Granite's preset as other archs, the spec checks, and the types the mixes give the new tensors.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// The layers of a plan that have attention (attn_q) and those that have Mamba-2 mixers (ssm_in).
std::pair<std::vector<int>, std::vector<int>> layer_kinds(const GenerateReport& r) {
  auto t = planned_tensors_by_name(r.plan);
  std::vector<int> attending, mamba;
  for (int l = 0; l < r.spec.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    if (t.count(p + "attn_q.weight") != 0) attending.push_back(l);
    if (t.count(p + "ssm_in.weight") != 0) mamba.push_back(l);
  }
  return {attending, mamba};
}

// Parameters a token reads: every tensor's, the routed experts' scaled by used / count.
double active_params(const GenerateReport& r) {
  double n = 0;
  for (const auto& t : r.plan.tensors) {
    double elements = 1;
    for (uint64_t d : t.dims) elements *= static_cast<double>(d);
    const bool routed = t.name.find("_exps.") != std::string::npos;
    n += routed ? elements * r.spec.n_expert_used / r.spec.n_expert : elements;
  }
  return n;
}

// Granite 4.0-H Tiny: 6,939,037,248 parameters (IBM's "7B"), about 1.47B read per token (6 of 64
// experts). By hand: 40 layers of norms (2 x 1536) and experts (router 1536 x 64, 3 x 1536 x 512 x
// 64 routed, 3 x 1536 x 1024 shared) = 6,232,596,480; 4 attention layers of 2 x 1536^2 + 2 x 1536 x
// 512 = 25,165,824; 36 Mamba-2 layers of ssm_in 1536 x 6448, convolution 4 x 3328 + 3328, three
// vectors of 48, ssm_norm 3072, ssm_out 3072 x 1536 = 527,132,736; tied embeddings 1536 x 100352
// and the output norm = 154,142,208.
TEST(GraniteHybridPresetTest, Granite40HTinyMatchesThePublishedShape) {
  auto r = planned_model("", "granite-4.0-h-tiny", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "granitehybrid");
  EXPECT_TRUE(s.mamba2 && s.tied_embeddings);
  EXPECT_FALSE(s.qk_norm || s.qkv_bias || s.sigmoid_routing || s.expert_weights_norm);
  EXPECT_EQ(s.full_attn_interval, 0);
  EXPECT_EQ(s.n_vocab, 100352);
  EXPECT_EQ(s.n_embd, 1536);
  EXPECT_EQ(s.n_layer, 40);
  EXPECT_EQ(s.n_head, 12);
  EXPECT_EQ(s.n_head_kv, 4);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 512);
  EXPECT_EQ(s.n_expert, 64);
  EXPECT_EQ(s.n_expert_used, 6);
  EXPECT_EQ(s.n_ff_exp, 512);
  EXPECT_EQ(s.n_ff_shexp, 1024);
  EXPECT_EQ(s.ssm_conv_kernel, 4);
  EXPECT_EQ(s.ssm_head_k_dim, 128);
  EXPECT_EQ(s.ssm_n_k_heads, 1);
  EXPECT_EQ(s.ssm_n_v_heads, 48);
  EXPECT_EQ(s.ssm_n_v_heads * s.ssm_head_v_dim, 3072);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-5f);
  EXPECT_EQ(r->n_params, 6'939'037'248u);
  EXPECT_GT(active_params(*r), 1.4e9);
  EXPECT_LT(active_params(*r), 1.55e9);
  const auto [attending, mamba] = layer_kinds(*r);
  EXPECT_EQ(attending, (std::vector<int>{5, 15, 25, 35}));
  EXPECT_EQ(mamba.size(), 36u);
}

// Tiny cut to 6 layers: blocks 0-4 Mamba-2 layers, block 5 attention; every block ffn_norm, the
// experts and an ungated shared expert; tied embeddings.
TEST(GraniteHybridTensorPlanTest, Mamba2AndAttentionLayersHaveLlamaCppsTensors) {
  auto t = planned_tensors_of("", "granite-4.0-h-tiny", DType::kF32, 6);
  EXPECT_EQ(t.size(), 2u + 5u * 17u + 13u);
  for (int l = 0; l < 5; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_norm.weight"].dims, (Dims{1536})) << p;
    EXPECT_EQ(t[p + "ssm_in.weight"].dims, (Dims{1536, 3072 + 3328 + 48})) << p;  // z, x B C, dt
    EXPECT_EQ(t[p + "ssm_conv1d.weight"].dims, (Dims{4, 3328})) << p;
    EXPECT_EQ(t[p + "ssm_conv1d.bias"].dims, (Dims{3328})) << p;
    EXPECT_EQ(t[p + "ssm_dt.bias"].dims, (Dims{48})) << p;
    EXPECT_EQ(t[p + "ssm_a"].dims, (Dims{1, 48})) << p;
    EXPECT_EQ(t[p + "ssm_d"].dims, (Dims{1, 48})) << p;
    EXPECT_EQ(t[p + "ssm_norm.weight"].dims, (Dims{3072, 1})) << p;
    EXPECT_EQ(t[p + "ssm_out.weight"].dims, (Dims{3072, 1536})) << p;
    EXPECT_EQ(t[p + "ssm_a"].kind, WeightKind::kMamba2A) << p;
    EXPECT_EQ(t[p + "ssm_d"].kind, WeightKind::kMamba2D) << p;
    EXPECT_EQ(t[p + "ssm_dt.bias"].kind, WeightKind::kMamba2DtBias) << p;
    for (const char* absent : {"attn_q.weight", "attn_k.weight", "attn_output.weight", "attn_qkv.weight",
                               "ssm_beta.weight", "ssm_ba.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.5.attn_q.weight"].dims, (Dims{1536, 1536}));
  EXPECT_EQ(t["blk.5.attn_k.weight"].dims, (Dims{1536, 512}));
  EXPECT_EQ(t["blk.5.attn_v.weight"].dims, (Dims{1536, 512}));
  EXPECT_EQ(t["blk.5.attn_output.weight"].dims, (Dims{1536, 1536}));
  EXPECT_EQ(t.count("blk.5.ssm_in.weight") + t.count("blk.5.attn_q_norm.weight"), 0u);
  for (int l = 0; l < 6; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "ffn_norm.weight"].dims, (Dims{1536})) << p;
    EXPECT_EQ(t.count(p + "post_attention_norm.weight"), 0u) << p;
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].dims, (Dims{1536, 64})) << p;
    EXPECT_EQ(t[p + "ffn_gate_exps.weight"].dims, (Dims{1536, 512, 64})) << p;
    EXPECT_EQ(t[p + "ffn_down_exps.weight"].dims, (Dims{512, 1536, 64})) << p;
    EXPECT_EQ(t[p + "ffn_up_shexp.weight"].dims, (Dims{1536, 1024})) << p;
    EXPECT_EQ(t[p + "ffn_down_shexp.weight"].dims, (Dims{1024, 1536})) << p;
    EXPECT_EQ(t.count(p + "ffn_gate_inp_shexp.weight"), 0u) << p;
  }
  EXPECT_EQ(t["token_embd.weight"].dims, (Dims{1536, 100352}));
  EXPECT_EQ(t.count("output.weight"), 0u);
}

// A cut keeps the layers l % 10 == 5 attending; under 6 layers its last one attends, so every
// cut, one layer too, has an attending layer.
TEST(GraniteHybridPresetTest, EveryLayerCutKeepsAnAttendingLayer) {
  struct Case {
    int n_layers;
    std::vector<int> attending;
  };
  for (const Case& c : {Case{1, {0}}, Case{2, {1}}, Case{5, {4}}, Case{6, {5}}, Case{15, {5}}, Case{16, {5, 15}},
                        Case{26, {5, 15, 25}}}) {
    auto r = planned_model("", "granite-4.0-h-tiny", DType::kQ8_0, c.n_layers);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const auto [attending, mamba] = layer_kinds(*r);
    EXPECT_EQ(attending, c.attending) << c.n_layers << " layers";
    EXPECT_EQ(attending.size() + mamba.size(), static_cast<size_t>(c.n_layers)) << c.n_layers << " layers";
    for (int l = 0; l < c.n_layers; ++l) EXPECT_EQ(layer_attends(r->spec, l), granite_layer_attends(r->spec, l));
  }
}

// Other presets as granitehybrid take Tiny's proportions: Mamba-2 layers of 2 * n_embd values in
// heads of 64, one group of min(128, n_embd / 4) state values; a MoE preset a shared expert twice
// its expert width and feed_forward_length the expert width; a dense preset (Micro's form) its own
// dense feed-forward. A Qwen3.5 preset drops its delta-net interval.
TEST(GraniteHybridPresetTest, OtherPresetsTakeTinysProportions) {
  auto moe = planned_model("granitehybrid", "moe-tiny", DType::kF32);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ(moe->spec.ssm_n_v_heads, 4);
  EXPECT_EQ(moe->spec.ssm_head_v_dim, 64);
  EXPECT_EQ(moe->spec.ssm_n_k_heads, 1);
  EXPECT_EQ(moe->spec.ssm_head_k_dim, 32);
  EXPECT_EQ(moe->spec.n_ff, 256);
  EXPECT_EQ(moe->spec.n_ff_shexp, 512);
  auto tm = planned_tensors_by_name(moe->plan);
  EXPECT_EQ(tm["blk.0.ssm_in.weight"].dims, (Dims{128, 256 + 320 + 4}));
  EXPECT_EQ(tm["blk.1.attn_q.weight"].dims, (Dims{128, 128}));
  EXPECT_EQ(tm["blk.1.ffn_gate_shexp.weight"].dims, (Dims{128, 512}));

  auto big = model_preset("granitehybrid", "qwen3-30b-a3b");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->ssm_n_v_heads, 64);
  EXPECT_EQ(big->ssm_head_k_dim, 128);
  EXPECT_EQ(big->n_ff_shexp, 2 * 768);

  auto dense = planned_tensors_of("granitehybrid", "tiny", DType::kF32);
  EXPECT_EQ(dense["blk.0.ssm_in.weight"].dims, (Dims{64, 128 + 160 + 2}));
  EXPECT_EQ(dense["blk.0.ffn_gate.weight"].dims, (Dims{64, 128}));
  EXPECT_EQ(dense["blk.1.attn_k.weight"].dims, (Dims{64, 32}));
  EXPECT_EQ(dense.count("blk.0.ffn_gate_inp.weight"), 0u);

  auto qwen35 = planned_model("granitehybrid", "qwen3.5-9b", DType::kF32, 6);
  ASSERT_TRUE(qwen35.ok()) << qwen35.status().ToString();
  EXPECT_EQ(qwen35->spec.full_attn_interval, 0);
  EXPECT_EQ(qwen35->spec.ssm_n_v_heads, 128);
  auto tq = planned_tensors_by_name(qwen35->plan);
  EXPECT_EQ(tq["blk.5.attn_q.weight"].dims, (Dims{4096, 4096}));  // no output gate rows
  EXPECT_EQ(tq.count("blk.3.attn_qkv.weight") + tq.count("blk.3.attn_q.weight"), 0u);
}

// Granite's preset as another arch: every layer attends, no ssm_* tensor; a Mamba-2 layout on another
// arch, with Qwen3.5's interval or with heads that do not split over the groups is refused.
TEST(GraniteHybridPresetTest, OtherArchsDropTheMamba2LayersAndBrokenLayoutsAreRefused) {
  auto moe = planned_model("qwen3moe", "granite-4.0-h-tiny", DType::kQ8_0, 2);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_FALSE(moe->spec.mamba2);
  const auto [attending, mamba] = layer_kinds(*moe);
  EXPECT_EQ(attending, (std::vector<int>{0, 1}));
  EXPECT_TRUE(mamba.empty());

  ModelSpec s = *model_preset("", "granite-4.0-h-tiny");
  s.arch = "granitemoe";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("Mamba-2 layers (ModelSpec::mamba2) go with arch "
                                                                  "granitehybrid, not granitemoe"),
            std::string::npos);
  s = *model_preset("", "granite-4.0-h-tiny");
  s.full_attn_interval = 4;
  EXPECT_EQ(plan_tensors(s, DType::kF32).status().code(), Code::kInvalidArgument);
  s = *model_preset("", "granite-4.0-h-tiny");
  s.ssm_n_k_heads = 5;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("heads (time_step_rank 48) a multiple of the groups "
                                                                  "(group_count 5)"),
            std::string::npos);
}

// Q4_K_M and Q3_K_M as llama.cpp's quantizer makes them: ssm_in / ssm_out the base type, the
// convolution, its bias and the Mamba-2 vectors F32; attn_v numbered among the attn_v tensors, which
// only the attending layers have (n_attention_wv 4 of 40 layers: indices 2 and 3, blocks 25 and 35,
// raised by Q4_K_M; 26 layers: 3 of them, block 5 not raised, as it would be read as layer 5 of 26),
// and Q3_K_M's first two (blocks 5 and 15) Q5_K.
TEST(GraniteHybridTensorPlanTest, MixesNumberAttnVAmongTheAttendingLayers) {
  auto t = planned_tensors_of("", "granite-4.0-h-tiny", DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_in.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.ssm_out.weight"].type, DType::kQ4_K);
  for (const char* f32 : {"blk.0.ssm_conv1d.weight", "blk.0.ssm_conv1d.bias", "blk.0.ssm_a", "blk.0.ssm_d",
                          "blk.0.ssm_dt.bias", "blk.0.ssm_norm.weight", "blk.0.ffn_gate_inp.weight"}) {
    EXPECT_EQ(t[f32].type, DType::kF32) << f32;
  }
  EXPECT_EQ(t["blk.5.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.15.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.25.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.35.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ6_K);  // tied: the output's type
  auto cut = planned_tensors_of("", "granite-4.0-h-tiny", DType::kQ4_K, 26);
  EXPECT_EQ(cut["blk.5.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(cut["blk.25.attn_v.weight"].type, DType::kQ6_K);
  auto q3 = planned_tensors_of("", "granite-4.0-h-tiny", DType::kQ3_K);
  EXPECT_EQ(q3["blk.5.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.15.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.25.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(q3["blk.0.ssm_in.weight"].type, DType::kQ3_K);
}

}  // namespace
}  // namespace strata
