// gemma3n (Google Gemma 3n, text only) presets, plans and files: the E2B's and E4B's released shapes
// and sizes, a layer's tensors as llama.cpp's converter writes them (every layer with its own attn_k /
// attn_v, AltUp's router and coefficient maps, the laurel branch, the per-layer input block), the
// types llama.cpp's quantizer leaves alone (altup, laurel, per_layer_model_proj), cuts that keep every
// shared layer a source of its kind, other presets as gemma3n and the spec checks, and the keys a
// generated file carries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "modelgen/generator_test_fixture.h"
#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// Gemma 3n E2B: 4,455,632,480 parameters (the released 5.4B counts its vision and audio encoders too).
// By hand, per layer: attention 2 x 2048 x 2048 + 2 x 2048 x 512 = 10,485,760; q/k norms 2 x 256 and
// eight vectors of 2048 (attn_norm, post_attention_norm, ffn_norm, post_ffw_norm, post_norm,
// altup_correct_scale, altup_router_norm, laurel_post_norm) = 16,896; feed-forward 3 x 2048 x 8192 =
// 50,331,648; per-layer input 2 x 2048 x 256 = 1,048,576; AltUp maps 16 + 64 + 2048 x 4 = 8,272;
// laurel 2 x 2048 x 64 = 262,144; 62,153,296 x 30 = 1,864,598,880. Then token_embd 2048 x 262144 =
// 536,870,912, per_layer_token_embd 7680 x 262144 = 2,013,265,920, per_layer_model_proj 2048 x 7680 =
// 15,728,640, per_layer_proj_norm 256, altup_proj and altup_unembd_proj 2 x 3 x 2048 x 2048 =
// 25,165,824, output_norm 2048: 2,591,033,600.
TEST(Gemma3nPresetTest, E2bMatchesTheReleasedShape) {
  auto r = planned_model("", "gemma3n-e2b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "gemma3n");
  EXPECT_TRUE(s.gemma3n && s.qk_norm && s.post_norms && s.tied_embeddings);
  EXPECT_FALSE(s.gemma4 || s.double_wide_shared || s.qkv_bias);
  EXPECT_EQ(s.n_vocab, 262144);
  EXPECT_EQ(s.n_ctx, 32768);
  EXPECT_EQ(s.n_embd, 2048);
  EXPECT_EQ(s.n_layer, 30);
  EXPECT_EQ(s.n_head, 8);
  EXPECT_EQ(s.n_head_kv, 2);
  EXPECT_EQ(s.head_dim, 256);
  EXPECT_EQ(s.n_ff, 8192);
  EXPECT_EQ(s.laurel_rank, 64);
  EXPECT_EQ(s.n_embd_per_layer, 256);
  EXPECT_EQ(s.n_shared_kv_layers, 10);
  EXPECT_EQ(s.n_sparse_layers, 10);
  EXPECT_EQ(s.sliding_window, 512);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 1000000.0f);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-6f);
  for (int l = 0; l < s.n_layer; ++l) EXPECT_EQ(gemma4_layer_slides(s, l), l % 5 != 4) << l;
  EXPECT_EQ(r->n_params, 4'455'632'480u);
  EXPECT_EQ(r->n_params - 262144u * (2048u + 7680u), 1'905'495'648u);  // besides the two embedding tables
}

// Gemma 3n E4B: 6,866,172,400 parameters. By hand, per layer as the E2B's with a feed-forward of
// 3 x 2048 x 16384 = 100,663,296: 112,484,944 x 35 = 3,936,973,040; token_embd 536,870,912,
// per_layer_token_embd 8960 x 262144 = 2,348,810,240, per_layer_model_proj 2048 x 8960 = 18,350,080,
// per_layer_proj_norm 256, the AltUp projections 25,165,824, output_norm 2048: 2,929,199,360.
TEST(Gemma3nPresetTest, E4bMatchesTheReleasedShape) {
  auto r = planned_model("", "gemma3n-e4b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.n_layer, 35);
  EXPECT_EQ(s.n_ff, 16384);
  EXPECT_EQ(s.n_shared_kv_layers, 15);
  EXPECT_EQ(s.n_sparse_layers, 10);
  EXPECT_EQ(s.laurel_rank, 64);
  EXPECT_FALSE(gemma4_layer_slides(s, 34));
  EXPECT_EQ(r->n_params, 6'866'172'400u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t["per_layer_token_embd.weight"].dims, (Dims{35 * 256, 262144}));
  EXPECT_EQ(t["blk.34.ffn_up.weight"].dims, (Dims{2048, 16384}));  // the shared layers as wide as the others
}

// A layer's tensors (a shared one's too: blk.29 reads layer 24's K/V, yet carries attn_k, attn_v and
// attn_k_norm as the converter writes them), the tables, no output matrix or rope_freqs; in Q4_K the
// AltUp and laurel tensors and per_layer_model_proj F32, as llama.cpp's quantizer leaves them, the
// per-layer token table in the base type and token_embd (the output) Q6_K.
TEST(Gemma3nTensorPlanTest, LayersCarryAltupLaurelAndPerLayerInputs) {
  auto t = planned_tensors_of("", "gemma3n-e2b", DType::kQ4_K);
  EXPECT_EQ(t.size(), 7u + 30u * 24u);
  for (int l : {0, 29}) {
    const std::string p = "blk." + std::to_string(l) + ".";
    const std::map<std::string, Dims> shapes = {
        {"attn_q.weight", {2048, 2048}},        {"attn_k.weight", {2048, 512}},
        {"attn_v.weight", {2048, 512}},         {"attn_q_norm.weight", {256}},
        {"attn_k_norm.weight", {256}},          {"attn_output.weight", {2048, 2048}},
        {"inp_gate.weight", {2048, 256}},       {"proj.weight", {256, 2048}},
        {"post_norm.weight", {2048}},           {"ffn_gate.weight", {2048, 8192}},
        {"ffn_down.weight", {8192, 2048}},      {"post_ffw_norm.weight", {2048}},
        {"altup_correct_coef.weight", {4, 4}},  {"altup_correct_scale.weight", {2048}},
        {"altup_predict_coef.weight", {4, 16}}, {"altup_router.weight", {2048, 4}},
        {"altup_router_norm.weight", {2048}},   {"laurel_l.weight", {2048, 64}},
        {"laurel_r.weight", {64, 2048}},        {"laurel_post_norm.weight", {2048}}};
    for (const auto& [name, dims] : shapes) EXPECT_EQ(t[p + name].dims, dims) << p + name;
    for (const char* f32 : {"altup_correct_coef.weight", "altup_predict_coef.weight", "altup_router.weight",
                            "laurel_l.weight", "laurel_r.weight"}) {
      EXPECT_EQ(t[p + f32].type, DType::kF32) << p + f32;
    }
    EXPECT_EQ(t[p + "attn_q_norm.weight"].kind, WeightKind::kUnscaledQNorm);
    EXPECT_EQ(t[p + "altup_router.weight"].kind, WeightKind::kAltupRouter);
    EXPECT_EQ(t[p + "altup_predict_coef.weight"].kind, WeightKind::kAltupCoef);
    EXPECT_EQ(t[p + "ffn_gate.weight"].type, DType::kQ4_K);
  }
  EXPECT_EQ(t["altup_proj.weight"].dims, (Dims{2048, 2048, 3}));
  EXPECT_EQ(t["altup_unembd_proj.weight"].dims, (Dims{2048, 2048, 3}));
  EXPECT_EQ(t["altup_proj.weight"].type, DType::kF32);
  EXPECT_EQ(t["per_layer_model_proj.weight"].dims, (Dims{2048, 30 * 256}));
  EXPECT_EQ(t["per_layer_model_proj.weight"].type, DType::kF32);
  EXPECT_EQ(t["per_layer_token_embd.weight"].type, DType::kQ4_K);
  EXPECT_EQ(t["token_embd.weight"].type, DType::kQ6_K);
  EXPECT_EQ(t.count("output.weight") + t.count("rope_freqs.weight") + t.count("blk.0.layer_output_scale.weight"), 0u);
}

// Every cut of the E2B keeps the preset's share of shared layers within all but the first 5, so every
// shared layer has an earlier own layer of its kind, and both kinds keep an own layer; the first 10
// layers keep their sparse gates. --layers 6 shares 1, 8 shares 2 (one of each kind), 12 shares 4.
TEST(Gemma3nPresetTest, CutsKeepASourceForEverySharedLayer) {
  for (int n = 1; n <= 40; ++n) {
    auto r = planned_model("", "gemma3n-e2b", DType::kF32, n);
    ASSERT_TRUE(r.ok()) << n << ": " << r.status().ToString();
    const ModelSpec& s = r->spec;
    const int n_own = n - s.n_shared_kv_layers;
    for (int l = n_own; l < n; ++l) {
      bool source = false;
      for (int k = 0; k < n_own; ++k) source = source || gemma4_layer_slides(s, k) == gemma4_layer_slides(s, l);
      EXPECT_TRUE(source) << "cut " << n << ", layer " << l;
    }
    EXPECT_EQ(s.n_sparse_layers, std::min(n, 10)) << n;
    EXPECT_FALSE(gemma4_layer_slides(s, n - 1)) << n;  // the last layer is full
  }
  const std::pair<int, int> shared[] = {{6, 1}, {8, 2}, {12, 4}, {30, 10}, {5, 0}};
  for (const auto& [n, n_shared] : shared) {
    EXPECT_EQ(planned_model("", "gemma3n-e2b", DType::kF32, n)->spec.n_shared_kv_layers, n_shared) << n;
  }
}

// Another preset as gemma3n takes the E2B's proportions (qwen3-0.6b: per-layer inputs of 128, laurel
// rank 32, 9 of 28 layers shared, a 512-key window; small: 32 and 8, none of its 4 shared, a window of
// a quarter of its 1024 positions); Gemma 3n's presets as another arch drop AltUp, laurel and
// per-layer inputs (gemma4 keeps the last two kinds of parts). Specs that break its rules are refused.
TEST(Gemma3nPresetTest, OtherPresetsAndArchsAndSpecChecks) {
  auto qwen = model_preset("gemma3n", "qwen3-0.6b");
  ASSERT_TRUE(qwen.ok()) << qwen.status().ToString();
  EXPECT_EQ(qwen->n_embd_per_layer, 128);
  EXPECT_EQ(qwen->laurel_rank, 32);
  EXPECT_EQ(qwen->n_shared_kv_layers, 9);
  EXPECT_EQ(qwen->gemma4_period, 5);
  EXPECT_EQ(qwen->sliding_window, 512);
  auto small = planned_model("gemma3n", "small", DType::kQ8_0);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  EXPECT_EQ(small->spec.n_embd_per_layer, 32);
  EXPECT_EQ(small->spec.laurel_rank, 8);
  EXPECT_EQ(small->spec.n_shared_kv_layers, 0);
  EXPECT_EQ(small->spec.sliding_window, 256);
  EXPECT_EQ(planned_tensors_by_name(small->plan)["blk.3.laurel_r.weight"].dims, (Dims{8, 256}));
  EXPECT_EQ(model_preset("gemma3n", "moe-tiny").status().code(), Code::kInvalidArgument);
  for (const char* arch : {"gemma3", "gemma4"}) {
    auto other = planned_model(arch, "gemma3n-e2b", DType::kF32, 6);
    ASSERT_TRUE(other.ok()) << other.status().ToString();
    auto t = planned_tensors_by_name(other->plan);
    EXPECT_EQ(t.count("blk.0.laurel_l.weight") + t.count("altup_proj.weight"), 0u) << arch;
    EXPECT_EQ(t.count("blk.0.inp_gate.weight"), std::string(arch) == "gemma4" ? 1u : 0u) << arch;
  }
  ModelSpec s = *model_preset("", "gemma3n-e2b");
  s.laurel_rank = 0;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("laurel rank > 0"), std::string::npos);
  s = *model_preset("", "gemma3n-e2b");
  s.n_shared_kv_layers = 26;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("must be 0..25"), std::string::npos);
  s = *model_preset("", "gemma3-1b");
  s.laurel_rank = 64;
  EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("go with arch gemma3n"), std::string::npos);
}

