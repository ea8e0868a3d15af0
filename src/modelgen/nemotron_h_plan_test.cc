// nemotron_h / nemotron_h_moe (NVIDIA Nemotron-H, Nemotron Nano 2, Nemotron 3 Nano) presets and plans:
// the two presets' published shapes and sizes, each layer kind's tensors as llama.cpp's converter
// writes them, the layer kinds of a --layers cut, other presets as nemotron_h (Nemotron 3 Nano's
// unit), Nemotron's presets as other archs, the spec checks, and the types the mixes give attn_v and
// the gate-less ffn_down, numbered as llama.cpp's quantizer numbers them.
#include <gtest/gtest.h>

#include <map>

#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

constexpr const char* kNano9bPattern = "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-";
constexpr const char* kNano30bPattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME";

// The kinds of a plan's layers as its tensors show them: 'M' ssm_in, '*' attn_q, '-' ffn_up,
// 'E' ffn_up_exps ('?' none or several).
std::string planned_kinds(const GenerateReport& r) {
  auto t = planned_tensors_by_name(r.plan);
  std::string kinds;
  for (int l = 0; l < r.spec.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const int n = static_cast<int>(t.count(p + "ssm_in.weight") + t.count(p + "attn_q.weight") +
                                   t.count(p + "ffn_up.weight") + t.count(p + "ffn_up_exps.weight"));
    kinds += n != 1                                   ? '?'
             : t.count(p + "ssm_in.weight") != 0      ? 'M'
             : t.count(p + "attn_q.weight") != 0      ? '*'
             : t.count(p + "ffn_up.weight") != 0      ? '-'
                                                      : 'E';
  }
  return kinds;
}

// Parameters a token reads: every tensor's, the routed experts' scaled by used / count.
double nemotron_active_params(const GenerateReport& r) {
  double n = 0;
  for (const auto& t : r.plan.tensors) {
    double elements = 1;
    for (uint64_t d : t.dims) elements *= static_cast<double>(d);
    const bool routed = t.name.find("_exps.") != std::string::npos;
    n += routed ? elements * r.spec.n_expert_used / r.spec.n_expert : elements;
  }
  return n;
}

// NVIDIA-Nemotron-Nano-9B-v2: 8,888,227,328 parameters. By hand: 27 Mamba-2 layers of ssm_in 4480 x
// (10240 + 12288 + 128), convolution 4 x 12288 + 12288, three vectors of 128, ssm_norm 10240, ssm_out
// 10240 x 4480 = 3,981,045,888; 25 feed-forward layers of 2 x 4480 x 15680 = 3,512,320,000; 4
// attention layers of 2 x 4480 x 5120 + 2 x 4480 x 1024 = 220,200,960; 56 norms of 4480; untied
// embeddings 2 x 4480 x 131072 and the output norm = 1,174,409,600.
TEST(NemotronHPresetTest, NemotronNano9bV2MatchesThePublishedShape) {
  auto r = planned_model("", "nemotron-nano-9b-v2", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "nemotron_h");
  EXPECT_TRUE(s.nemotron_h);
  EXPECT_FALSE(s.mamba2 || s.tied_embeddings || s.qk_norm || s.qkv_bias || s.post_norms);
  EXPECT_EQ(s.full_attn_interval, 0);
  EXPECT_EQ(s.n_vocab, 131072);
  EXPECT_EQ(s.n_ctx, 131072);
  EXPECT_EQ(s.n_embd, 4480);
  EXPECT_EQ(s.n_layer, 56);
  EXPECT_EQ(s.n_head, 40);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 15680);
  EXPECT_EQ(s.n_expert, 0);
  EXPECT_EQ(s.ssm_conv_kernel, 4);
  EXPECT_EQ(s.ssm_n_v_heads, 128);
  EXPECT_EQ(s.ssm_head_v_dim, 80);
  EXPECT_EQ(s.ssm_n_k_heads, 8);
  EXPECT_EQ(s.ssm_head_k_dim, 128);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-5f);
  EXPECT_EQ(nemotron_layer_pattern(s), kNano9bPattern);
  EXPECT_EQ(planned_kinds(*r), kNano9bPattern);
  EXPECT_EQ(r->n_params, 8'888'227'328u);
}

