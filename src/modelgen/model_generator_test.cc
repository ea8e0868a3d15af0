// Generated models: readable, deterministic (independent of threads and write order),
// sane weight scales, real vocabularies.
#include "modelgen/model_generator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "modelgen/weight_rng.h"
#include "tensor/quantize.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

class ModelGeneratorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("strata-modelgen-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string generate(const std::string& name, GenerateOptions o) {
    o.out_path = (dir_ / name).string();
    auto r = generate_model(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return o.out_path;
  }

  static std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
};

GenerateOptions tiny(DType type, uint64_t seed = 1) {
  GenerateOptions o;
  o.preset = "tiny";
  o.type = type;
  o.seed = seed;
  o.n_threads = 2;
  return o;
}

TEST_F(ModelGeneratorTest, TinyLlamaHasLlamaCppMetadata) {
  auto f = GgufFile::Open(generate("tiny.gguf", tiny(DType::kF32)));
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->get_string("general.architecture"), "llama");
  EXPECT_EQ(f->get_uint("llama.block_count"), 2u);
  EXPECT_EQ(f->get_uint("llama.embedding_length"), 64u);
  EXPECT_EQ(f->get_uint("llama.attention.head_count"), 4u);
  EXPECT_EQ(f->get_uint("llama.attention.head_count_kv"), 2u);
  EXPECT_EQ(f->get_uint("llama.rope.dimension_count"), 16u);
  EXPECT_NEAR(*f->get_float("llama.attention.layer_norm_rms_epsilon"), 1e-5, 1e-9);
  EXPECT_EQ(f->get_string("tokenizer.ggml.model"), "llama");
  const auto* tokens = f->get_array("tokenizer.ggml.tokens");
  ASSERT_NE(tokens, nullptr);
  ASSERT_EQ(tokens->array_size(), 259u);
  EXPECT_EQ(*tokens->string_at(1), "<s>");
  EXPECT_EQ(*tokens->string_at(3 + 0x41), "<0x41>");
  EXPECT_EQ(f->find_tensor("token_embd.weight")->dims, (std::vector<uint64_t>{64, 259}));
}

TEST_F(ModelGeneratorTest, SameSeedSameBytesWhateverTheThreadCount) {
  GenerateOptions one = tiny(DType::kQ8_0, 7);
  one.n_threads = 1;
  GenerateOptions two = tiny(DType::kQ8_0, 7);
  two.n_threads = 2;
  std::string a = read_all(generate("a.gguf", one));
  std::string b = read_all(generate("b.gguf", two));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.size(), b.size());
  EXPECT_TRUE(a == b);
  std::string c = read_all(generate("c.gguf", tiny(DType::kQ8_0, 8)));
  EXPECT_FALSE(a == c);
}

// A tensor's values depend on (seed, name, index) only: inserting other tensors before it
// (qwen2's biases) leaves its bytes unchanged.
TEST_F(ModelGeneratorTest, TensorBytesDoNotDependOnWriteOrder) {
  GenerateOptions qwen2 = tiny(DType::kQ4_0);
  qwen2.arch = "qwen2";
  auto a = GgufFile::Open(generate("llama.gguf", tiny(DType::kQ4_0)));
  auto b = GgufFile::Open(generate("qwen2.gguf", qwen2));
  ASSERT_TRUE(a.ok() && b.ok());
  const GgufTensor* ta = a->find_tensor("blk.1.ffn_up.weight");
  const GgufTensor* tb = b->find_tensor("blk.1.ffn_up.weight");
  ASSERT_NE(ta->file_offset, tb->file_offset);
  ASSERT_EQ(ta->n_bytes, tb->n_bytes);
  EXPECT_EQ(std::memcmp(ta->data, tb->data, ta->n_bytes), 0);
}

