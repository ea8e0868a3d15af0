// lfm2 / lfm2moe (Liquid LFM2, LFM2-MoE) presets and plans: the two presets' published shapes and
// sizes, each layer kind's tensors as llama.cpp's converter writes them, the layer kinds and dense
// lead of a --layers cut, other presets as lfm2 / lfm2moe, LFM2's presets as other archs, the spec
// checks, and the types the mixes give attn_v (numbered among the attending layers, n_gqa read from
// layer 0 as llama.cpp reads them) and the short-convolution tensors.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

constexpr const char* kLfm2_1_2bTypes = "CC*CC*CC*C*C*C*C";
constexpr const char* kLfm2_8bA1bTypes = "CC*CCC*CCC*CCC*CCC*CC*CC";

// The kinds of a plan's layers as its tensors show them: 'C' shortconv.in_proj, '*' attn_q ('?'
// both or neither).
std::string planned_lfm2_kinds(const GenerateReport& r) {
  auto t = planned_tensors_by_name(r.plan);
  std::string kinds;
  for (int l = 0; l < r.spec.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const bool conv = t.count(p + "shortconv.in_proj.weight") != 0, attn = t.count(p + "attn_q.weight") != 0;
    kinds += conv == attn ? '?' : conv ? 'C' : '*';
  }
  return kinds;
}

// Parameters a token reads: every tensor's, the routed experts' scaled by used / count.
double lfm2_active_params(const GenerateReport& r) {
  double n = 0;
  for (const auto& t : r.plan.tensors) {
    double elements = 1;
    for (uint64_t d : t.dims) elements *= static_cast<double>(d);
    n += t.name.find("_exps.") != std::string::npos ? elements * r.spec.n_expert_used / r.spec.n_expert : elements;
  }
  return n;
}

// LFM2-1.2B: 1,170,340,608 parameters (published: 1.17B). By hand: 10 short-convolution layers of
// in_proj 2048 x 6144, taps 3 x 2048 and out_proj 2048 x 2048 = 167,833,600; 6 attention layers of 2 x
// 2048 x 2048 + 2 x 2048 x 512 and two norms of 64 = 62,915,328; 16 feed-forwards of 3 x 2048 x 8192
// and two norms of 2048 = 805,371,904; tied embeddings 65536 x 2048 and the final norm = 134,219,776.
TEST(Lfm2PresetTest, Lfm2_1_2bMatchesThePublishedShape) {
  auto r = planned_model("", "lfm2-1.2b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "lfm2");
  EXPECT_TRUE(s.lfm2 && s.qk_norm && s.tied_embeddings);
  EXPECT_FALSE(s.mamba2 || s.nemotron_h || s.qkv_bias || s.post_norms);
  EXPECT_EQ(s.full_attn_interval, 0);
  EXPECT_EQ(s.n_vocab, 65536);
  EXPECT_EQ(s.n_ctx, 128000);
  EXPECT_EQ(s.n_embd, 2048);
  EXPECT_EQ(s.n_layer, 16);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 64);
  EXPECT_EQ(s.n_ff, 8192);
  EXPECT_EQ(s.n_expert, 0);
  EXPECT_EQ(s.ssm_conv_kernel, 3);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 1000000.0f);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-5f);
  EXPECT_EQ(lfm2_layer_pattern(s), kLfm2_1_2bTypes);
  EXPECT_EQ(planned_lfm2_kinds(*r), kLfm2_1_2bTypes);
  EXPECT_EQ(r->n_params, 1'170'340'608u);
}

