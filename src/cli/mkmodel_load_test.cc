// Files `strata mkmodel` writes for mixture-of-experts presets, gemma3 and gpt-oss, load with
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

// moe-tiny as gpt-oss: every gpt-oss part bound (sinks, biases, the clamped SwiGLU, its
// feed-forward norm), every other layer sliding over a quarter of the context up to 128 keys,
// and YaRN 32 over n_ctx / 32; gpt-oss-20b's own shape.
TEST_F(MkmodelLoadTest, GptOssLoadsWithItsSinksBiasesAndWindow) {
  for (DType type : {DType::kF32, DType::kQ8_0}) {
    SCOPED_TRACE(dtype_name(type));
    auto m = generate_and_load("gpt-oss", type);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    const Hparams& hp = (*m)->hparams();
    EXPECT_EQ(hp.arch, "gpt-oss");
    EXPECT_TRUE(hp.attn_sinks && hp.swiglu_oai && hp.qkv_bias && hp.expert_weights_norm);
    EXPECT_EQ(hp.sliding_window, 128);
    EXPECT_TRUE(hp.layer_slides(0) && !hp.layer_slides(1));
    EXPECT_FLOAT_EQ(hp.rope_yarn_factor, 32.0f);
    EXPECT_EQ(hp.rope_yarn_orig_ctx, 2048 / 32);
    EXPECT_EQ(hp.n_ff_shexp, 0);
  }
  auto preset = model_preset("", "gpt-oss-20b");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "gpt-oss");
  EXPECT_EQ(preset->n_expert, 32);
  EXPECT_EQ(preset->n_expert_used, 4);
  EXPECT_EQ(preset->head_dim, 64);
  EXPECT_EQ(preset->sliding_window, 128);
  EXPECT_EQ(preset->rope_yarn_factor, 32.0f);
  EXPECT_EQ(model_preset("llama", "gpt-oss-20b").status().code(), Code::kInvalidArgument);
  auto as_qwen = model_preset("qwen3moe", "gpt-oss-20b");
  ASSERT_TRUE(as_qwen.ok());
  EXPECT_EQ(as_qwen->sliding_window, 0);
  EXPECT_EQ(as_qwen->rope_yarn_factor, 1.0f);
  EXPECT_FALSE(as_qwen->gpt_oss);
}

}  // namespace
}  // namespace strata
