// Files `strata mkmodel` writes for bitnet and bitnet-b1.58 (BitNet b1.58: llama's layers with a sub-norm
// before attn_output and before ffn_down, ternary matrices, tied embeddings) load with Model::Load with the
// hparams the generator meant (the sub-norms; the gate relu^2 by bitnet-b1.58's arch or by
// bitnet.hidden_activation, SiLU without it; NeoX rope), and their logits stay with the float64 reference
// forward's in F32, Q8_0 and TQ2_0 (BitNet's own type). Beside mkmodel_load_test.cc, in its test binary.
#include <gtest/gtest.h>

#include <string>

#include "cli/mkmodel_file_test_util.h"
#include "model/model.h"
#include "modelgen/model_generator.h"
#include "modelgen/narrow_spec_test_util.h"

namespace strata {
namespace {

constexpr int kBitnetPrompt = 24;

class MkmodelBitnetLoadTest : public testing::MkmodelFileTest {
 protected:
  MkmodelBitnetLoadTest() { seed_ = 19; }
};

// The preset's spec as arch; narrow: 2 layers of a few MiB (narrowed_preset).
ModelSpec bitnet_spec(const std::string& arch, const std::string& preset, bool narrow) {
  if (narrow) return narrowed_preset(arch, preset, 2);
  auto s = model_preset(arch, preset);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : ModelSpec{};
}

// The file at path against the float64 reference over kBitnetPrompt positions: in F32 float rounding apart
// (about 1e-6 here), quantized within the quantized kernels' usual error (src/model/quant_types_test.cc;
// TQ2_0 holds the ternary matrices exactly, the error is the activations' and token_embd's).
void expect_bitnet_close_to_reference(const std::string& path, DType type) {
  const testing::LogitErrors e = testing::fixed_prompt_reference_errors(path, kBitnetPrompt);
  EXPECT_LT(e.rms_rel, type == DType::kF32 ? 1e-4 : 0.04);
  EXPECT_LT(e.max_rel, type == DType::kF32 ? 1e-3 : 0.20);
}

// 2B4T narrowed, as its own bitnet-b1.58 (relu^2 by the arch) and as bitnet (relu^2 by its
// hidden_activation key): the sub-norms bound, NeoX rope over whole heads, no output matrix; both close to
// the reference in F32, Q8_0 and TQ2_0.
TEST_F(MkmodelBitnetLoadTest, Bitnet2b4tLoadsWithSubNormsAndARelu2Gate) {
  for (const char* arch : {"", "bitnet"}) {
    for (DType type : {DType::kF32, DType::kQ8_0, DType::kTQ2_0}) {
      SCOPED_TRACE(std::string(arch) + " " + std::string(dtype_name(type)));
      auto path = write(bitnet_spec(arch, "bitnet-b1.58-2b-4t", true), type, std::string("b2b4t") + arch);
      ASSERT_TRUE(path.ok()) << path.status().ToString();
      auto m = Model::Load(*path);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      const Hparams& hp = (*m)->hparams();
      EXPECT_EQ(hp.arch, *arch == '\0' ? "bitnet-b1.58" : "bitnet");
      EXPECT_TRUE(hp.sub_norms && hp.ffn_relu_sq_gated && hp.rope_neox);
      EXPECT_EQ(hp.n_layer, 2);
      EXPECT_EQ(hp.n_rot, 128);
      EXPECT_EQ((*m)->gguf().find_tensor("output.weight"), nullptr);
      EXPECT_EQ((*m)->gguf().find_tensor("blk.1.ffn_down.weight")->type, type);
      expect_bitnet_close_to_reference(*path, type);
    }
  }
}

// small as bitnet (1bitLLM's kind): no hidden_activation, so the gate is SiLU; 8 query heads over 4 K/V
// heads of 32, 4 layers; close to the reference in F32 and Q8_0.
TEST_F(MkmodelBitnetLoadTest, BitnetOnAnotherPresetGatesBySilu) {
  for (DType type : {DType::kF32, DType::kQ8_0}) {
    SCOPED_TRACE(dtype_name(type));
    auto path = write(bitnet_spec("bitnet", "small", false), type, "bitnet-small");
    ASSERT_TRUE(path.ok()) << path.status().ToString();
    auto m = Model::Load(*path);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "bitnet");
    EXPECT_TRUE(hp.sub_norms && hp.rope_neox);
    EXPECT_FALSE(hp.ffn_relu_sq_gated);
    EXPECT_EQ(hp.n_layer, 4);
    expect_bitnet_close_to_reference(*path, type);
  }
}

}  // namespace
}  // namespace strata
