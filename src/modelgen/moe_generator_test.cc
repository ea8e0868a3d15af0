// Generated mixture-of-experts files: moe-tiny of each arch reads back with the keys and
// tensors of the llama.cpp-written references in ../shared/models/moe, and expert weights
// are the counter-based values at their flat index.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/weight_rng.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class MoeGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-moegen-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // moe-tiny of arch with stories260K's 512-token vocabulary, as the references have.
  Result<GgufFile> generate(const std::string& arch, DType type) {
    GenerateOptions o;
    o.arch = arch;
    o.preset = "moe-tiny";
    o.type = type;
    o.seed = 5;
    o.n_threads = 2;
    o.vocab_path = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
    o.out_path = (dir_ / (arch + ".gguf")).string();
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return GgufFile::Open(o.out_path);
  }

  fs::path dir_;
};

std::string reference_path(const std::string& arch) {
  return std::string(STRATA_SHARED_DIR) + "/models/moe/tiny-" + arch + ".gguf";
}

// Every <arch>.* key of the reference has the same value in ours, and the tensor tables
// list the same names, dims and (F32) types.
void expect_same_layout(const GgufFile& ours, const GgufFile& ref) {
  const std::string arch = *ref.get_string("general.architecture");
  EXPECT_EQ(ours.get_string("general.architecture"), arch);
  for (const auto& [key, value] : ref.metadata()) {
    if (!key.starts_with(arch + ".")) continue;
    const GgufValue* mine = ours.find(key);
    ASSERT_NE(mine, nullptr) << key;
    EXPECT_EQ(mine->as_float(), value.as_float()) << key;
  }
  ASSERT_EQ(ours.tensors().size(), ref.tensors().size());
  for (const auto& t : ref.tensors()) {
    const GgufTensor* mine = ours.find_tensor(t.name);
    ASSERT_NE(mine, nullptr) << t.name;
    EXPECT_EQ(mine->dims, t.dims) << t.name;
    EXPECT_EQ(mine->type, t.type) << t.name;
  }
}

TEST_F(MoeGeneratorTest, EachArchMatchesItsLlamaCppReference) {
  for (const char* arch : {"qwen3moe", "qwen2moe", "mixtral"}) {
    auto ours = generate(arch, DType::kF32);
    ASSERT_TRUE(ours.ok()) << arch << ": " << ours.status().ToString();
    auto ref = GgufFile::Open(reference_path(arch));
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    SCOPED_TRACE(arch);
    expect_same_layout(*ours, *ref);
  }
}

TEST_F(MoeGeneratorTest, MixtralIsWrittenAsLlamaWithExpertCounts) {
  auto f = generate("mixtral", DType::kQ8_0);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_uint("llama.expert_count"), 8u);
  EXPECT_EQ(f->get_uint("llama.expert_used_count"), 2u);
  EXPECT_EQ(f->get_uint("llama.feed_forward_length"), 256u);
  EXPECT_EQ(f->find("llama.expert_feed_forward_length"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_up_exps.weight")->type, DType::kQ8_0);
  EXPECT_EQ(f->find_tensor("blk.1.ffn_gate_inp.weight")->type, DType::kF32);
}

TEST_F(MoeGeneratorTest, Qwen2MoeWritesTheSharedExpertWidth) {
  auto f = generate("qwen2moe", DType::kQ4_0);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_uint("qwen2moe.expert_feed_forward_length"), 256u);
  EXPECT_EQ(f->get_uint("qwen2moe.expert_shared_feed_forward_length"), 192u);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_down_shexp.weight")->type, DType::kQ4_0);
  EXPECT_EQ(f->find_tensor("blk.0.ffn_gate_inp_shexp.weight")->type, DType::kF32);
}

// Expert e's rows follow expert e-1's: element (e, row, col) is the rng value at its flat
// index, so the last expert's last weight is index n_expert * n_out * n_in - 1.
TEST_F(MoeGeneratorTest, ExpertWeightsAreTheRngValuesAtTheirFlatIndex) {
  auto f = generate("qwen3moe", DType::kF32);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const GgufTensor* t = f->find_tensor("blk.1.ffn_down_exps.weight");
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->n_elements, 256u * 128u * 8u);
  const auto* x = reinterpret_cast<const float*>(t->data);
  WeightRng rng(5, "blk.1.ffn_down_exps.weight");
  const float half_width = std::sqrt(3.0f / 256.0f);
  for (uint64_t i : {uint64_t{0}, uint64_t{256 * 128}, t->n_elements - 1}) {
    EXPECT_EQ(x[i], rng.symmetric(i, half_width)) << i;
  }
  const GgufTensor* router = f->find_tensor("blk.0.ffn_gate_inp.weight");
  const auto* r = reinterpret_cast<const float*>(router->data);
  EXPECT_EQ(r[1023], WeightRng(5, "blk.0.ffn_gate_inp.weight").symmetric(1023, std::sqrt(3.0f / 128.0f)));
}

}  // namespace
}  // namespace strata