TEST_F(ModelGeneratorTest, WeightScalesKeepActivationsSane) {
  auto f = GgufFile::Open(generate("scales.gguf", tiny(DType::kF16)));
  ASSERT_TRUE(f.ok());
  for (const auto& t : f->tensors()) {
    std::vector<float> x(t.n_elements);
    ASSERT_TRUE(dequantize_row(t.type, t.data, x.data(), x.size()).ok());
    double sum = 0, sum2 = 0;
    for (float v : x) sum += v, sum2 += static_cast<double>(v) * v;
    double mean = sum / x.size(), std = std::sqrt(sum2 / x.size() - mean * mean);
    if (t.name.find("norm") != std::string::npos) {
      EXPECT_NEAR(mean, 1.0, 0.05) << t.name;
      EXPECT_LT(std, 0.1) << t.name;
    } else {
      double want = 1.0 / std::sqrt(static_cast<double>(t.dims[0]));
      EXPECT_NEAR(std, want, 0.1 * want) << t.name;
      EXPECT_NEAR(mean, 0.0, 0.2 * want) << t.name;
    }
  }
}

TEST_F(ModelGeneratorTest, F32WeightsAreTheRngValues) {
  auto f = GgufFile::Open(generate("rng.gguf", tiny(DType::kF32, 3)));
  ASSERT_TRUE(f.ok());
  const GgufTensor* t = f->find_tensor("blk.0.attn_k.weight");
  const auto* x = reinterpret_cast<const float*>(t->data);
  WeightRng rng(3, "blk.0.attn_k.weight");
  float half_width = std::sqrt(3.0f / 64.0f);
  for (uint64_t i : {uint64_t{0}, uint64_t{1}, uint64_t{2047}}) EXPECT_EQ(x[i], rng.symmetric(i, half_width));
}

TEST_F(ModelGeneratorTest, EveryRequestedTypeIsWrittenAndReadable) {
  GenerateOptions o = tiny(DType::kF32);
  o.preset = "small";  // 256 wide: K-quants fit
  for (DType type : {DType::kF16, DType::kBF16, DType::kQ8_0, DType::kQ4_0, DType::kQ5_0, DType::kQ4_K,
                     DType::kQ5_K, DType::kQ6_K}) {
    o.type = type;
    auto f = GgufFile::Open(generate("small.gguf", o));
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    EXPECT_EQ(f->find_tensor("blk.1.attn_q.weight")->type, type) << dtype_name(type);
    EXPECT_EQ(f->find_tensor("blk.1.attn_norm.weight")->type, DType::kF32);
  }
}

// The lattice i-quants: ffn_up takes the type in each mix, and decodes close to the F32
// file's values of the same seed (uniform weights: the largest magnitude on the grid's top
// level suits them). Relative RMS error measured: IQ3_S 0.132, IQ3_XXS 0.203 (a sparser
// grid), IQ2_S 0.244, IQ2_XS 0.302, IQ2_XXS 0.330, IQ1_M 0.416, IQ1_S 0.449; bounds ~1.15x.
TEST_F(ModelGeneratorTest, LatticeIQuantsAreWrittenAndDecodeNearTheF32Weights) {
  GenerateOptions o = tiny(DType::kF32, 5);
  o.preset = "small";
  auto f32 = GgufFile::Open(generate("f32.gguf", o));
  ASSERT_TRUE(f32.ok());
  const GgufTensor* want = f32->find_tensor("blk.1.ffn_up.weight");
  const auto* x = reinterpret_cast<const float*>(want->data);
  const std::pair<DType, double> cases[] = {{DType::kIQ3_S, 0.15}, {DType::kIQ3_XXS, 0.23}, {DType::kIQ2_S, 0.28},
                                            {DType::kIQ2_XS, 0.35}, {DType::kIQ2_XXS, 0.38}, {DType::kIQ1_M, 0.48},
                                            {DType::kIQ1_S, 0.52}};
  for (const auto& [type, bound] : cases) {
    o.type = type;
    auto f = GgufFile::Open(generate("iq.gguf", o));
    ASSERT_TRUE(f.ok()) << f.status().ToString();
    const GgufTensor* t = f->find_tensor("blk.1.ffn_up.weight");
    ASSERT_EQ(t->type, type) << dtype_name(type);
    std::vector<float> y(t->n_elements);
    ASSERT_TRUE(dequantize_row(t->type, t->data, y.data(), y.size()).ok());
    double err = 0, signal = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      err += (static_cast<double>(y[i]) - x[i]) * (y[i] - x[i]);
      signal += static_cast<double>(x[i]) * x[i];
    }
    const double rel = std::sqrt(err / signal);
    EXPECT_LT(rel, bound) << dtype_name(type);
    RecordProperty(std::string(dtype_name(type)) + "_rms_rel", std::to_string(rel));
  }
}

