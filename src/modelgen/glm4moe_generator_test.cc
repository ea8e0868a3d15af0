// Generated glm4moe files: the GLM-4.5 keys llama.cpp's converter writes, a router selection
// bias that changes some expert choices without deciding them, and `strata quantize` giving a
// generated F32 file the same types as generating it quantized (NextN block counted alike).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <vector>

#include "gguf/gguf_file.h"
#include "modelgen/model_generator.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/weight_rng.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class Glm4MoeGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-glmgen-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // moe-tiny as glm4moe (2 layers and the NextN block) with stories260K's vocabulary.
  GenerateOptions options(DType type) const {
    GenerateOptions o;
    o.arch = "glm4moe";
    o.preset = "moe-tiny";
    o.type = type;
    o.seed = 5;
    o.n_threads = 2;
    o.vocab_path = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";
    o.out_path = (dir_ / ("glm4moe-" + std::string(dtype_name(type)) + ".gguf")).string();
    return o;
  }

  Result<GgufFile> generate(DType type) {
    const GenerateOptions o = options(type);
    auto r = generate_model(o);
    if (!r.ok()) return r.status();
    return GgufFile::Open(o.out_path);
  }

  fs::path dir_;
};

TEST_F(Glm4MoeGeneratorTest, WritesTheGlm45Keys) {
  auto f = generate(DType::kF32);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "glm4moe");
  struct Key {
    const char* name;
    GgufType type;
    double value;
  };
  for (Key k : {Key{"block_count", GgufType::kU32, 3}, Key{"nextn_predict_layers", GgufType::kU32, 1},
                Key{"feed_forward_length", GgufType::kU32, 256}, Key{"attention.key_length", GgufType::kU32, 32},
                Key{"attention.value_length", GgufType::kU32, 32}, Key{"rope.dimension_count", GgufType::kU32, 16},
                Key{"expert_count", GgufType::kU32, 8}, Key{"expert_used_count", GgufType::kU32, 2},
                Key{"expert_shared_count", GgufType::kU32, 1}, Key{"expert_feed_forward_length", GgufType::kU32, 256},
                Key{"leading_dense_block_count", GgufType::kU32, 1}, Key{"expert_weights_scale", GgufType::kF32, 1.0},
                Key{"expert_weights_norm", GgufType::kBool, 1}, Key{"expert_gating_func", GgufType::kU32, 2},
                Key{"attention.head_count", GgufType::kU32, 4}, Key{"attention.head_count_kv", GgufType::kU32, 2},
                Key{"context_length", GgufType::kU32, 2048}, Key{"embedding_length", GgufType::kU32, 128}}) {
    const GgufValue* v = f->find(std::string("glm4moe.") + k.name);
    ASSERT_NE(v, nullptr) << k.name;
    EXPECT_EQ(v->type, k.type) << k.name;
    const auto got = v->type == GgufType::kBool ? v->as_uint().value_or(2) : v->as_float().value_or(-1);
    EXPECT_EQ(got, k.value) << k.name;
  }
  EXPECT_EQ(f->find("glm4moe.expert_shared_feed_forward_length"), nullptr);
  EXPECT_EQ(f->find("glm4moe.attention.sliding_window"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.2.exp_probs_b.bias")->type, DType::kF32);
  EXPECT_NE(f->find_tensor("blk.2.nextn.eh_proj.weight"), nullptr);
}

// The experts sigmoid(router logits) chooses for n random unit-RMS inputs, with and without the
// selection bias: the bias changes some of the top-2-of-8 choices and leaves most.
TEST_F(Glm4MoeGeneratorTest, SelectionBiasChangesSomeExpertChoicesButNotMost) {
  auto f = generate(DType::kF32);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const GgufTensor* router = f->find_tensor("blk.1.ffn_gate_inp.weight");
  const GgufTensor* bias = f->find_tensor("blk.1.exp_probs_b.bias");
  ASSERT_TRUE(router != nullptr && bias != nullptr);
  const auto* w = reinterpret_cast<const float*>(router->data);
  const auto* b = reinterpret_cast<const float*>(bias->data);
  const int n_embd = 128, n_expert = 8, n_used = 2, n = 400;
  EXPECT_LE(*std::max_element(b, b + n_expert), 0.1f);
  EXPECT_GE(*std::min_element(b, b + n_expert), -0.1f);
  auto chosen = [&](const std::vector<double>& score) {
    std::vector<int> idx(n_expert);
    std::iota(idx.begin(), idx.end(), 0);
    std::partial_sort(idx.begin(), idx.begin() + n_used, idx.end(), [&](int i, int j) { return score[i] > score[j]; });
    return std::vector<int>(idx.begin(), idx.begin() + n_used);
  };
  const WeightRng x_rng(77, "inputs");
  int changed = 0;
  for (int token = 0; token < n; ++token) {
    std::vector<double> score(n_expert), biased(n_expert);
    for (int e = 0; e < n_expert; ++e) {
      double logit = 0;
      for (int c = 0; c < n_embd; ++c) logit += w[e * n_embd + c] * x_rng.symmetric(token * n_embd + c, std::sqrt(3.0f));
      score[e] = 1.0 / (1.0 + std::exp(-logit));
      biased[e] = score[e] + b[e];
    }
    const std::vector<int> plain = chosen(score);
    for (int e : chosen(biased)) changed += std::find(plain.begin(), plain.end(), e) == plain.end();
  }
  EXPECT_GT(changed, n * n_used / 20) << changed << " of " << n * n_used;
  EXPECT_LT(changed, n * n_used * 2 / 5) << changed << " of " << n * n_used;
}

// Q4_K_M made by strata quantize from the F32 file and by mkmodel --type q4_k: same type for
// every tensor (llama.cpp counts the NextN block among the layers for the mix's layer rules).
TEST_F(Glm4MoeGeneratorTest, QuantizeAndGenerateGiveTheSameMix) {
  const GenerateOptions o = options(DType::kF32);
  ASSERT_TRUE(generate_model(o).ok());
  QuantizeOptions q;
  q.in_path = o.out_path;
  q.file_type = "q4_k_m";
  auto quantized = plan_quantize(q);
  ASSERT_TRUE(quantized.ok()) << quantized.status().ToString();
  GenerateOptions g = options(DType::kQ4_K);
  auto generated = plan_model(g);
  ASSERT_TRUE(generated.ok()) << generated.status().ToString();
  ASSERT_EQ(quantized->tensors.size(), generated->plan.tensors.size());
  for (size_t i = 0; i < quantized->tensors.size(); ++i) {
    const PlannedTensor& t = generated->plan.tensors[i];
    EXPECT_EQ(quantized->tensors[i].name, t.name);
    EXPECT_EQ(quantized->tensors[i].to, t.type) << t.name;
    // Block 1 of 3 is not a more-bits layer; of 2 (the NextN block left out) it would be.
    if (t.name == "blk.1.ffn_down_exps.weight") {
      EXPECT_EQ(t.type, DType::kQ4_K);
    }
  }
}

}  // namespace
}  // namespace strata