// LFM2-8B-A1B: 8,339,930,560 parameters, 1,557,740,992 read per token (published: 8.3B and 1.5B). By
// hand: 18 short-convolution layers = 302,100,480; 6 attention layers = 62,915,328; 2 dense
// feed-forwards of 3 x 2048 x 7168 = 88,080,384; 22 MoE layers of a router 2048 x 32, its bias of 32
// and experts 3 x 2048 x 1792 x 32 = 7,752,516,288 (active: 4 of the 32 experts); 48 norms of 2048;
// tied embeddings and the final norm = 134,219,776.
TEST(Lfm2PresetTest, Lfm2_8bA1bMatchesThePublishedShape) {
  auto r = planned_model("", "lfm2-8b-a1b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "lfm2moe");
  EXPECT_TRUE(s.lfm2 && s.qk_norm && s.tied_embeddings && s.sigmoid_routing && s.expert_weights_norm);
  EXPECT_FLOAT_EQ(s.expert_weights_scale, 1.0f);
  EXPECT_EQ(s.n_layer, 24);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.n_ff, 7168);
  EXPECT_EQ(s.n_dense_lead, 2);
  EXPECT_EQ(s.n_expert, 32);
  EXPECT_EQ(s.n_expert_used, 4);
  EXPECT_EQ(s.n_ff_exp, 1792);
  EXPECT_EQ(s.n_ff_shexp, 0);
  EXPECT_EQ(s.n_vocab, 65536);
  EXPECT_EQ(s.n_ctx, 128000);
  EXPECT_EQ(s.ssm_conv_kernel, 3);
  EXPECT_EQ(lfm2_layer_pattern(s), kLfm2_8bA1bTypes);
  EXPECT_EQ(planned_lfm2_kinds(*r), kLfm2_8bA1bTypes);
  EXPECT_EQ(r->n_params, 8'339'930'560u);
  EXPECT_EQ(lfm2_active_params(*r), 1'557'740'992.0);
}

// LFM2-1.2B cut to 3 layers (CC*): every layer attn_norm and ffn_norm and a SwiGLU feed-forward; the
// short convolutions in_proj (B, C, x), 3 taps per channel (F32 in any type) and out_proj; the
// attention plain q/k/v with per-head QK-norm; token_embd_norm as the final norm, no output.weight.
TEST(Lfm2TensorPlanTest, EachLayerKindHasLlamaCppsTensors) {
  auto t = planned_tensors_of("", "lfm2-1.2b", DType::kQ8_0, 3);
  EXPECT_EQ(t.size(), 2u + 2u * 8u + 1u * 11u);
  for (int l = 0; l < 3; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_norm.weight"].dims, (Dims{2048})) << p;
    EXPECT_EQ(t[p + "ffn_norm.weight"].dims, (Dims{2048})) << p;
    EXPECT_EQ(t[p + "ffn_gate.weight"].dims, (Dims{2048, 8192})) << p;
    EXPECT_EQ(t[p + "ffn_up.weight"].dims, (Dims{2048, 8192})) << p;
    EXPECT_EQ(t[p + "ffn_down.weight"].dims, (Dims{8192, 2048})) << p;
    for (const char* absent : {"post_attention_norm.weight", "attn_q.bias", "ssm_in.weight", "ssm_conv1d.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.0.shortconv.in_proj.weight"].dims, (Dims{2048, 3 * 2048}));
  EXPECT_EQ(t["blk.0.shortconv.conv.weight"].dims, (Dims{3, 2048}));
  EXPECT_EQ(t["blk.0.shortconv.conv.weight"].type, DType::kF32);
  EXPECT_EQ(t["blk.0.shortconv.out_proj.weight"].dims, (Dims{2048, 2048}));
  EXPECT_EQ(t["blk.0.shortconv.in_proj.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t.count("blk.0.attn_q.weight") + t.count("blk.2.shortconv.in_proj.weight"), 0u);
  EXPECT_EQ(t["blk.2.attn_q.weight"].dims, (Dims{2048, 2048}));
  EXPECT_EQ(t["blk.2.attn_k.weight"].dims, (Dims{2048, 512}));
  EXPECT_EQ(t["blk.2.attn_v.weight"].dims, (Dims{2048, 512}));
  EXPECT_EQ(t["blk.2.attn_q_norm.weight"].dims, (Dims{64}));
  EXPECT_EQ(t["blk.2.attn_k_norm.weight"].dims, (Dims{64}));
  EXPECT_EQ(t["blk.2.attn_output.weight"].dims, (Dims{2048, 2048}));
  EXPECT_EQ(t["token_embd_norm.weight"].dims, (Dims{2048}));
  EXPECT_EQ(t.count("output_norm.weight") + t.count("output.weight"), 0u);
}

// LFM2-8B-A1B cut to 4 layers (CC*C): its 2 dense layers, then a router and its selection bias (both
// F32) and the gated experts, no shared expert.
TEST(Lfm2TensorPlanTest, MoeLayersFollowTheDenseLead) {
  auto t = planned_tensors_of("", "lfm2-8b-a1b", DType::kQ8_0, 4);
  for (int l : {0, 1}) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "ffn_gate.weight"].dims, (Dims{2048, 7168})) << p;
    EXPECT_EQ(t[p + "ffn_down.weight"].dims, (Dims{7168, 2048})) << p;
    EXPECT_EQ(t.count(p + "ffn_gate_inp.weight"), 0u) << p;
  }
  for (int l : {2, 3}) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].dims, (Dims{2048, 32})) << p;
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].type, DType::kF32) << p;
    EXPECT_EQ(t[p + "exp_probs_b.bias"].dims, (Dims{32})) << p;
    EXPECT_EQ(t[p + "exp_probs_b.bias"].kind, WeightKind::kSelectionBias) << p;
    EXPECT_EQ(t[p + "ffn_gate_exps.weight"].dims, (Dims{2048, 1792, 32})) << p;
    EXPECT_EQ(t[p + "ffn_up_exps.weight"].dims, (Dims{2048, 1792, 32})) << p;
    EXPECT_EQ(t[p + "ffn_down_exps.weight"].dims, (Dims{1792, 2048, 32})) << p;
    for (const char* absent : {"ffn_gate.weight", "ffn_up_shexp.weight", "ffn_gate_inp_shexp.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
}

// A cut takes the preset's layer_types from their start, a longer model repeats them; where none of
// the layers would attend, the last one does. lfm2moe keeps an MoE layer: its dense lead is cut to
// one fewer than the layers.
TEST(Lfm2PresetTest, EveryLayerCutKeepsAnAttendingLayer) {
  struct Case {
    const char* preset;
    int n_layers;
    std::string kinds;
    int n_dense_lead;
  };
  const std::string lfm2 = kLfm2_1_2bTypes;
  for (const Case& c : {Case{"lfm2-1.2b", 1, "*", 0}, Case{"lfm2-1.2b", 2, "C*", 0}, Case{"lfm2-1.2b", 3, "CC*", 0},
                        Case{"lfm2-1.2b", 20, lfm2 + "CC*C", 0}, Case{"lfm2-8b-a1b", 1, "*", 0},
                        Case{"lfm2-8b-a1b", 2, "C*", 1}, Case{"lfm2-8b-a1b", 6, "CC*CCC", 2},
                        Case{"lfm2-8b-a1b", 7, "CC*CCC*", 2}}) {
    auto r = planned_model("", c.preset, DType::kQ8_0, c.n_layers);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(lfm2_layer_pattern(r->spec), c.kinds) << c.preset << " " << c.n_layers;
    EXPECT_EQ(planned_lfm2_kinds(*r), c.kinds) << c.preset << " " << c.n_layers;
    EXPECT_EQ(r->spec.n_dense_lead, c.n_dense_lead) << c.preset << " " << c.n_layers;
    for (int l = 0; l < c.n_layers; ++l) {
      EXPECT_EQ(layer_attends(r->spec, l), c.kinds[static_cast<size_t>(l)] == '*') << c.n_layers << ": " << l;
    }
  }
}

// Other presets as lfm2 / lfm2moe attend in every third layer over 3-tap convolutions, QK-norm and
// tied embeddings added; as lfm2moe one leading dense layer of the preset's n_ff, sigmoid routing,
// no shared expert. A Qwen3.5 preset loses its delta-net shapes, a Nemotron one its pattern.
TEST(Lfm2PresetTest, OtherPresetsAttendInEveryThirdLayer) {
  auto tiny = planned_model("lfm2", "tiny", DType::kF32);
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_EQ(tiny->spec.n_layer, 2);
  EXPECT_EQ(planned_lfm2_kinds(*tiny), "C*");
  EXPECT_TRUE(tiny->spec.qk_norm && tiny->spec.tied_embeddings);
  EXPECT_EQ(tiny->spec.ssm_conv_kernel, 3);
  EXPECT_EQ(planned_tensors_by_name(tiny->plan)["blk.0.shortconv.conv.weight"].dims, (Dims{3, 64}));

  auto moe = planned_model("lfm2moe", "moe-tiny", DType::kF32, 6);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ(planned_lfm2_kinds(*moe), "CC*CC*");
  EXPECT_TRUE(moe->spec.sigmoid_routing && moe->spec.expert_weights_norm);
  EXPECT_EQ(moe->spec.n_dense_lead, 1);
  EXPECT_EQ(moe->spec.n_ff, 256);
  EXPECT_EQ(moe->spec.n_ff_shexp, 0);
  auto mt = planned_tensors_by_name(moe->plan);
  EXPECT_EQ(mt.count("blk.0.ffn_gate.weight") + mt.count("blk.1.ffn_gate_exps.weight"), 2u);

  auto qwen35 = planned_model("lfm2", "qwen3.5-9b", DType::kF32, 3);
  ASSERT_TRUE(qwen35.ok()) << qwen35.status().ToString();
  EXPECT_EQ(qwen35->spec.full_attn_interval, 0);
  EXPECT_EQ(qwen35->spec.ssm_n_v_heads, 0);
  EXPECT_EQ(planned_lfm2_kinds(*qwen35), "CC*");
  auto nemotron = model_preset("lfm2", "nemotron-nano-9b-v2");
  ASSERT_TRUE(nemotron.ok()) << nemotron.status().ToString();
  EXPECT_EQ(nemotron->layer_pattern, "CC*");
  EXPECT_TRUE(nemotron->tied_embeddings);
}

// LFM2's presets as other archs: every layer attends, no short convolution, no pattern; a dense
// preset as lfm2moe and a MoE one as lfm2 are refused, and so are a pattern of another kind, a
// one-tap convolution, attention without QK-norm and a dense lead in a dense model.
TEST(Lfm2PresetTest, OtherArchsDropTheLayoutAndBrokenLayoutsAreRefused) {
  auto llama = planned_model("llama", "lfm2-1.2b", DType::kQ8_0, 2);
  ASSERT_TRUE(llama.ok()) << llama.status().ToString();
  EXPECT_FALSE(llama->spec.lfm2);
  EXPECT_TRUE(llama->spec.layer_pattern.empty());
  EXPECT_EQ(llama->spec.ssm_conv_kernel, 0);
  EXPECT_EQ(planned_tensors_by_name(llama->plan).count("blk.0.shortconv.in_proj.weight"), 0u);
  auto nemotron = model_preset("nemotron_h_moe", "lfm2-8b-a1b");
  ASSERT_TRUE(nemotron.ok()) << nemotron.status().ToString();
  EXPECT_EQ(nemotron->layer_pattern, "MEMEM*E");
  EXPECT_EQ(nemotron->n_dense_lead, 0);

  EXPECT_EQ(model_preset("lfm2moe", "lfm2-1.2b").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(model_preset("lfm2", "lfm2-8b-a1b").status().code(), Code::kInvalidArgument);
  ModelSpec s = *model_preset("", "lfm2-1.2b");
  s.layer_pattern = "CM*";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("must hold only C*"), std::string::npos);
  s = *model_preset("", "lfm2-1.2b");
  s.ssm_conv_kernel = 1;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find(">= 2 taps"), std::string::npos);
  s = *model_preset("", "lfm2-1.2b");
  s.qk_norm = false;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("QK-norm"), std::string::npos);
  s = *model_preset("", "lfm2-1.2b");
  s.n_dense_lead = 1;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("leading_dense_block_count 1 must be 0..0"),
            std::string::npos);
  s = *model_preset("", "lfm2-1.2b");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("go with arch lfm2 or lfm2moe, not llama"),
            std::string::npos);
}