TEST_F(ModelGeneratorTest, Qwen3WritesKeyLengthAndQkNorms) {
  GenerateOptions o = tiny(DType::kQ8_0);
  o.arch = "qwen3";
  auto f = GgufFile::Open(generate("qwen3.gguf", o));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->get_string("general.architecture"), "qwen3");
  EXPECT_EQ(f->get_uint("qwen3.attention.key_length"), 16u);
  EXPECT_EQ(f->get_uint("qwen3.attention.value_length"), 16u);
  ASSERT_NE(f->find_tensor("blk.1.attn_k_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("blk.1.attn_k_norm.weight")->dims, (std::vector<uint64_t>{16}));
}

TEST_F(ModelGeneratorTest, Gemma3WritesItsWindowPostNormsAndTiedEmbeddings) {
  GenerateOptions o = tiny(DType::kQ8_0);
  o.arch = "gemma3";
  auto f = GgufFile::Open(generate("gemma3.gguf", o));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->get_string("general.architecture"), "gemma3");
  EXPECT_EQ(f->get_uint("gemma3.attention.sliding_window"), 128u);  // a quarter of the tiny preset's 512
  EXPECT_EQ(f->get_uint("gemma3.attention.key_length"), 16u);
  EXPECT_NE(f->find_tensor("blk.1.post_attention_norm.weight"), nullptr);
  EXPECT_NE(f->find_tensor("blk.1.post_ffw_norm.weight"), nullptr);
  EXPECT_NE(f->find_tensor("blk.1.attn_q_norm.weight"), nullptr);
  EXPECT_EQ(f->find_tensor("output.weight"), nullptr);

  auto preset = model_preset("", "gemma3-1b");
  ASSERT_TRUE(preset.ok()) << preset.status().ToString();
  EXPECT_EQ(preset->arch, "gemma3");
  EXPECT_EQ(preset->sliding_window, 512);
  EXPECT_EQ(preset->head_dim, 256);
  EXPECT_EQ(preset->rope_linear_factor, 1.0f);
  auto four = model_preset("", "gemma3-4b");
  ASSERT_TRUE(four.ok()) << four.status().ToString();
  EXPECT_EQ(four->sliding_window, 1024);
  EXPECT_EQ(four->rope_linear_factor, 8.0f);
}

TEST_F(ModelGeneratorTest, VocabIsCopiedFromAVocabFile) {
  GenerateOptions o = tiny(DType::kQ8_0);
  o.vocab_path = std::string(STRATA_SHARED_DIR) + "/vocab/ggml-vocab-llama-spm.gguf";
  auto f = GgufFile::Open(generate("spm.gguf", o));
  auto vocab = GgufFile::Open(o.vocab_path);
  ASSERT_TRUE(f.ok() && vocab.ok());
  EXPECT_EQ(f->find_tensor("token_embd.weight")->dims, (std::vector<uint64_t>{64, 32000}));
  EXPECT_EQ(f->get_uint("llama.vocab_size"), 32000u);
  for (const auto& [key, value] : vocab->metadata()) {
    if (!key.starts_with("tokenizer.")) continue;
    const GgufValue* copy = f->find(key);
    ASSERT_NE(copy, nullptr) << key;
    EXPECT_EQ(copy->type, value.type) << key;
    if (value.type == GgufType::kArray) {
      EXPECT_EQ(copy->array_size(), value.array_size()) << key;
    }
  }
  EXPECT_EQ(*f->get_array("tokenizer.ggml.tokens")->string_at(29871), *vocab->get_array("tokenizer.ggml.tokens")->string_at(29871));
}

TEST_F(ModelGeneratorTest, VocabFileWithoutTokensIsRejected) {
  GgufWriter w;
  w.set("general.architecture", GgufValue::String("llama"));
  std::string empty = (dir_ / "novocab.gguf").string();
  ASSERT_TRUE(w.write(empty).ok());
  GenerateOptions o = tiny(DType::kF32);
  o.vocab_path = empty;
  o.out_path = (dir_ / "out.gguf").string();
  auto r = generate_model(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no tokenizer.ggml.tokens"), std::string::npos);
  EXPECT_FALSE(fs::exists(o.out_path));
}

}  // namespace
}  // namespace strata
