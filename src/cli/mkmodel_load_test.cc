// Files `strata mkmodel` writes for mixture-of-experts presets, and for gemma3, load with
// Model::Load: every arch, float and quantized, with the hparams the generator meant and
// routing that reads only n_expert_used of n_expert experts per token.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "model/model.h"
#include "modelgen/model_generator.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class MkmodelLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-mkmodel-load-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Result<std::unique_ptr<Model>> generate_and_load(const std::string& arch, DType type,
                                                   const std::string& preset = "moe-tiny") {
    GenerateOptions o;
    o.arch = arch;
    o.preset = preset;
    o.type = type;
    o.seed = 3;
    o.n_threads = 2;
    o.out_path = (dir_ / (arch + "-" + std::string(dtype_name(type)) + ".gguf")).string();
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return Model::Load(o.out_path);
  }

  fs::path dir_;
};

TEST_F(MkmodelLoadTest, EveryMoeArchLoadsWithItsExpertShape) {
  struct Want {
    const char* arch;
    const char* file_arch;
    int n_ff_shexp;
    bool norm_topk;
  };
  for (Want w : {Want{"qwen3moe", "qwen3moe", 0, true}, Want{"qwen2moe", "qwen2moe", 192, false},
                 Want{"mixtral", "llama", 0, true}}) {
    for (DType type : {DType::kF32, DType::kQ8_0, DType::kQ4_K}) {
      SCOPED_TRACE(std::string(w.arch) + " " + std::string(dtype_name(type)));
      auto m = generate_and_load(w.arch, type);
      ASSERT_TRUE(m.ok()) << m.status().ToString();
      const Hparams& hp = (*m)->hparams();
      EXPECT_EQ(hp.arch, w.file_arch);
      EXPECT_EQ(hp.n_expert, 8);
      EXPECT_EQ(hp.n_expert_used, 2);
      EXPECT_EQ(hp.n_ff_exp, 256);
      EXPECT_EQ(hp.n_ff_shexp, w.n_ff_shexp);
      EXPECT_EQ(hp.expert_weights_norm, w.norm_topk);
      EXPECT_EQ(hp.n_layer, 2);
      EXPECT_LT((*m)->decode_weight_bytes(), (*m)->weight_bytes());
    }
  }
}

// The small preset as gemma3 (6 layers would hold a global one; the preset's 4 all slide):
// a window of a quarter of its 1024 positions, and every Gemma 3 part bound.
TEST_F(MkmodelLoadTest, Gemma3LoadsWithItsWindow) {
  for (DType type : {DType::kF32, DType::kQ4_K}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("gemma3", type, "small");
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "gemma3");
    EXPECT_EQ(hp.sliding_window, 256);
    EXPECT_TRUE(hp.post_norms && hp.ffn_gelu && hp.qk_norm && hp.tied_embeddings);
    EXPECT_FLOAT_EQ(hp.embd_scale, 16.0f);
  }
}

}  // namespace
}  // namespace strata
