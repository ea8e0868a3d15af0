// The gguf-info report: abbreviated arrays and strings, tensor rows, totals, fallbacks.
#include "gguf/gguf_describe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

#include "gguf/file_type.h"
#include "gguf/gguf_writer.h"

namespace strata {
namespace {

const std::string kDescribedModelsDir = std::string(STRATA_SHARED_DIR) + "/models/";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(GgufDescribeTest, LongArraysShowTheFirstItemsAndTheCount) {
  GgufValue v = GgufValue::I32Array({1, 2, 3, 4, 5, 6, 7});
  DescribeOptions options;
  options.max_array_items = 3;
  EXPECT_EQ(format_gguf_value(v, options), "[1, 2, 3, ... (7 items)]");
  EXPECT_EQ(format_gguf_value(GgufValue::I32Array({1, 2}), options), "[1, 2]");
}

TEST(GgufDescribeTest, StringsAreQuotedEscapedAndCut) {
  DescribeOptions options;
  options.max_string_bytes = 6;
  EXPECT_EQ(format_gguf_value(GgufValue::String("a\"b\n\x01"), options), "\"a\\\"b\\n\\x01\"");
  EXPECT_EQ(format_gguf_value(GgufValue::String("abcdefghij"), options), "\"abcdef\"... (10 bytes)");
  EXPECT_EQ(format_gguf_value(GgufValue::Bool(true), options), "true");
  EXPECT_EQ(format_gguf_value(GgufValue::F32(0.5f), options), "0.5");
}

TEST(GgufDescribeTest, Stories260KReport) {
  auto f = GgufFile::Open(kDescribedModelsDir + "stories260K.gguf");
  ASSERT_TRUE(f.ok());
  std::string text = describe_gguf(*f, DescribeOptions{});
  EXPECT_TRUE(contains(text, "GGUF version 3")) << text;
  EXPECT_TRUE(contains(text, "\"<unk>\", \"<s>\", \"</s>\", \"<0x00>\", \"<0x01>\", ... (512 items)]"));
  EXPECT_TRUE(contains(text, "llama.block_count"));
  EXPECT_TRUE(contains(text, "token_embd.weight"));
  EXPECT_TRUE(contains(text, "64 x 512"));
  EXPECT_TRUE(contains(text, "totals: 48 tensors, 292800 elements, 1171200 bytes"));
  EXPECT_FALSE(contains(text, "fallback"));
}

TEST(GgufDescribeTest, FallbackFileNamesItsFallbacks) {
  auto f = GgufFile::Open(kDescribedModelsDir + "stories260K-q4_k_m-fallback.gguf");
  ASSERT_TRUE(f.ok());
  std::string text = describe_gguf(*f, DescribeOptions{});
  EXPECT_TRUE(contains(text, "file type Q4_K_M"));
  EXPECT_TRUE(contains(text, "fallback: width 172 is not whole q4_K blocks of 256"));
  EXPECT_TRUE(contains(text, "matrices fell back from q4_K"));
}

// An F32 matrix (a router, a delta-net's 4-tap ssm_conv1d) was left unquantized, not a fallback;
// a narrow Q8_0 one under Q4_K_M is.
TEST(GgufDescribeTest, UnquantizedF32MatricesAreNotFallbacks) {
  const std::string path = ::testing::TempDir() + "strata-describe-f32-" + std::to_string(::getpid()) + ".gguf";
  GgufWriter w;
  w.set("general.file_type", GgufValue::U32(15));
  w.add_tensor_bytes("blk.0.ssm_conv1d.weight", DType::kF32, {4, 8}, std::vector<uint8_t>(4 * 8 * 4));
  w.add_tensor_bytes("blk.0.attn_q.weight", DType::kQ8_0, {32, 2}, std::vector<uint8_t>(2 * 34));
  ASSERT_TRUE(w.write(path).ok());
  auto f = GgufFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  const std::string text = describe_gguf(*f, DescribeOptions{});
  std::remove(path.c_str());
  EXPECT_FALSE(contains(text, "fallback: width 4 ")) << text;
  EXPECT_TRUE(contains(text, "fallback: width 32 is not whole q4_K blocks of 256")) << text;
  EXPECT_TRUE(contains(text, "1 matrices fell back from q4_K")) << text;
}

TEST(FileTypeTest, NamesAndMainTypes) {
  EXPECT_EQ(file_type_name(15), "Q4_K_M");
  EXPECT_EQ(file_type_main_dtype(15), DType::kQ4_K);
  EXPECT_EQ(file_type_name(999), "unknown");
  EXPECT_EQ(file_type_for(DType::kQ4_K, true), 15u);
  EXPECT_EQ(file_type_for(DType::kQ8_0, false), 7u);
  EXPECT_EQ(file_type_for(DType::kF32, false), 0u);
}

}  // namespace
}  // namespace strata
