// Files `strata mkmodel` writes for gemma3n (Google Gemma 3n) load with Model::Load with the hparams the
// generator meant (AltUp's 4 streams, the laurel rank, which layers slide, which share K/V and whose,
// which have sparse gates), and their logits over a prompt longer than the window stay with the float64
// reference forward's, in F32 and in Q8_0. Beside mkmodel_load_test.cc, in its test binary.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cli/mkmodel_file_test_util.h"
#include "model/model.h"
#include "modelgen/model_generator.h"
#include "modelgen/narrow_spec_test_util.h"

namespace strata {
namespace {

constexpr int kGemma3nPrompt = 24;  // past the 8-key window

class MkmodelGemma3nLoadTest : public testing::MkmodelFileTest {};

// F32: float rounding alone (about 1e-6 here); Q8_0: its activations' 8-bit rounding, the bounds of
// the other quantised mkmodel files (src/model/quant_types_test.cc's).
void expect_gemma3n_close_to_reference(const testing::LogitErrors& e, DType type) {
  EXPECT_LT(e.rms_rel, type == DType::kF32 ? 1e-4 : 0.04);
  EXPECT_LT(e.max_rel, type == DType::kF32 ? 1e-3 : 0.20);
}

// --preset gemma3n-e2b --layers n narrowed to 256 wide, with per-layer inputs of 64 and an 8-key window.
ModelSpec narrowed_gemma3n_e2b(int n_layers) {
  ModelSpec spec = narrowed_preset("", "gemma3n-e2b", n_layers);
  spec.n_embd_per_layer = 64;
  spec.sliding_window = 8;
  return spec;
}

// The E2B cut to 12 layers, in F32: layers 4, 9 and 11 full; the last 4 (the E2B's 10 of 30) read the
// K/V of layer 7 (sliding) or 4 (full); the first 10 have sparse gates, 10 and 11 dense; laurel rank 64.
// Close to the reference, and the same bits whole or in two chunks (the shared layers reading the
// cache the chunk before wrote).
TEST_F(MkmodelGemma3nLoadTest, E2bCutLoadsWithItsPartsAndStaysWithTheReference) {
  auto path = write(narrowed_gemma3n_e2b(12), DType::kF32, "gemma3n-e2b-12");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto m = Model::Load(*path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "gemma3n");
  EXPECT_EQ(hp.n_layer, 12);
  EXPECT_EQ(hp.n_altup, 4);
  EXPECT_EQ(hp.laurel_rank, 64);
  EXPECT_EQ(hp.n_embd_per_layer, 64);
  EXPECT_EQ(hp.sliding_window, 8);
  for (int l = 0; l < 12; ++l) EXPECT_EQ(hp.layer_slides(l), l != 4 && l != 9 && l != 11) << l;
  EXPECT_EQ(hp.n_layer_kv, 8);
  ASSERT_EQ(hp.kv_source.size(), 12u);
  EXPECT_EQ(std::vector<int>(hp.kv_source.begin() + 8, hp.kv_source.end()), (std::vector<int>{7, 4, 7, 4}));
  EXPECT_TRUE(hp.ffn_sparse(0) && hp.ffn_sparse(9));
  EXPECT_FALSE(hp.ffn_sparse(10) || hp.ffn_sparse(11));
  EXPECT_TRUE(hp.tied_embeddings && hp.v_norm && hp.qk_norm && hp.post_norms);
  EXPECT_FLOAT_EQ(hp.attn_scale, 1.0f);
  EXPECT_FLOAT_EQ(hp.final_softcap, 30.0f);
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, 10000.0f);
  expect_gemma3n_close_to_reference(testing::fixed_prompt_reference_errors(*path, kGemma3nPrompt), DType::kF32);
  const std::vector<float> whole = testing::fixed_prompt_logits(**m, {kGemma3nPrompt});
  const std::vector<float> chunked = testing::fixed_prompt_logits(**m, {10, kGemma3nPrompt - 10});
  ASSERT_EQ(whole.size(), chunked.size());
  EXPECT_EQ(std::memcmp(whole.data(), chunked.data(), whole.size() * sizeof(float)), 0);
}

// --layers 6 in F32 and Q8_0: the last layer (full) reads layer 4's K/V, every layer sparse. Six
// layers, as quantisation errors grow with depth and through the sparse gates (which keep a margin over
// a cutoff): this cut's Q8_0 logits are 2.6% (RMS) off, as Gemma 4 E2B's six layers are 3.2%; the
// twelve-layer cut's are 6.9%.
TEST_F(MkmodelGemma3nLoadTest, E2bSixLayerCutStaysWithTheReferenceQuantised) {
  for (DType type : {DType::kF32, DType::kQ8_0}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(narrowed_gemma3n_e2b(6), type, "gemma3n-e2b-6");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.n_layer_kv, 5);
    ASSERT_EQ(hp.kv_source.size(), 6u);
    EXPECT_EQ(hp.kv_source[5], 4);
    EXPECT_TRUE(hp.ffn_sparse(5) && !hp.layer_slides(4) && !hp.layer_slides(5) && hp.layer_slides(3));
    expect_gemma3n_close_to_reference(testing::fixed_prompt_reference_errors(*path, kGemma3nPrompt), type);
  }
}

// Another preset as gemma3n (small, cut to 6 layers): the E2B's proportions (per-layer inputs of 32, a
// laurel rank of 8, the last of its 6 layers sharing layer 4's K/V), a window of a quarter of its
// 1024 positions; close to the reference in F32.
TEST_F(MkmodelGemma3nLoadTest, AnotherPresetAsGemma3nStaysWithTheReference) {
  auto s = model_preset("gemma3n", "small");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  set_layer_count(&*s, 6);
  auto path = write(*s, DType::kF32, "gemma3n-small");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto m = Model::Load(*path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.laurel_rank, 8);
  EXPECT_EQ(hp.n_embd_per_layer, 32);
  EXPECT_EQ(hp.sliding_window, 256);
  EXPECT_EQ(hp.n_layer_kv, 5);
  ASSERT_EQ(hp.kv_source.size(), 6u);
  EXPECT_EQ(hp.kv_source[5], 4);
  EXPECT_TRUE(hp.ffn_sparse(5));
  expect_gemma3n_close_to_reference(testing::fixed_prompt_reference_errors(*path, kGemma3nPrompt), DType::kF32);
}

}  // namespace
}  // namespace strata
