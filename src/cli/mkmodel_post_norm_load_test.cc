// Files `strata mkmodel` writes for olmo2 (OLMo 2, and OLMo 3's window and YaRN), exaone4 (EXAONE 4.0,
// and the 32B's sliding layers and rope_freqs) and olmoe (OLMoE) load with Model::Load with the hparams
// the generator meant, and their logits over a prompt longer than the window stay with the float64
// reference forward's. Beside mkmodel_load_test.cc, in its test binary.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/mkmodel_file_test_util.h"
#include "model/model.h"
#include "modelgen/model_generator.h"

namespace strata {
namespace {

constexpr int kPostNormPrompt = 24;  // past the tests' 8-key windows

class MkmodelPostNormLoadTest : public testing::MkmodelFileTest {};

// The preset's spec as arch, cut to n_layers (0: the preset's).
ModelSpec post_norm_spec(const std::string& arch, const std::string& preset, int n_layers = 0) {
  auto s = model_preset(arch, preset);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  ModelSpec spec = s.ok() ? *s : ModelSpec{};
  if (n_layers > 0) set_layer_count(&spec, n_layers);
  return spec;
}

// F32 weights: what separates the model from the reference is float rounding (about 1e-6 here).
void expect_close_to_reference(const testing::LogitErrors& e) {
  EXPECT_LT(e.rms_rel, 1e-4);
  EXPECT_LT(e.max_rel, 1e-3);
}

// small as olmo2 (OLMo 2): no pre-norms, post-norms, whole-row QK-norm, NeoX rope, no window; close to
// the reference in F32, loading in Q4_K. tiny with OLMo 3's parts (an 8-key window, YaRN 4) over 8
// layers: every 4th layer full, the sliding ones on the global base unscaled, the full ones with YaRN.
TEST_F(MkmodelPostNormLoadTest, Olmo2AndOlmo3LoadWithTheirLayout) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(post_norm_spec("olmo2", "small"), type, "olmo2");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "olmo2");
    EXPECT_TRUE(hp.post_norms && hp.qk_norm && hp.qk_norm_whole_row && hp.rope_neox);
    EXPECT_FALSE(hp.pre_norms || hp.tied_embeddings);
    EXPECT_EQ(hp.sliding_window, 0);
    if (type == DType::kF32) expect_close_to_reference(testing::fixed_prompt_reference_errors(*path, kPostNormPrompt));
  }
  ModelSpec olmo3 = post_norm_spec("olmo2", "tiny", 8);
  olmo3.sliding_window = 8;
  olmo3.rope_yarn_factor = 4.0f;
  auto path = write(olmo3, DType::kF32, "olmo3");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto m = Model::Load(*path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.sliding_window, 8);
  EXPECT_EQ(hp.sliding_layers.size(), 8u);  // the converter's flag per layer
  EXPECT_TRUE(hp.layer_slides(0) && hp.layer_slides(2) && !hp.layer_slides(3) && !hp.layer_slides(7));
  EXPECT_FLOAT_EQ(hp.rope_freq_base_swa, hp.rope_freq_base);
  EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 4.0f);
  EXPECT_EQ(hp.rope_yarn_orig_ctx, 128);
  expect_close_to_reference(testing::fixed_prompt_reference_errors(*path, kPostNormPrompt));
}

// tiny as exaone4: post-norms, QK-norm per head, every layer rotating over all keys; tied as the 1.2B.
// With the 32B's parts over its 64 layers (an 8-key window, rope_freqs of factor 16 over 128
// positions): three of every four layers slide, the fourth has no rope; close to the reference.
TEST_F(MkmodelPostNormLoadTest, Exaone4LoadsWithItsLayoutAndThe32bsSlidingLayers) {
  ModelSpec small = post_norm_spec("exaone4", "tiny");
  small.tied_embeddings = true;
  auto path = write(small, DType::kQ8_0, "exaone4");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto m = Model::Load(*path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "exaone4");
  EXPECT_TRUE(hp.post_norms && hp.qk_norm && hp.rope_neox && hp.tied_embeddings);
  EXPECT_FALSE(hp.pre_norms || hp.qk_norm_whole_row);
  EXPECT_EQ(hp.sliding_window, 0);
  EXPECT_TRUE(hp.layer_rotates(1));

  ModelSpec big = post_norm_spec("exaone4", "tiny", 64);
  big.sliding_window = 8;
  big.rope_freqs_factor = 16.0f;
  big.rope_freqs_orig_ctx = 128;
  auto big_path = write(big, DType::kF32, "exaone4-64");
  ASSERT_TRUE(big_path.ok()) << big_path.status().ToString();
  auto bm = Model::Load(*big_path);
  ASSERT_TRUE(bm.ok()) << bm.status().ToString();
  const Hparams& bh = (*bm)->hparams();
  EXPECT_EQ(bh.n_layer, 64);
  EXPECT_EQ(bh.sliding_window, 8);
  EXPECT_TRUE(bh.layer_slides(0) && bh.layer_rotates(0) && bh.layer_slides(62));
  EXPECT_TRUE(!bh.layer_slides(3) && !bh.layer_rotates(3) && !bh.layer_rotates(63));
  EXPECT_NE((*bm)->gguf().find_tensor("rope_freqs.weight"), nullptr);
  expect_close_to_reference(testing::fixed_prompt_reference_errors(*big_path, kPostNormPrompt));
}

// moe-tiny as olmoe: pre-norms, whole-row QK-norm, 8 experts of 256 (feed_forward_length) in every
// layer by softmax, weights as they are, no shared expert; close to the reference in F32.
TEST_F(MkmodelPostNormLoadTest, OlmoeLoadsWithItsExpertsInEveryLayer) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(post_norm_spec("olmoe", "moe-tiny"), type, "olmoe");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "olmoe");
    EXPECT_TRUE(hp.pre_norms && hp.qk_norm && hp.qk_norm_whole_row && hp.rope_neox);
    EXPECT_FALSE(hp.post_norms || hp.expert_sigmoid || hp.expert_weights_norm);
    EXPECT_EQ(hp.n_expert, 8);
    EXPECT_EQ(hp.n_expert_used, 2);
    EXPECT_EQ(hp.n_ff_exp, 256);
    EXPECT_EQ(hp.n_ff_shexp, 0);
    EXPECT_TRUE(hp.layer_is_moe(0) && hp.layer_is_moe(1));
    if (type == DType::kF32) expect_close_to_reference(testing::fixed_prompt_reference_errors(*path, kPostNormPrompt));
  }
}

}  // namespace
}  // namespace strata
