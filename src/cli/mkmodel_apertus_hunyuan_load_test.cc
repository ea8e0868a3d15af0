// Files `strata mkmodel` writes for apertus (Swiss AI Apertus: QK-norm, an xIELU feed-forward without a
// gate) and hunyuan-dense (Tencent Hunyuan dense: QK-norm after rope over a SwiGLU) load with Model::Load
// with the hparams the generator meant, and their logits stay with the float64 reference forward's, in F32
// and in Q8_0. Beside mkmodel_load_test.cc, in its test binary.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli/mkmodel_file_test_util.h"
#include "model/model.h"
#include "modelgen/model_generator.h"
#include "modelgen/narrow_spec_test_util.h"

namespace strata {
namespace {

constexpr int kLlamaKinPrompt = 24;

class MkmodelApertusHunyuanLoadTest : public testing::MkmodelFileTest {
 protected:
  MkmodelApertusHunyuanLoadTest() { seed_ = 19; }
};

// The file at path against the float64 reference over kLlamaKinPrompt positions. F32: float rounding alone
// (about 1e-6 here); Q8_0: its activations' 8-bit rounding, the bounds of the other Q8_0 load tests.
void expect_llama_kin_close_to_reference(const std::string& path, DType type) {
  const testing::LogitErrors e = testing::fixed_prompt_reference_errors(path, kLlamaKinPrompt);
  EXPECT_LT(e.rms_rel, type == DType::kF32 ? 1e-4 : 0.04);
  EXPECT_LT(e.max_rel, type == DType::kF32 ? 1e-3 : 0.20);
}

// Apertus 8B cut to 2 narrow layers (narrowed_preset): the xIELU feed-forward with the generator's values
// per layer, constrained as llama.cpp's ggml_xielu (alpha_p = softplus(raw), alpha_n = beta + softplus(raw));
// QK-norm, NeoX rope on base 12000000, no gate read; close to the reference in F32 and Q8_0.
TEST_F(MkmodelApertusHunyuanLoadTest, ApertusLoadsWithItsXieluValuesPerLayer) {
  for (DType type : {DType::kF32, DType::kQ8_0}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(narrowed_preset("", "apertus-8b", 2), type, "apertus");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "apertus");
    EXPECT_TRUE(hp.ffn_xielu && hp.qk_norm && hp.rope_neox);
    EXPECT_FALSE(hp.qk_norm_after_rope);
    EXPECT_EQ(hp.n_layer, 2);
    EXPECT_FLOAT_EQ(hp.rope_freq_base, 12000000.0f);
    ASSERT_EQ(hp.xielu_alpha_p.size(), 2u);
    ASSERT_EQ(hp.xielu_alpha_n.size(), 2u);
    for (int l = 0; l < 2; ++l) {
      const double step = 0.1 * (l - 2);  // layer l's offset of the raw values (l % 5 - 2)
      EXPECT_NEAR(hp.xielu_alpha_p[l], std::log1p(std::exp(std::log(std::expm1(0.8)) + step)), 1e-5) << l;
      EXPECT_NEAR(hp.xielu_alpha_n[l], 0.5 + std::log1p(std::exp(std::log(std::expm1(0.3)) - step)), 1e-5) << l;
      EXPECT_FLOAT_EQ(hp.xielu_beta[l], 0.5f);
      EXPECT_FLOAT_EQ(hp.xielu_eps[l], -1e-6f);
    }
    EXPECT_NE(hp.xielu_alpha_p[0], hp.xielu_alpha_p[1]);
    EXPECT_EQ((*m)->gguf().find_tensor("blk.0.ffn_gate.weight"), nullptr);
    expect_llama_kin_close_to_reference(*path, type);
  }
}

// llama3-8b as hunyuan-dense, cut to 2 narrow layers: QK-norm after NeoX rope (Hunyuan's order), a SwiGLU
// feed-forward; close to the reference in F32 and Q8_0.
TEST_F(MkmodelApertusHunyuanLoadTest, HunyuanDenseLoadsWithQkNormAfterRope) {
  for (DType type : {DType::kF32, DType::kQ8_0}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(narrowed_preset("hunyuan-dense", "llama3-8b", 2), type, "hunyuan-dense");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "hunyuan-dense");
    EXPECT_TRUE(hp.qk_norm && hp.qk_norm_after_rope && hp.rope_neox);
    EXPECT_FALSE(hp.ffn_xielu);
    EXPECT_EQ(hp.n_layer, 2);
    EXPECT_EQ(hp.n_expert, 0);
    EXPECT_NE((*m)->gguf().find_tensor("blk.1.ffn_gate.weight"), nullptr);
    expect_llama_kin_close_to_reference(*path, type);
  }
}

}  // namespace
}  // namespace strata