// Nemotron 3 Nano 30B-A3B: 31,577,940,288 parameters, 3,580,076,352 read per token (6 of 128
// experts). By hand: 23 Mamba-2 layers of ssm_in 2688 x (4096 + 6144 + 64), convolution 4 x 6144 +
// 6144, three vectors of 64, ssm_norm 4096, ssm_out 4096 x 2688 = 891,070,784; 23 MoE layers of a
// router 2688 x 128 and its bias of 128, routed experts 2 x 2688 x 1856 x 128 and a shared expert 2 x
// 2688 x 3712 = 29,841,693,696 (active: 6 of the 128 experts, 1,844,576,256); 6 attention layers of 2 x
// 2688 x 4096 + 2 x 2688 x 256 = 140,378,112; 52 norms of 2688; untied embeddings 2 x 2688 x 131072
// and the output norm = 704,645,760.
TEST(NemotronHPresetTest, Nemotron3Nano30bA3bMatchesThePublishedShape) {
  auto r = planned_model("", "nemotron-3-nano-30b-a3b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "nemotron_h_moe");
  EXPECT_TRUE(s.nemotron_h && s.sigmoid_routing && s.expert_weights_norm);
  EXPECT_FALSE(s.mamba2 || s.tied_embeddings || s.qk_norm);
  EXPECT_FLOAT_EQ(s.expert_weights_scale, 2.5f);
  EXPECT_EQ(s.n_dense_lead, 0);
  EXPECT_EQ(s.n_ctx, 262144);
  EXPECT_EQ(s.n_embd, 2688);
  EXPECT_EQ(s.n_layer, 52);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 2);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 1856);
  EXPECT_EQ(s.n_expert, 128);
  EXPECT_EQ(s.n_expert_used, 6);
  EXPECT_EQ(s.n_ff_exp, 1856);
  EXPECT_EQ(s.n_ff_shexp, 3712);
  EXPECT_EQ(s.ssm_n_v_heads, 64);
  EXPECT_EQ(s.ssm_head_v_dim, 64);
  EXPECT_EQ(s.ssm_n_k_heads, 8);
  EXPECT_EQ(s.ssm_head_k_dim, 128);
  EXPECT_EQ(nemotron_layer_pattern(s), kNano30bPattern);
  EXPECT_EQ(planned_kinds(*r), kNano30bPattern);
  EXPECT_EQ(r->n_params, 31'577'940'288u);
  EXPECT_EQ(nemotron_active_params(*r), 3'580'076'352.0);
}

// Nemotron Nano 9B v2 cut to 16 layers (M-M-M-MM-M-M-M*-): every layer attn_norm and no ffn_norm; the
// Mamba-2 layers granitehybrid's tensors over 8 groups; attention plain q/k/v/output; the
// feed-forward up and down without a gate; an untied output.
TEST(NemotronHTensorPlanTest, EachLayerKindHasLlamaCppsTensors) {
  auto t = planned_tensors_of("", "nemotron-nano-9b-v2", DType::kF32, 16);
  EXPECT_EQ(t.size(), 3u + 8u * 9u + 1u * 5u + 7u * 3u);
  for (int l = 0; l < 16; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_norm.weight"].dims, (Dims{4480})) << p;
    for (const char* absent : {"ffn_norm.weight", "post_attention_norm.weight", "ffn_gate.weight",
                               "attn_q_norm.weight", "attn_q.bias"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.0.ssm_in.weight"].dims, (Dims{4480, 10240 + 12288 + 128}));  // z, x B C, dt
  EXPECT_EQ(t["blk.0.ssm_conv1d.weight"].dims, (Dims{4, 12288}));
  EXPECT_EQ(t["blk.0.ssm_conv1d.bias"].dims, (Dims{12288}));
  EXPECT_EQ(t["blk.0.ssm_dt.bias"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.ssm_a"].dims, (Dims{1, 128}));
  EXPECT_EQ(t["blk.0.ssm_d"].dims, (Dims{1, 128}));
  EXPECT_EQ(t["blk.0.ssm_norm.weight"].dims, (Dims{1280, 8}));
  EXPECT_EQ(t["blk.0.ssm_out.weight"].dims, (Dims{10240, 4480}));
  EXPECT_EQ(t["blk.0.ssm_a"].kind, WeightKind::kMamba2A);
  EXPECT_EQ(t.count("blk.0.ffn_up.weight") + t.count("blk.0.attn_q.weight"), 0u);
  EXPECT_EQ(t["blk.1.ffn_up.weight"].dims, (Dims{4480, 15680}));
  EXPECT_EQ(t["blk.1.ffn_down.weight"].dims, (Dims{15680, 4480}));
  EXPECT_EQ(t.count("blk.1.ssm_in.weight") + t.count("blk.1.attn_q.weight"), 0u);
  EXPECT_EQ(t["blk.14.attn_q.weight"].dims, (Dims{4480, 5120}));
  EXPECT_EQ(t["blk.14.attn_k.weight"].dims, (Dims{4480, 1024}));
  EXPECT_EQ(t["blk.14.attn_v.weight"].dims, (Dims{4480, 1024}));
  EXPECT_EQ(t["blk.14.attn_output.weight"].dims, (Dims{5120, 4480}));
  EXPECT_EQ(t.count("blk.14.ssm_in.weight") + t.count("blk.14.ffn_up.weight"), 0u);
  EXPECT_EQ(t["output.weight"].dims, (Dims{4480, 131072}));
}

// Nemotron 3 Nano cut to 6 layers (MEMEM*): the expert layers a router with its selection bias (both
// F32), gate-less experts and a gate-less shared expert.
TEST(NemotronHTensorPlanTest, ExpertLayersHaveNoGates) {
  auto t = planned_tensors_of("", "nemotron-3-nano-30b-a3b", DType::kQ8_0, 6);
  EXPECT_EQ(t.size(), 3u + 3u * 9u + 2u * 7u + 1u * 5u);
  for (int l : {1, 3}) {
    const std::string p = "blk." + std::to_string(l) + ".";
    EXPECT_EQ(t[p + "attn_norm.weight"].dims, (Dims{2688})) << p;
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].dims, (Dims{2688, 128})) << p;
    EXPECT_EQ(t[p + "ffn_gate_inp.weight"].type, DType::kF32) << p;
    EXPECT_EQ(t[p + "exp_probs_b.bias"].dims, (Dims{128})) << p;
    EXPECT_EQ(t[p + "exp_probs_b.bias"].kind, WeightKind::kSelectionBias) << p;
    EXPECT_EQ(t[p + "ffn_up_exps.weight"].dims, (Dims{2688, 1856, 128})) << p;
    EXPECT_EQ(t[p + "ffn_down_exps.weight"].dims, (Dims{1856, 2688, 128})) << p;
    EXPECT_EQ(t[p + "ffn_up_shexp.weight"].dims, (Dims{2688, 3712})) << p;
    EXPECT_EQ(t[p + "ffn_down_shexp.weight"].dims, (Dims{3712, 2688})) << p;
    for (const char* absent : {"ffn_gate_exps.weight", "ffn_gate_shexp.weight", "ffn_gate_inp_shexp.weight",
                               "ffn_norm.weight", "ffn_up.weight"}) {
      EXPECT_EQ(t.count(p + absent), 0u) << p << absent;
    }
  }
  EXPECT_EQ(t["blk.4.ssm_norm.weight"].dims, (Dims{512, 8}));
  EXPECT_EQ(t["blk.5.attn_k.weight"].dims, (Dims{2688, 256}));
}

// A cut takes the preset's pattern from its start and a longer model repeats it; where none of the
// layers would attend, the last Mamba-2 layer does, so every cut has an attending layer.
TEST(NemotronHPresetTest, EveryLayerCutKeepsAnAttendingLayer) {
  struct Case {
    const char* preset;
    int n_layers;
    std::string kinds;
  };
  const std::string nano9b = kNano9bPattern;
  for (const Case& c : {Case{"nemotron-nano-9b-v2", 1, "*"}, Case{"nemotron-nano-9b-v2", 2, "*-"},
                        Case{"nemotron-nano-9b-v2", 7, "M-M-M-*"}, Case{"nemotron-nano-9b-v2", 14, "M-M-M-MM-M-M-*"},
                        Case{"nemotron-nano-9b-v2", 15, "M-M-M-MM-M-M-M*"},
                        Case{"nemotron-nano-9b-v2", 60, nano9b + "M-M-"}, Case{"nemotron-3-nano-30b-a3b", 2, "*E"},
                        Case{"nemotron-3-nano-30b-a3b", 4, "ME*E"}, Case{"nemotron-3-nano-30b-a3b", 6, "MEMEM*"}}) {
    auto r = planned_model("", c.preset, DType::kQ8_0, c.n_layers);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(nemotron_layer_pattern(r->spec), c.kinds) << c.preset << " " << c.n_layers;
    EXPECT_EQ(planned_kinds(*r), c.kinds) << c.preset << " " << c.n_layers;
    for (int l = 0; l < c.n_layers; ++l) {
      EXPECT_EQ(layer_attends(r->spec, l), c.kinds[static_cast<size_t>(l)] == '*') << c.n_layers << ": " << l;
      EXPECT_EQ(nemotron_layer_kind(r->spec, l), c.kinds[static_cast<size_t>(l)]) << c.n_layers << ": " << l;
    }
  }
}

// Other presets as nemotron_h / nemotron_h_moe take Nemotron 3 Nano's 7-layer unit over at least 7
// layers, Mamba-2 layers of 2 * n_embd values in heads of 64 over 8 groups where the heads split into
// 8 (else 1) of min(128, n_embd / 4) state values; as nemotron_h_moe its routing and a shared expert
// twice the expert width, feed_forward_length the expert width.
TEST(NemotronHPresetTest, OtherPresetsTakeNemotron3NanosUnit) {
  auto tiny = planned_model("nemotron_h", "tiny", DType::kF32);
  ASSERT_TRUE(tiny.ok()) << tiny.status().ToString();
  EXPECT_EQ(tiny->spec.n_layer, 7);
  EXPECT_EQ(planned_kinds(*tiny), "M-M-M*-");
  EXPECT_EQ(tiny->spec.ssm_n_v_heads, 2);
  EXPECT_EQ(tiny->spec.ssm_n_k_heads, 1);
  EXPECT_EQ(tiny->spec.ssm_head_k_dim, 16);
  auto tt = planned_tensors_by_name(tiny->plan);
  EXPECT_EQ(tt["blk.0.ssm_in.weight"].dims, (Dims{64, 128 + 160 + 2}));
  EXPECT_EQ(tt["blk.1.ffn_up.weight"].dims, (Dims{64, 128}));
  EXPECT_EQ(tt["blk.5.attn_q.weight"].dims, (Dims{64, 64}));

  auto small = model_preset("nemotron_h", "small");
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->ssm_n_v_heads, 8);
  EXPECT_EQ(small->ssm_n_k_heads, 8);
  EXPECT_EQ(small->ssm_head_k_dim, 64);
  EXPECT_EQ(small->n_layer, 7);

  auto moe = planned_model("nemotron_h_moe", "moe-tiny", DType::kF32);
  ASSERT_TRUE(moe.ok()) << moe.status().ToString();
  EXPECT_EQ(planned_kinds(*moe), "MEMEM*E");
  EXPECT_TRUE(moe->spec.sigmoid_routing && moe->spec.expert_weights_norm);
  EXPECT_FLOAT_EQ(moe->spec.expert_weights_scale, 2.5f);
  EXPECT_EQ(moe->spec.n_ff, 256);
  EXPECT_EQ(moe->spec.n_ff_shexp, 512);

  auto big = model_preset("nemotron_h_moe", "qwen3-30b-a3b");
  ASSERT_TRUE(big.ok()) << big.status().ToString();
  EXPECT_EQ(big->n_layer, 48);
  EXPECT_EQ(big->ssm_n_v_heads, 64);
  EXPECT_EQ(big->ssm_n_k_heads, 8);
  EXPECT_EQ(big->ssm_head_k_dim, 128);
  EXPECT_EQ(big->n_ff_shexp, 2 * 768);
  EXPECT_EQ(nemotron_layer_pattern(*big).substr(0, 14), "MEMEM*EMEMEM*E");

  auto qwen35 = planned_model("nemotron_h", "qwen3.5-9b", DType::kF32, 7);
  ASSERT_TRUE(qwen35.ok()) << qwen35.status().ToString();
  EXPECT_EQ(qwen35->spec.full_attn_interval, 0);
  EXPECT_EQ(planned_tensors_by_name(qwen35->plan)["blk.5.attn_q.weight"].dims, (Dims{4096, 4096}));
}

// Nemotron's presets as other archs: every layer attends, no ssm_* tensor, no pattern; a dense
// preset as nemotron_h_moe, a MoE one as nemotron_h, a pattern on another arch, a pattern with a
// kind of the other arch and Mamba-2 heads that do not split over the groups are refused.
TEST(NemotronHPresetTest, OtherArchsDropThePatternAndBrokenLayoutsAreRefused) {
  auto llama = planned_model("llama", "nemotron-nano-9b-v2", DType::kQ8_0, 2);
  ASSERT_TRUE(llama.ok()) << llama.status().ToString();
  EXPECT_FALSE(llama->spec.nemotron_h);
  EXPECT_TRUE(llama->spec.layer_pattern.empty());
  EXPECT_EQ(planned_tensors_by_name(llama->plan).count("blk.0.ssm_in.weight"), 0u);
  auto granite = planned_model("granitehybrid", "nemotron-3-nano-30b-a3b", DType::kQ8_0, 6);
  ASSERT_TRUE(granite.ok()) << granite.status().ToString();
  EXPECT_TRUE(granite->spec.layer_pattern.empty());
  EXPECT_EQ(granite->spec.ssm_n_k_heads, 1);  // Granite 4.0-H Tiny's proportions

  EXPECT_EQ(model_preset("nemotron_h_moe", "nemotron-nano-9b-v2").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(model_preset("nemotron_h", "nemotron-3-nano-30b-a3b").status().code(), Code::kInvalidArgument);
  ModelSpec s = *model_preset("", "nemotron-nano-9b-v2");
  s.arch = "llama";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("goes with arch nemotron_h or nemotron_h_moe, not "
                                                                  "llama"),
            std::string::npos);
  s = *model_preset("", "nemotron-nano-9b-v2");
  s.layer_pattern = "M-E*";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("may hold only M*-"), std::string::npos);
  s = *model_preset("", "nemotron-3-nano-30b-a3b");
  s.layer_pattern = "M-*";
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("may hold only M*E"), std::string::npos);
  s = *model_preset("", "nemotron-nano-9b-v2");
  s.ssm_n_k_heads = 3;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("heads (time_step_rank 128) a multiple of the "
                                                                  "groups (group_count 3)"),
            std::string::npos);
}