// Q4_K_M, Q3_K_M and IQ4_XS as llama.cpp's quantizer makes them. LFM2-1.2B's attn_v are numbered
// among its 6 attending layers: in Q4_K_M the 3rd and 6th (blocks 8 and 14) raised, block 10 not,
// though its block number would raise it; in Q3_K_M the first two (blocks 2 and 5) Q5_K. Its layer 0
// has no K/V heads, so n_gqa is 0: IQ4_XS leaves attn_v IQ4_XS. Its ffn_down by block (every layer
// has one); the short convolutions' matrices the base type, their taps F32; the tied token_embd as
// an output. LFM2-8B-A1B's attn_v likewise (blocks 10 and 21 raised), its ffn_down, dense and
// experts, by the layer in the name.
TEST(Lfm2TensorPlanTest, MixesNumberAttnVAmongTheAttendingLayers) {
  auto t = planned_tensors_of("", "lfm2-1.2b", DType::kQ4_K);
  for (int l : {2, 5, 10, 12}) EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ4_K) << l;
  for (int l : {8, 14}) EXPECT_EQ(t["blk." + std::to_string(l) + ".attn_v.weight"].type, DType::kQ6_K) << l;
  EXPECT_EQ(t["blk.1.ffn_down.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t["blk.2.ffn_down.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.shortconv.in_proj.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.shortconv.out_proj.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["blk.0.shortconv.conv.weight"].type, DType::kF32);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ6_K);
  auto q3 = planned_tensors_of("", "lfm2-1.2b", DType::kQ3_K);
  EXPECT_EQ(q3["blk.2.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.5.attn_v.weight"].type, DType::kQ5_K);
  EXPECT_EQ(q3["blk.8.attn_v.weight"].type, DType::kQ4_K);
  auto iq4 = planned_tensors_of("", "lfm2-1.2b", DType::kIQ4_XS);
  EXPECT_EQ(iq4["blk.2.attn_v.weight"].type, DType::kIQ4_XS);
  EXPECT_EQ(iq4["blk.0.ffn_down.weight"].type, DType::kQ5_K);

  auto moe = planned_tensors_of("", "lfm2-8b-a1b", DType::kQ4_K);
  EXPECT_EQ(moe["blk.6.attn_v.weight"].type, DType::kQ4_K);
  EXPECT_EQ(moe["blk.10.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(moe["blk.21.attn_v.weight"].type, DType::kQ6_K);
  EXPECT_EQ(moe["blk.1.ffn_down.weight"].type, DType::kQ6_K);
  EXPECT_EQ(moe["blk.2.ffn_down_exps.weight"].type, DType::kQ6_K);
  EXPECT_EQ(moe["blk.3.ffn_down_exps.weight"].type, DType::kQ4_K);
  EXPECT_EQ(moe["blk.5.ffn_down_exps.weight"].type, DType::kQ6_K);
  EXPECT_EQ(moe["blk.3.exp_probs_b.bias"].type, DType::kF32);
}

}  // namespace
}  // namespace strata
