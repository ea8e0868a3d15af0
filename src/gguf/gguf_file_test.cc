// Reading the real GGUF files in ../shared: metadata, tensor table and data placement.
#include "gguf/gguf_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>

namespace strata {
namespace {

const std::string kModels = std::string(STRATA_SHARED_DIR) + "/models/";
const std::string kVocab = std::string(STRATA_SHARED_DIR) + "/vocab/";

GgufFile open_or_die(const std::string& path) {
  auto f = GgufFile::Open(path);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  return std::move(f).value();
}

// Every tensor's bytes lie inside the mapping and match its type and shape.
void expect_data_inside(const GgufFile& f, const std::string& path) {
  auto mapped = MappedFile::Open(path);
  ASSERT_TRUE(mapped.ok());
  for (const auto& t : f.tensors()) {
    ASSERT_NE(t.data, nullptr) << t.name;
    EXPECT_EQ(t.n_bytes, dtype_row_bytes(t.type, t.n_elements).value()) << t.name;
    EXPECT_EQ(t.file_offset % f.alignment(), 0u) << t.name;
    EXPECT_LE(t.file_offset + t.n_bytes, mapped->size()) << t.name;
    EXPECT_EQ(std::memcmp(t.data, mapped->data() + t.file_offset, t.n_bytes), 0) << t.name;
  }
}

TEST(GgufFileTest, Stories260KHasTheDocumentedShape) {
  GgufFile f = open_or_die(kModels + "stories260K.gguf");
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_uint("llama.block_count"), 5u);
  EXPECT_EQ(f.get_uint("llama.embedding_length"), 64u);
  EXPECT_EQ(f.get_uint("llama.attention.head_count"), 8u);
  EXPECT_EQ(f.get_uint("llama.attention.head_count_kv"), 4u);
  ASSERT_NE(f.get_array("tokenizer.ggml.tokens"), nullptr);
  EXPECT_EQ(f.get_array("tokenizer.ggml.tokens")->array_size(), 512u);
  const GgufTensor* embd = f.find_tensor("token_embd.weight");
  ASSERT_NE(embd, nullptr);
  EXPECT_EQ(embd->dims, (std::vector<uint64_t>{64, 512}));
  for (const auto& t : f.tensors()) EXPECT_EQ(t.type, DType::kF32) << t.name;
  EXPECT_NE(f.find_tensor("blk.4.ffn_down.weight"), nullptr);
  EXPECT_EQ(f.find_tensor("blk.5.ffn_down.weight"), nullptr);
  expect_data_inside(f, kModels + "stories260K.gguf");
}

TEST(GgufFileTest, Stories260KWeightsSumToTheDocumentedParameterCount) {
  GgufFile f = open_or_die(kModels + "stories260K.gguf");
  uint64_t n_params = 0;
  for (const auto& t : f.tensors()) n_params += t.n_elements;
  EXPECT_EQ(n_params, 292800u);
  EXPECT_EQ(f.total_tensor_bytes(), n_params * 4);
}

TEST(GgufFileTest, F16FileStoresMatricesInF16AndNormsInF32) {
  std::string path = kModels + "stories260K-f16.gguf";
  GgufFile f = open_or_die(path);
  EXPECT_EQ(f.find_tensor("blk.0.attn_q.weight")->type, DType::kF16);
  EXPECT_EQ(f.find_tensor("blk.0.attn_norm.weight")->type, DType::kF32);
  EXPECT_EQ(f.find_tensor("output_norm.weight")->type, DType::kF32);
  expect_data_inside(f, path);
}

TEST(GgufFileTest, FallbackFileMixesTheTypesItClaims) {
  std::string path = kModels + "stories260K-q4_k_m-fallback.gguf";
  GgufFile f = open_or_die(path);
  std::set<DType> types;
  for (const auto& t : f.tensors()) types.insert(t.type);
  EXPECT_EQ(types, (std::set<DType>{DType::kQ5_0, DType::kQ8_0, DType::kF16, DType::kF32}));
  expect_data_inside(f, path);
}

TEST(GgufFileTest, SameTensorsInAllThreeEncodings) {
  GgufFile a = open_or_die(kModels + "stories260K.gguf");
  GgufFile b = open_or_die(kModels + "stories260K-f16.gguf");
  GgufFile c = open_or_die(kModels + "stories260K-q4_k_m-fallback.gguf");
  ASSERT_EQ(a.tensors().size(), b.tensors().size());
  ASSERT_EQ(a.tensors().size(), c.tensors().size());
  for (const auto& t : a.tensors()) {
    ASSERT_NE(b.find_tensor(t.name), nullptr) << t.name;
    ASSERT_NE(c.find_tensor(t.name), nullptr) << t.name;
    EXPECT_EQ(b.find_tensor(t.name)->dims, t.dims);
    EXPECT_EQ(c.find_tensor(t.name)->dims, t.dims);
  }
}

TEST(GgufFileTest, VocabFilesHaveTokenizerMetadataAndNoTensors) {
  GgufFile spm = open_or_die(kVocab + "ggml-vocab-llama-spm.gguf");
  EXPECT_EQ(spm.get_string("tokenizer.ggml.model"), "llama");
  EXPECT_EQ(spm.get_array("tokenizer.ggml.tokens")->array_size(), 32000u);
  EXPECT_EQ(spm.get_array("tokenizer.ggml.scores")->array_size(), 32000u);
  EXPECT_TRUE(spm.tensors().empty());
  GgufFile gpt2 = open_or_die(kVocab + "ggml-vocab-gpt-2.gguf");
  EXPECT_EQ(gpt2.get_string("tokenizer.ggml.model"), "gpt2");
  ASSERT_NE(gpt2.get_array("tokenizer.ggml.merges"), nullptr);
  EXPECT_GT(gpt2.get_array("tokenizer.ggml.merges")->array_size(), 40000u);
}

TEST(GgufFileTest, MissingFileIsNotFound) {
  auto f = GgufFile::Open(kModels + "no-such-model.gguf");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), Code::kNotFound);
  EXPECT_NE(f.status().message().find("no-such-model.gguf"), std::string::npos);
}

TEST(GgufFileTest, TypedGettersRejectOtherKinds) {
  GgufFile f = open_or_die(kModels + "stories260K.gguf");
  EXPECT_EQ(f.get_uint("general.architecture"), std::nullopt);
  EXPECT_EQ(f.get_string("llama.block_count"), std::nullopt);
  EXPECT_EQ(f.get_uint("no.such.key"), std::nullopt);
  EXPECT_EQ(f.get_array("llama.block_count"), nullptr);
  EXPECT_DOUBLE_EQ(*f.get_float("llama.block_count"), 5.0);
}

}  // namespace
}  // namespace strata
