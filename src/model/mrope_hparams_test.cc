// The vision-language models' language models (qwen2vl, qwen3vl, qwen3vlmoe) as Strata reads them:
// their base architecture's hyper-parameters, and which rotated pairs their M-RoPE sections leave
// at position 0 for text: those of a fourth section in the consecutive layout (Qwen2-VL), none
// in the interleaved one (Qwen3-VL, Qwen3.5).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/model.h"
#include "model/model_load_test_util.h"
#include "model/test_model.h"

namespace strata {
namespace {

using testing::ModelLoadTest;
using testing::TestModelSpec;

// Pair i's flag for sections [2, 2, 3, 1] (8 sectors, i % 8) over a head of 64: 32 pairs.
std::vector<uint8_t> flags_where(bool (*pos0)(int sector)) {
  std::vector<uint8_t> flags(32);
  for (int i = 0; i < 32; ++i) flags[static_cast<size_t>(i)] = pos0(i % 8) ? 1 : 0;
  return flags;
}

TEST_F(ModelLoadTest, VisionLanguageArchsReadTheirBaseArchitectures) {
  TestModelSpec spec;
  spec.arch = "qwen2vl";
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().qkv_bias && (*m)->hparams().rope_neox);
  EXPECT_FALSE((*m)->hparams().qk_norm || (*m)->hparams().is_moe());
  spec.arch = "qwen3vl";
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_TRUE((*m)->hparams().qk_norm && (*m)->hparams().rope_neox && (*m)->hparams().tied_embeddings);
  EXPECT_FALSE((*m)->hparams().qkv_bias || (*m)->hparams().is_moe());
  spec.arch = "qwen3vlmoe";
  m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const Hparams& hp = (*m)->hparams();
  EXPECT_TRUE(hp.qk_norm && hp.is_moe() && hp.expert_weights_norm && !hp.expert_sigmoid);
  EXPECT_EQ(hp.n_expert, 8);
  EXPECT_EQ(hp.n_expert_used, 2);
  // The real files' sections cover every rotated pair: plain NeoX rope for text.
  EXPECT_TRUE(hp.rope_pos0_pairs.empty());
}

TEST_F(ModelLoadTest, Qwen2VlSectionsAreConsecutiveRuns) {
  TestModelSpec spec;
  spec.arch = "qwen2vl";
  spec.metadata_overrides = {{"qwen2vl.rope.dimension_sections", GgufValue::I32Array({2, 2, 3, 1})}};
  auto m = load(spec);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // Sectors 0-1 read t, 2-3 h, 4-6 w, 7 the fourth component.
  EXPECT_EQ((*m)->hparams().rope_pos0_pairs, flags_where([](int sector) { return sector == 7; }));
}

// The interleaved layout's three components are all p for text, the temporal one also for the
// pairs the sections leave (Qwen3-VL's [24, 20, 20, 0]: pairs 61 and 62; here [12, 10, 10, 0]:
// pair 31, and [2, 2, 3, 1]: sectors 6 and 7), which llama.cpp reads as a fourth component at 0.
TEST_F(ModelLoadTest, InterleavedSectionsTurnEveryPairForText) {
  for (const char* arch : {"qwen3vl", "qwen3vlmoe", "qwen35"}) {
    for (const auto& sections : {std::vector<int32_t>{12, 10, 10, 0}, std::vector<int32_t>{2, 2, 3, 1}}) {
      TestModelSpec spec;
      spec.arch = arch;
      spec.n_rot = 64;
      spec.metadata_overrides = {{std::string(arch) + ".rope.dimension_sections", GgufValue::I32Array(sections)}};
      auto m = load(spec);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      EXPECT_TRUE((*m)->hparams().rope_pos0_pairs.empty()) << arch << " " << sections[0];
    }
  }
}

TEST_F(ModelLoadTest, BadVisionLanguageSectionsAreNamed) {
  TestModelSpec spec;
  spec.arch = "qwen3vl";
  spec.metadata_overrides = {{"qwen3vl.rope.dimension_sections", GgufValue::I32Array({0, 0, 0, 0})}};
  expect_error(spec, Code::kCorrupt, "qwen3vl.rope.dimension_sections must hold 4 counts of rotated pairs, not all 0");
  spec.arch = "qwen2vl";
  spec.metadata_overrides = {{"qwen2vl.rope.dimension_sections", GgufValue::I32Array({-1, 8, 8, 0})}};
  expect_error(spec, Code::kCorrupt, "qwen2vl.rope.dimension_sections must hold 4 counts of rotated pairs");
}

}  // namespace
}  // namespace strata
