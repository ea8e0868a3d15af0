// Llama 3.1-style rope frequency factors and the rope_freqs.weight tensor mkmodel writes.
#include "modelgen/rope_factors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

// Llama 3.1 8B: 128 rotated dims, base 500000, original context 8192. Pair i's wavelength
// is 2 pi 500000^(i / 64): pairs up to 28 are under 8192 / 4 = 2048 positions (factor 1),
// pairs from 35 are over 8192 (factor 8); 29..34 ramp. Pair 32's wavelength is
// 2 pi sqrt(500000) = 4442.88, smooth = (8192 / 4442.88 - 1) / 3 = 0.28128, factor
// 1 / (0.71872 / 8 + 0.28128) = 2.69453.
TEST(Llama3RopeFactors, OneForFastPairsFullFactorForSlowOnesSmoothBetween) {
  const std::vector<float> f = llama3_rope_factors(128, 500000.0f, Llama3RopeScaling{});
  ASSERT_EQ(f.size(), 64u);
  for (int i = 0; i <= 28; ++i) EXPECT_EQ(f[i], 1.0f) << "pair " << i;
  for (int i = 35; i < 64; ++i) EXPECT_EQ(f[i], 8.0f) << "pair " << i;
  for (int i = 29; i <= 35; ++i) EXPECT_GT(f[i], f[i - 1]) << "pair " << i;
  EXPECT_NEAR(f[29], 1.207484, 1e-5);
  EXPECT_NEAR(f[32], 2.694530, 1e-5);
  EXPECT_NEAR(f[34], 5.257327, 1e-5);
}

TEST(Llama3RopeFactors, SpecFactorsUseThePresetContextAndOnlyWhenAsked) {
  ModelSpec spec = model_preset("llama", "tiny").value();
  EXPECT_TRUE(spec_rope_factors(spec).empty());
  spec.rope_freqs = true;
  Llama3RopeScaling s;
  s.orig_ctx = spec.n_ctx;
  EXPECT_EQ(spec_rope_factors(spec), llama3_rope_factors(spec.head_dim, spec.rope_freq_base, s));
}

class RopeFreqsGenerationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-modelgen-rope-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  GenerateOptions tiny(const std::string& arch, bool rope_freqs, const std::string& name) {
    GenerateOptions o;
    o.arch = arch;
    o.preset = "tiny";
    o.seed = 3;
    o.n_threads = 1;
    o.rope_freqs = rope_freqs;
    o.out_path = (dir_ / name).string();
    return o;
  }

  fs::path dir_;
};

// tiny: head_dim 16, base 10000, n_ctx 512 as the original context, so the 8 pairs span
// factor 1 (wavelength < 128), the ramp, and factor 8 (wavelength > 512).
TEST_F(RopeFreqsGenerationTest, LlamaModelCarriesTheFactorsAsF32) {
  auto r = generate_model(tiny("llama", true, "freqs.gguf"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto f = GgufFile::Open((dir_ / "freqs.gguf").string());
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const GgufTensor* t = f->find_tensor("rope_freqs.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type, DType::kF32);
  ASSERT_EQ(t->dims, std::vector<uint64_t>{8});
  const std::vector<float> want = spec_rope_factors(r->spec);
  ASSERT_EQ(want.size(), 8u);
  EXPECT_EQ(0, std::memcmp(t->data, want.data(), sizeof(float) * 8));
  EXPECT_EQ(want.front(), 1.0f);
  EXPECT_EQ(want.back(), 8.0f);
}

// The factors are an extra tensor: every other tensor keeps its bytes.
TEST_F(RopeFreqsGenerationTest, OtherTensorsAreUnchanged) {
  ASSERT_TRUE(generate_model(tiny("llama", true, "with.gguf")).ok());
  ASSERT_TRUE(generate_model(tiny("llama", false, "without.gguf")).ok());
  auto with = GgufFile::Open((dir_ / "with.gguf").string());
  auto without = GgufFile::Open((dir_ / "without.gguf").string());
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(without->find_tensor("rope_freqs.weight"), nullptr);
  EXPECT_EQ(with->tensors().size(), without->tensors().size() + 1);
  for (const GgufTensor& t : without->tensors()) {
    const GgufTensor* u = with->find_tensor(t.name);
    ASSERT_NE(u, nullptr) << t.name;
    ASSERT_EQ(u->n_bytes, t.n_bytes) << t.name;
    EXPECT_EQ(0, std::memcmp(u->data, t.data, t.n_bytes)) << t.name;
  }
}

TEST_F(RopeFreqsGenerationTest, OnlyLlamaTakesThem) {
  auto r = generate_model(tiny("qwen3", true, "qwen3.gguf"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find("rope_freqs"), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("qwen3"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace strata