class Gemma3nGeneratorTest : public testing::GeneratorTest {};

// The keys llama.cpp's converter writes (small as gemma3n, 12 layers: layers 4, 9 and the last full,
// the last 4 sharing K/V, the first 10 sparse at the normal's 95th percentile, the rest minus
// infinity), the router drawn to outputs of about one unit, and strata quantize giving the F32 file
// the types mkmodel plans in Q4_K_M (the AltUp and laurel tensors and per_layer_model_proj F32).
TEST_F(Gemma3nGeneratorTest, WritesTheConvertersKeysAndQuantizesAsPlanned) {
  auto o = options("gemma3n", "small", DType::kF32, "g3n");
  o.n_layers = 12;
  auto f = generate(o);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string a = "gemma3n.";
  EXPECT_EQ(f->get_uint(a + "altup.num_inputs"), 4u);
  EXPECT_EQ(f->get_uint(a + "altup.active_idx"), 0u);
  EXPECT_EQ(f->get_uint(a + "embedding_length_per_layer_input"), 32u);
  EXPECT_EQ(f->get_uint(a + "attention.shared_kv_layers"), 4u);
  EXPECT_EQ(f->get_uint(a + "attention.sliding_window"), 256u);
  EXPECT_FLOAT_EQ(f->get_float(a + "rope.freq_base_swa").value_or(0), 10000.0f);
  EXPECT_FLOAT_EQ(f->get_float(a + "final_logit_softcapping").value_or(0), 30.0f);
  const GgufValue* pattern = f->find(a + "attention.sliding_window_pattern");
  const GgufValue* sparsity = f->find(a + "activation_sparsity_scale");
  ASSERT_TRUE(pattern != nullptr && sparsity != nullptr);
  ASSERT_EQ(pattern->array_size(), 12u);
  ASSERT_EQ(sparsity->array_size(), 12u);
  for (size_t l = 0; l < 12; ++l) {
    EXPECT_EQ(pattern->uint_at(l), l == 4 || l == 9 || l == 11 ? 0u : 1u) << l;
    const double expected = l < 10 ? 1.6448533535003662f : -std::numeric_limits<double>::infinity();
    EXPECT_EQ(sparsity->float_at(l).value_or(0), expected) << l;
  }
  EXPECT_EQ(f->find_tensor("output.weight"), nullptr);
  const GgufTensor* router = f->find_tensor("blk.0.altup_router.weight");
  ASSERT_NE(router, nullptr);
  EXPECT_EQ(router->type, DType::kF32);
  // Uniform with std sqrt(256) = 16: |w| below 16 sqrt(3), some past a matrix's whole range.
  const auto* w = reinterpret_cast<const float*>(router->data);
  float largest = 0.0f;
  for (int i = 0; i < 256 * 4; ++i) largest = std::max(largest, std::fabs(w[i]));
  EXPECT_GT(largest, 16.0f);
  EXPECT_LE(largest, 16.0f * std::sqrt(3.0f));

  ModelSpec spec = *model_preset("gemma3n", "small");
  set_layer_count(&spec, 12);
  auto t = quantized_as_planned(spec, "q4_k_m", DType::kQ4_K, "g3n-q");
  EXPECT_EQ(t["blk.0.altup_router.weight"].type, DType::kF32);
  EXPECT_EQ(t["per_layer_model_proj.weight"].type, DType::kF32);
  EXPECT_EQ(t["blk.0.ffn_up.weight"].type, DType::kQ4_K);
}

}  // namespace
}  // namespace strata