// Q4_K_M as llama.cpp's quantizer makes it (rows 4480, 15680, 2688 or 1856 wide are not whole Q4_K
// or Q6_K blocks: those fall back to Q5_0 and Q8_0, as llama.cpp's do). Nano 9B v2's attn_v numbered
// among its 4 attending layers (blocks 30 and 39, the last two, raised); its ffn_down numbered among
// its 25 ffn_down tensors against the 56 layers (llama.cpp's i_ffn_down: blocks 8 and 28, the 4th and
// 13th, raised, blocks 24 and 53, the 11th and 24th, not, each the other way by its block number);
// the Mamba-2 matrices the base type, their vectors F32. Nemotron 3 Nano's attn_v among its 6
// attending layers (blocks 19 and 42 raised, block 5 not), its expert ffn_down by the layer in its
// name (block 1 and 8 raised, block 10, the 6th MoE layer, not).
TEST(NemotronHTensorPlanTest, MixesNumberAttnVAndFfnDownAsLlamaCpp) {
  auto t = planned_tensors_of("", "nemotron-nano-9b-v2", DType::kQ4_K);
  EXPECT_EQ(t["blk.14.attn_v.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.21.attn_v.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.30.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.39.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.1.ffn_down.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.8.ffn_down.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.28.ffn_down.weight"].type, DType::kQ8_0);
  EXPECT_EQ(t["blk.24.ffn_down.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.53.ffn_down.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.1.ffn_up.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.0.ssm_in.weight"].type, DType::kQ5_0);
  EXPECT_EQ(t["blk.0.ssm_out.weight"].type, DType::kQ4_K);  // 10240 wide: whole blocks
  for (const char* f32 : {"blk.0.ssm_conv1d.weight", "blk.0.ssm_conv1d.bias", "blk.0.ssm_a", "blk.0.ssm_d",
                          "blk.0.ssm_dt.bias", "blk.0.ssm_norm.weight"}) {
    EXPECT_EQ(t[f32].type, DType::kF32) << f32;
  }
  auto moe = planned_tensors_of("", "nemotron-3-nano-30b-a3b", DType::kQ4_K);
  EXPECT_EQ(moe["blk.5.attn_v.weight"].type, DType::kQ5_0);
  EXPECT_EQ(moe["blk.19.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(moe["blk.42.attn_v.weight"].type, DType::kQ8_0);
  EXPECT_EQ(moe["blk.1.ffn_down_exps.weight"].type, DType::kQ8_0);
  EXPECT_EQ(moe["blk.8.ffn_down_exps.weight"].type, DType::kQ8_0);
  EXPECT_EQ(moe["blk.10.ffn_down_exps.weight"].type, DType::kQ5_0);
  EXPECT_EQ(moe["blk.10.ffn_down_shexp.weight"].type, DType::kQ5_0);
  EXPECT_EQ(moe["blk.1.exp_probs_b.bias"].type, DType::kF32);
  EXPECT_EQ(moe["blk.1.ffn_gate_inp.weight"].type, DType::kF32);
}

// IQ2_XXS (llama.cpp's low-bit branch): the ffn_down among the first eighth of the ffn_down tensors,
// counted against the layers, Q2_K: small as nemotron_h cut to 16 layers has ffn_down in blocks 1, 3,
// 6, ...; the first two (16 / 8) are raised, block 3 though its block number is past 2.
TEST(NemotronHTensorPlanTest, LowBitMixesCountTheFfnDownTensors) {
  auto t = planned_tensors_of("nemotron_h", "small", DType::kIQ2_XXS, 16);
  EXPECT_EQ(t["blk.1.ffn_down.weight"].type, DType::kQ2_K);
  EXPECT_EQ(t["blk.3.ffn_down.weight"].type, DType::kQ2_K);
  EXPECT_EQ(t["blk.6.ffn_down.weight"].type, DType::kIQ2_XXS);
}

}  // namespace
}  // namespace strata
