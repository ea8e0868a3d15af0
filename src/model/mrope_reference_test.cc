// The vision-language models' language models (qwen2vl, qwen3vl, qwen3vlmoe) on text: the fast
// forward pass against the float64 reference, the same bits as their base architecture when the
// M-RoPE sections cover every rotated pair (as the real files' do), and the pairs of the fourth
// position component left unturned when a file's sections have some.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "gguf/gguf_value.h"
#include "model/model.h"
#include "model/reference_forward_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::Bounds;
using testing::ReferenceForwardVariantsTest;
using testing::TestModelSpec;
using testing::bounds;
using testing::expect_within;

// The fast path's logits on spec's model (written to path) over kTokens random tokens, in one pass.
std::vector<float> fast_logits(const TestModelSpec& spec, const std::string& path) {
  EXPECT_TRUE(testing::write_test_model(spec, path).ok());
  auto model = Model::Load(path);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  std::vector<int32_t> tokens;
  return testing::fast_logits(**model, DType::kF32, spec.seed, {}, &tokens);
}

TEST_F(ReferenceForwardVariantsTest, VisionLanguageArchsAgreeWithTheReference) {
  for (const char* arch : {"qwen2vl", "qwen3vl", "qwen3vlmoe"}) {
    TestModelSpec spec;
    spec.arch = arch;
    const Errors e = errors(spec, DType::kF32);
    expect_within(arch, e.rms_rel, e.max_rel, bounds(DType::kF32));
  }
}

// The same weights under each base name (the tensors and their seeds are the same): bytes equal,
// with the real files' section proportions (Qwen3-VL's leave a pair to the temporal component,
// which llama.cpp freezes) and with interleaved sections that count a fourth component.
TEST_F(ReferenceForwardVariantsTest, TextGivesTheBaseArchitecturesBits) {
  struct Variant {
    const char* vl;
    const char* base;
    std::vector<int32_t> sections;  // empty: the test model's, in the real files' proportions
  };
  for (const Variant& v : {Variant{"qwen2vl", "qwen2", {}}, Variant{"qwen3vl", "qwen3", {}},
                           Variant{"qwen3vlmoe", "qwen3moe", {}}, Variant{"qwen3vl", "qwen3", {2, 2, 3, 1}}}) {
    TestModelSpec spec;
    spec.arch = v.vl;
    spec.rope_freq_base = 50.0f;  // every pair turns within the 24 positions
    if (!v.sections.empty()) {
      spec.metadata_overrides = {{std::string(v.vl) + ".rope.dimension_sections", GgufValue::I32Array(v.sections)}};
    }
    TestModelSpec base_spec = spec;
    base_spec.arch = v.base;
    base_spec.metadata_overrides.clear();
    const std::vector<float> a = fast_logits(spec, (dir_ / "vl.gguf").string());
    const std::vector<float> b = fast_logits(base_spec, (dir_ / "base.gguf").string());
    ASSERT_EQ(a.size(), b.size());
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), sizeof(float) * a.size()), 0) << v.vl << " against " << v.base;
  }
}

// Qwen2-VL's consecutive sections [2, 2, 3, 1] give the pairs of sector 7 to a fourth component,
// 0 for text: within the bound of the reference, which reads them the same way, and far from
// plain rope (the qwen2 file), so the fast path does leave them unturned.
TEST_F(ReferenceForwardVariantsTest, PairsOfAFourthSectionDoNotTurn) {
  TestModelSpec spec;
  spec.arch = "qwen2vl";
  spec.rope_freq_base = 50.0f;
  spec.metadata_overrides = {{"qwen2vl.rope.dimension_sections", GgufValue::I32Array({2, 2, 3, 1})}};
  const Bounds b = bounds(DType::kF32);
  const Errors e = errors(spec, DType::kF32);
  expect_within("qwen2vl", e.rms_rel, e.max_rel, b);
  TestModelSpec plain = spec;
  plain.arch = "qwen2";
  plain.metadata_overrides.clear();
  EXPECT_GT(errors(spec, DType::kF32, &plain).rms_rel, 100 * b.rms_rel) << "the fourth section's pairs turn";
}

}  // namespace
}  // namespace strata
