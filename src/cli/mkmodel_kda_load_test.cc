// Files `strata mkmodel` writes for bailingmoe3 (Ling 3.0) and kimi-linear (Kimi Linear) load with
// Model::Load with the hparams the generator meant (the KDA and latent layers where the pattern puts them,
// Ling's gate per head, lower bound, groups and shared width per expert; Kimi's low-rank inputs, softplus
// gate, rope-less latent layers and routing), and their logits stay with the float64 reference forward's,
// in F32 and in Q8_0. Beside mkmodel_load_test.cc, in its test binary.
//
// Q8_0 runs a 2-layer cut (K*: a KDA layer, then a latent one) with every expert used, as the model tests
// run quantised hybrids and latent maps (model/hybrid_reference_test.cc, arch_reference_test.cc): the
// 8-bit rounding of each matmul's input flips expert choices where router logits nearly tie (2 of 8
// experts, 4 layers: measured rms_rel 0.10-0.36, max_rel up to 2.8 over seeds 3, 5, 11, 23), and each KDA
// layer passes the rounding on amplified (every expert, 4 layers: rms_rel 0.033-0.047). The cut measures
// rms_rel 0.022-0.026 and max_rel 0.09-0.14 for both archs over those seeds, within the bounds of the other
// Q8_0 load tests; a wrong tensor or key gives errors of order 100%.
#include <gtest/gtest.h>

#include <string>

#include "cli/mkmodel_file_test_util.h"
#include "model/model.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_spec.h"

