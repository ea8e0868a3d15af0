// apertus (Swiss AI Apertus) and hunyuan-dense (Tencent Hunyuan dense) presets, plans and files: Apertus 8B's
// and 70B's shapes and sizes, llama's tensors with per-head QK-norm (Apertus's feed-forward without ffn_gate,
// Hunyuan's with it), both archs on other presets, the QK-norm they require, and Apertus's xielu.* keys (no
// arch prefix, a value per layer) in the files written.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "modelgen/generator_test_fixture.h"
#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"
#include "modelgen/tensor_plan.h"

namespace strata {
namespace {

using Dims = std::vector<uint64_t>;

// Apertus 8B: 8,053,338,112 parameters (its card's 8,053,338,176 adds 32 layers' two xIELU alphas, metadata
// here). By hand: 32 layers of 2 x 4096 x 4096 + 2 x 4096 x 1024 (attention), 2 x 4096 x 21504 (ffn_up and
// ffn_down, no gate), two norms of 4096 and two of 128 (218,112,256 a layer); untied embeddings
// 2 x 4096 x 131072 and the output norm of 4096.
TEST(ApertusHunyuanPresetTest, Apertus8bMatchesThePublishedShape) {
  auto r = planned_model("", "apertus-8b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "apertus");
  EXPECT_TRUE(s.qk_norm);
  EXPECT_FALSE(s.tied_embeddings || s.qkv_bias || s.post_norms || s.olmo2 || s.exaone4);
  EXPECT_EQ(s.n_vocab, 131072);
  EXPECT_EQ(s.n_ctx, 65536);
  EXPECT_EQ(s.n_embd, 4096);
  EXPECT_EQ(s.n_layer, 32);
  EXPECT_EQ(s.n_head, 32);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 21504);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 12000000.0f);
  EXPECT_FLOAT_EQ(s.rms_eps, 1e-5f);
  EXPECT_EQ(s.rope_yarn_factor, 1.0f);
  EXPECT_EQ(r->n_params, 8'053'338'112u);
  EXPECT_EQ(r->n_params, 32ull * 218'112'256u + 2ull * 4096u * 131072u + 4096u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t.size(), 3u + 32u * 10u);
  EXPECT_EQ(t.count("blk.0.ffn_gate.weight"), 0u);
  EXPECT_EQ(t["blk.31.ffn_up.weight"].dims, (Dims{4096, 21504}));
  EXPECT_EQ(t["blk.31.ffn_down.weight"].dims, (Dims{21504, 4096}));
  EXPECT_EQ(t["blk.0.attn_q_norm.weight"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.attn_k_norm.weight"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.attn_k.weight"].dims, (Dims{4096, 1024}));
  EXPECT_EQ(t["output.weight"].dims, (Dims{4096, 131072}));
  EXPECT_EQ(t.count("rope_freqs.weight"), 0u);
}

// Apertus 70B: 70,599,864,320 parameters. By hand: 80 layers of 2 x 8192 x 8192 + 2 x 8192 x 1024, 2 x 8192 x
// 43008, two norms of 8192 and two of 128 (855,654,656 a layer); untied embeddings 2 x 8192 x 131072 and the
// output norm of 8192.
TEST(ApertusHunyuanPresetTest, Apertus70bMatchesThePublishedShape) {
  auto r = planned_model("", "apertus-70b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const ModelSpec& s = r->spec;
  EXPECT_EQ(s.arch, "apertus");
  EXPECT_EQ(s.n_embd, 8192);
  EXPECT_EQ(s.n_layer, 80);
  EXPECT_EQ(s.n_head, 64);
  EXPECT_EQ(s.n_head_kv, 8);
  EXPECT_EQ(s.head_dim, 128);
  EXPECT_EQ(s.n_ff, 43008);
  EXPECT_FLOAT_EQ(s.rope_freq_base, 12000000.0f);
  EXPECT_EQ(r->n_params, 70'599'864'320u);
  EXPECT_EQ(r->n_params, 80ull * 855'654'656u + 2ull * 8192u * 131072u + 8192u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t.count("blk.79.ffn_gate.weight"), 0u);
  EXPECT_EQ(t["blk.79.ffn_up.weight"].dims, (Dims{8192, 43008}));
  EXPECT_EQ(t["blk.79.attn_q.weight"].dims, (Dims{8192, 8192}));
}

// hunyuan-dense on llama3-8b: Llama 3 8B's 8,030,261,248 parameters plus per-head q and k norms (32 layers x
// 2 x 128 = 8,192), a SwiGLU (ffn_gate kept), the preset's rope base and untied output; on small the same
// layout. Both archs are refused on a MoE preset; apertus on another dense preset keeps its tying and rope
// base, without the YaRN of AFM-4.5B.
TEST(ApertusHunyuanPresetTest, BothArchsRunOnOtherDensePresets) {
  auto r = planned_model("hunyuan-dense", "llama3-8b", DType::kBF16);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->spec.arch, "hunyuan-dense");
  EXPECT_TRUE(r->spec.qk_norm);
  EXPECT_FALSE(r->spec.qkv_bias || r->spec.post_norms || r->spec.tied_embeddings);
  EXPECT_FLOAT_EQ(r->spec.rope_freq_base, 500000.0f);
  EXPECT_EQ(r->n_params, 8'030'261'248u + 32u * 2u * 128u);
  auto t = planned_tensors_by_name(r->plan);
  EXPECT_EQ(t.size(), 3u + 32u * 11u);
  EXPECT_EQ(t["blk.0.ffn_gate.weight"].dims, (Dims{4096, 14336}));
  EXPECT_EQ(t["blk.0.attn_q_norm.weight"].dims, (Dims{128}));
  EXPECT_EQ(t["blk.0.attn_k_norm.weight"].dims, (Dims{128}));

  auto small = planned_tensors_of("hunyuan-dense", "small", DType::kQ8_0);
  EXPECT_EQ(small["blk.3.ffn_gate.weight"].dims, (Dims{256, 768}));
  EXPECT_EQ(small["blk.3.attn_k_norm.weight"].dims, (Dims{32}));
  auto apertus_small = planned_tensors_of("apertus", "small", DType::kQ8_0);
  EXPECT_EQ(apertus_small.count("blk.3.ffn_gate.weight"), 0u);
  EXPECT_EQ(apertus_small["blk.3.ffn_up.weight"].dims, (Dims{256, 768}));
  EXPECT_EQ(apertus_small["blk.3.attn_q_norm.weight"].dims, (Dims{32}));

  auto qwen3 = model_preset("apertus", "qwen3-0.6b");
  ASSERT_TRUE(qwen3.ok()) << qwen3.status().ToString();
  EXPECT_TRUE(qwen3->tied_embeddings && qwen3->qk_norm);
  auto afm = model_preset("apertus", "afm-4.5b");
  ASSERT_TRUE(afm.ok()) << afm.status().ToString();
  EXPECT_EQ(afm->rope_yarn_factor, 1.0f);
  EXPECT_EQ(afm->rope_yarn_orig_ctx, 0);
  EXPECT_EQ(model_preset("apertus", "moe-tiny").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(model_preset("hunyuan-dense", "moe-tiny").status().code(), Code::kInvalidArgument);
  auto as_llama = planned_tensors_of("llama", "apertus-8b", DType::kQ8_0, 1);
  EXPECT_EQ(as_llama.count("blk.0.ffn_gate.weight"), 1u);
  EXPECT_EQ(as_llama.count("blk.0.attn_q_norm.weight"), 0u);
}

// Both archs' attention has QK-norm (llama.cpp and Strata require it): a spec without it is refused.
TEST(ApertusHunyuanPresetTest, SpecWithoutQkNormIsRefused) {
  for (const char* arch : {"apertus", "hunyuan-dense"}) {
    ModelSpec s = *model_preset(arch, "small");
    s.qk_norm = false;
    EXPECT_NE(plan_tensors(s, DType::kF32).status().message().find("qk_norm must be set"), std::string::npos) << arch;
  }
}

class ApertusHunyuanGeneratorTest : public testing::GeneratorTest {};

// The raw (unconstrained) xIELU value of a layer as the generator writes it: softplus(raw) is the alpha.
float softplus_of(double raw) { return static_cast<float>(std::log1p(std::exp(raw))); }

// small as apertus (4 layers): xielu.alpha_p / alpha_n / beta / eps, no arch prefix, one float per layer;
// the alphas after softplus around xIELU's initial 0.8 and differing by layer, beta 0.5, eps -1e-6; the head
// widths written (QK-norm). small as hunyuan-dense has no xielu key.
TEST_F(ApertusHunyuanGeneratorTest, ApertusWritesItsXieluValuesPerLayer) {
  auto f = generate(options("apertus", "small", DType::kQ8_0, "apertus"));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "apertus");
  EXPECT_EQ(f->get_uint("apertus.attention.key_length"), 32u);
  EXPECT_EQ(f->find("apertus.xielu.alpha_p"), nullptr);
  for (const char* key : {"xielu.alpha_n", "xielu.alpha_p", "xielu.beta", "xielu.eps"}) {
    const GgufValue* a = f->get_array(key);
    ASSERT_NE(a, nullptr) << key;
    EXPECT_EQ(a->array_size(), 4u) << key;
  }
  const GgufValue* p = f->get_array("xielu.alpha_p");
  const GgufValue* n = f->get_array("xielu.alpha_n");
  for (size_t l = 0; l < 4; ++l) {
    const double step = 0.1 * (static_cast<double>(l % 5) - 2.0);
    EXPECT_NEAR(softplus_of(*p->float_at(l)), softplus_of(std::log(std::expm1(0.8)) + step), 1e-5) << l;
    EXPECT_NEAR(0.5 + softplus_of(*n->float_at(l)), 0.5 + softplus_of(std::log(std::expm1(0.3)) - step), 1e-5) << l;
    EXPECT_FLOAT_EQ(static_cast<float>(*f->get_array("xielu.beta")->float_at(l)), 0.5f);
    EXPECT_FLOAT_EQ(static_cast<float>(*f->get_array("xielu.eps")->float_at(l)), -1e-6f);
  }
  EXPECT_NE(*p->float_at(0), *p->float_at(1));
  EXPECT_EQ(f->find_tensor("blk.0.ffn_gate.weight"), nullptr);

  auto h = generate(options("hunyuan-dense", "small", DType::kQ8_0, "hunyuan"));
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->get_string("general.architecture"), "hunyuan-dense");
  EXPECT_EQ(h->find("xielu.alpha_p"), nullptr);
  EXPECT_NE(h->find_tensor("blk.3.attn_q_norm.weight"), nullptr);
  EXPECT_NE(h->find_tensor("blk.3.ffn_gate.weight"), nullptr);
}

}  // namespace
}  // namespace strata
