// Files `strata mkmodel` writes for falcon-h1 (Falcon-H1: a Mamba-2 mixer beside attention in every
// layer, the bare ffn_norm), exaone (EXAONE 3.5, with its llama3 rope_freqs) and arcee (AFM, with its
// YaRN over its own original context) load with Model::Load with the hparams the generator meant, and in
// F32 their logits stay with the float64 reference forward's; Falcon-H1 quantized gives the same bits
// whole or in chunks. Beside mkmodel_load_test.cc, in its test binary.
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

constexpr int kFalconPrompt = 24;

class MkmodelFalconLoadTest : public testing::MkmodelFileTest {
 protected:
  MkmodelFalconLoadTest() { seed_ = 17; }
};

// The preset's spec as arch; narrow: 2 layers of a few MiB (narrowed_preset), the preset's rope kept.
ModelSpec falcon_kin_spec(const std::string& arch, const std::string& preset, bool narrow) {
  if (narrow) return narrowed_preset(arch, preset, 2);
  auto s = model_preset(arch, preset);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : ModelSpec{};
}

// The F32 file at path against the float64 reference over kFalconPrompt positions: float rounding apart
// (about 1e-6 here), the same logits.
void expect_falcon_kin_close_to_reference(const std::string& path) {
  const testing::LogitErrors e = testing::fixed_prompt_reference_errors(path, kFalconPrompt);
  EXPECT_LT(e.rms_rel, 1e-4);
  EXPECT_LT(e.max_rel, 1e-3);
}

// small as falcon-h1 (4 layers, Mamba-2 of 8 heads of 64 beside 8 query heads over 4 K/V heads): every
// layer both recurrent and attending, the bare ffn_norm read, NeoX rope; close to the reference in F32;
// in Q4_K the same bits whole and in chunks (the Mamba-2 state and the cache carry each chunk's end).
TEST_F(MkmodelFalconLoadTest, FalconH1LoadsWithMamba2BesideAttention) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(falcon_kin_spec("falcon-h1", "small", false), type, "falcon-h1");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "falcon-h1");
    EXPECT_TRUE(hp.ssm_mamba2 && hp.ssm_parallel_attention && hp.rope_neox && hp.pre_norms);
    EXPECT_EQ(hp.ffn_norm_suffix, "");
    EXPECT_EQ(hp.n_layer, 4);
    EXPECT_EQ(hp.n_rot, 32);  // no rope.dimension_count: whole heads
    EXPECT_EQ(hp.ssm_n_v_heads, 8);
    EXPECT_EQ(hp.attn_kv_index.size(), 4u);
    EXPECT_EQ(hp.recurrent_index.size(), 4u);
    if (type == DType::kF32) {
      expect_falcon_kin_close_to_reference(*path);
      continue;
    }
    const std::vector<float> whole = testing::fixed_prompt_logits(**m, {kFalconPrompt});
    const std::vector<float> chunked = testing::fixed_prompt_logits(**m, {7, 1, 16});
    EXPECT_EQ(std::memcmp(whole.data(), chunked.data(), sizeof(float) * whole.size()), 0);
  }
}

// EXAONE 3.5 narrowed: llama's layers with NeoX rope and its rope_freqs (1 to 8); AFM-4.5B narrowed: the
// gate-less squared-ReLU feed-forward, adjacent-pair rope, YaRN 20 over 4096. Both close to the reference.
TEST_F(MkmodelFalconLoadTest, ExaoneAndArceeLoadWithTheirRope) {
  auto exaone = write(falcon_kin_spec("", "exaone-3.5-7.8b", true), DType::kF32, "exaone");
  ASSERT_TRUE(exaone.ok()) << exaone.status().ToString();
  auto em = Model::Load(*exaone);
  ASSERT_TRUE(em.ok()) << em.status().ToString();
  EXPECT_EQ((*em)->hparams().arch, "exaone");
  EXPECT_TRUE((*em)->hparams().rope_neox);
  EXPECT_NE((*em)->gguf().find_tensor("rope_freqs.weight"), nullptr);
  expect_falcon_kin_close_to_reference(*exaone);

  auto arcee = write(falcon_kin_spec("", "afm-4.5b", true), DType::kF32, "arcee");
  ASSERT_TRUE(arcee.ok()) << arcee.status().ToString();
  auto am = Model::Load(*arcee);
  ASSERT_TRUE(am.ok()) << am.status().ToString();
  const Hparams& hp = (*am)->hparams();
  EXPECT_EQ(hp.arch, "arcee");
  EXPECT_TRUE(hp.ffn_relu_sq);
  EXPECT_FALSE(hp.rope_neox);
  EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 20.0f);
  EXPECT_EQ(hp.rope_yarn_orig_ctx, 4096);
  expect_falcon_kin_close_to_reference(*arcee);
}

}  // namespace
}  // namespace strata