namespace strata {
namespace {

// Long enough for the KDA states to carry a few dozen positions.
constexpr int kKdaPrompt = 24;

class MkmodelKdaLoadTest : public testing::MkmodelFileTest {
 protected:
  MkmodelKdaLoadTest() { seed_ = 23; }
};

// The file at path against the float64 reference over kKdaPrompt positions, with the bounds of the other
// load tests: F32 float rounding alone; Q8_0 its activations' 8-bit rounding (the top comment).
void expect_close_to_reference(const std::string& path, DType type) {
  const testing::LogitErrors e = testing::fixed_prompt_reference_errors(path, kKdaPrompt);
  EXPECT_LT(e.rms_rel, type == DType::kF32 ? 1e-4 : 0.04);
  EXPECT_LT(e.max_rel, type == DType::kF32 ? 1e-3 : 0.20);
}

// moe-tiny as bailingmoe3 with 8 experts in 4 groups of which 2 are used and two shared experts (written as
// expert_shared_feed_forward_length per expert, as ik_llama.cpp reads it).
ModelSpec ling_spec() {
  ModelSpec spec = *model_preset("bailingmoe3", "moe-tiny");
  spec.n_expert_groups = 4;
  spec.n_expert_groups_used = 2;
  spec.n_ff_shexp = 2 * spec.n_ff_exp;
  return spec;
}

// Kimi-Linear-48B-A3B cut to n_layer layers of its list and narrowed: 256 wide, 4 heads, a dense width of
// 512, 8 experts of 128 with 2 used; its KDA heads, rank and latent widths as they are.
ModelSpec kimi_spec(int n_layer) {
  ModelSpec spec = *model_preset("", "kimi-linear-48b-a3b");
  set_layer_count(&spec, n_layer);
  spec.n_vocab = 259;
  spec.n_embd = 256;
  spec.n_head = spec.n_head_kv = 4;
  spec.n_ff = 512;
  spec.n_expert = 8;
  spec.n_expert_used = 2;
  spec.n_ff_exp = spec.n_ff_shexp = 128;
  return spec;
}

// ling_spec() in F32: 4 layers KKK* (DeepSeek-V3's latent attention with its query bottleneck in layer 3,
// gated per head; KDA of 4 heads of 128 in 0-2), the groups, the shared width, the lower bound read back.
TEST_F(MkmodelKdaLoadTest, BailingMoe3LoadsWithGatedLatentLayersAndKda) {
  auto path = write(ling_spec(), DType::kF32, "bailingmoe3");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto m = Model::Load(*path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "bailingmoe3");
  EXPECT_TRUE(hp.ssm_kda && hp.is_mla() && hp.attn_head_gate && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FALSE(hp.kda_softplus_gate || hp.shexp_gated);
  EXPECT_EQ(hp.n_layer, 4);
  for (int l = 0; l < 4; ++l) EXPECT_EQ(hp.layer_is_recurrent(l), l != 3) << l;
  EXPECT_EQ(hp.ssm_head_k_dim, 128);
  EXPECT_EQ(hp.ssm_n_v_heads, 4);
  EXPECT_EQ(hp.ssm_conv_kernel, 4);
  EXPECT_EQ(hp.kda_rank, 0);
  EXPECT_FLOAT_EQ(hp.kda_gate_lower_bound, -5.0f);
  EXPECT_EQ(hp.mla_q_rank, 512);
  EXPECT_EQ(hp.n_expert_groups, 4);
  EXPECT_EQ(hp.n_expert_groups_used, 2);
  EXPECT_EQ(hp.n_ff_shexp, 512);
  EXPECT_EQ(hp.n_layer_dense_lead, 1);
  expect_close_to_reference(*path, DType::kF32);
}

// kimi_spec(4) in F32 (KKK*): its latent attention without a query bottleneck, rope or gate, split as
// llama.cpp's converter writes it; KDA of 4 heads of 128 with the decay and gate inputs through rank 128
// and Kimi's softplus gate; one dense layer, sigmoid routing renormalised, times 2.446, one shared expert.
TEST_F(MkmodelKdaLoadTest, KimiLinearCutLoadsWithItsLowRankKdaAndRopelessLatentLayer) {
  auto path = write(kimi_spec(4), DType::kF32, "kimi-linear");
  ASSERT_TRUE(path.ok()) << path.status().ToString();
  auto m = Model::Load(*path);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_EQ(hp.arch, "kimi-linear");
  EXPECT_TRUE(hp.ssm_kda && hp.kda_softplus_gate && hp.is_mla() && hp.expert_sigmoid && hp.expert_weights_norm);
  EXPECT_FALSE(hp.attn_head_gate || hp.shexp_gated);
  EXPECT_EQ(hp.n_layer, 4);
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ(hp.layer_is_recurrent(l), l != 3) << l;
    EXPECT_FALSE(hp.layer_rotates(l)) << l;
  }
  EXPECT_EQ(hp.kda_rank, 128);
  EXPECT_EQ(hp.ssm_head_v_dim, 128);
  EXPECT_EQ(hp.mla_q_rank, 0);
  EXPECT_EQ(hp.n_head_kv, 1);
  EXPECT_EQ(hp.head_dim, 512 + 64);
  EXPECT_EQ(hp.n_expert_groups, 1);
  EXPECT_EQ(hp.n_ff_shexp, 128);
  EXPECT_FLOAT_EQ(hp.expert_weights_scale, 2.446f);
  expect_close_to_reference(*path, DType::kF32);
}

// Both archs in Q8_0: a 2-layer cut (K*) with every expert used (the top comment says why), loaded with
// its layer kinds and close to the reference.
TEST_F(MkmodelKdaLoadTest, Q8CutsAgreeWithTheReference) {
  ModelSpec ling = ling_spec();
  ling.n_expert_groups_used = ling.n_expert_groups;
  ModelSpec kimi = kimi_spec(2);
  for (ModelSpec* spec : {&ling, &kimi}) {
    SCOPED_TRACE(spec->arch);
    set_layer_count(spec, 2);
    spec->n_expert_used = spec->n_expert;
    auto path = write(*spec, DType::kQ8_0, spec->arch);
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_TRUE((*m)->hparams().layer_is_recurrent(0));
    EXPECT_FALSE((*m)->hparams().layer_is_recurrent(1));
    expect_close_to_reference(*path, DType::kQ8_0);
  }
}

}  // namespace
}  // namespace strata
