// Generated files of the archs that are another's layers plus keys: the vision-language models'
// language models (M-RoPE sections) and Granite (its multipliers), as llama.cpp's converter
// writes them, with the base architecture's tensors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/plan_test_util.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class ArchKeysGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-archkeys-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<GgufFile> generate(const std::string& arch, const std::string& preset) {
    GenerateOptions o;
    o.arch = arch;
    o.preset = preset;
    o.type = DType::kF32;
    o.seed = 7;
    o.n_threads = 2;
    o.out_path = (dir_ / (arch + ".gguf")).string();
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return GgufFile::Open(o.out_path);
  }

  fs::path dir_;
};

// The vision-language archs' language models: Qwen2-VL's sections [16, 24, 24, 0] and Qwen3-VL's
// [24, 20, 20, 0] of 64 pairs scaled to the preset's heads (tiny's 8 pairs, moe-tiny's 16), Qwen3-VL's
// deepstack count, and the base architecture's tensors (biases, QK-norm, experts).
TEST_F(ArchKeysGeneratorTest, VisionLanguageArchsWriteTheirRopeSections) {
  struct Case {
    const char* arch;
    const char* preset;
    std::vector<int64_t> sections;
    const char* own_tensor;
  };
  for (const Case& c : {Case{"qwen2vl", "tiny", {2, 3, 3, 0}, "blk.0.attn_q.bias"},
                        Case{"qwen3vl", "tiny", {3, 2, 3, 0}, "blk.0.attn_q_norm.weight"},
                        Case{"qwen3vlmoe", "moe-tiny", {6, 5, 5, 0}, "blk.0.ffn_gate_exps.weight"}}) {
    auto f = generate(c.arch, c.preset);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(f->get_string("general.architecture"), c.arch);
    EXPECT_EQ(int_array(*f, std::string(c.arch) + ".rope.dimension_sections"), c.sections) << c.arch;
    EXPECT_EQ(f->get_uint(std::string(c.arch) + ".n_deepstack_layers").has_value(), std::string(c.arch) != "qwen2vl")
        << c.arch;
    EXPECT_NE(f->find_tensor(c.own_tensor), nullptr) << c.arch << " " << c.own_tensor;
  }
}

// Granite 3.x 8B's multipliers with the attention scale 1 / head size (small's 32); granitemoe
// is Mixtral's layout: feed_forward_length is the expert width (moe-tiny's 256).
TEST_F(ArchKeysGeneratorTest, GraniteWritesItsMultipliers) {
  for (const auto& [arch, preset] : {std::pair{"granite", "small"}, std::pair{"granitemoe", "moe-tiny"}}) {
    auto f = generate(arch, preset);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    const std::string a = arch;
    EXPECT_EQ(f->get_string("general.architecture"), a);
    EXPECT_FLOAT_EQ(f->get_float(a + ".embedding_scale").value_or(0), 12.0f);
    EXPECT_FLOAT_EQ(f->get_float(a + ".attention.scale").value_or(0), 1.0f / 32);
    EXPECT_FLOAT_EQ(f->get_float(a + ".residual_scale").value_or(0), 0.22f);
    EXPECT_FLOAT_EQ(f->get_float(a + ".logit_scale").value_or(0), 16.0f);
    if (a == "granitemoe") {
      EXPECT_EQ(f->get_uint(a + ".feed_forward_length"), 256u);
      EXPECT_NE(f->find_tensor("blk.0.ffn_gate_exps.weight"), nullptr);
    }
  }
}

}  // namespace
}  // namespace strata
