// The tensor module's dequantizers against /work/shared/quants: every tensor of every
// qref-TYPE.gguf (written by llama.cpp's quantizer) decodes to float32 bytes whose SHA-256
// is the one reference.json records (computed by the format's reference implementation).
// A failing type also reports the first element that differs in blk.0.attn_k.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "tensor/quantize.h"

namespace strata {
namespace {

const std::string kQuants = std::string(STRATA_SHARED_DIR) + "/quants/";

std::string sha256_hex(const void* data, size_t n_bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  EVP_Digest(data, n_bytes, digest, &n, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0f];
  }
  return out;
}

const nlohmann::json& reference() {
  static const nlohmann::json j = nlohmann::json::parse(std::ifstream(kQuants + "reference.json"));
  return j;
}

std::vector<float> decode(const GgufTensor& t) {
  std::vector<float> y(t.n_elements);
  Status s = dequantize_row(t.type, t.data, y.data(), y.size());
  EXPECT_TRUE(s.ok()) << t.name << ": " << s.message();
  return y;
}

// Where blk.0.attn_k first differs from the raw float32 dump beside the file.
std::string first_difference(const std::string& type, const GgufFile& file) {
  std::ifstream in(kQuants + "qref-" + type + ".blk0_attn_k.f32", std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const GgufTensor* t = file.find_tensor("blk.0.attn_k.weight");
  if (t == nullptr || raw.size() != t->n_elements * sizeof(float)) return "(no attn_k dump to compare)";
  std::vector<float> ours = decode(*t), theirs(t->n_elements);
  std::memcpy(theirs.data(), raw.data(), raw.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    if (std::memcmp(&ours[i], &theirs[i], sizeof(float)) != 0) {
      return "attn_k element " + std::to_string(i) + ": ours " + std::to_string(ours[i]) + ", reference " +
             std::to_string(theirs[i]);
    }
  }
  return "attn_k matches";
}

class QuantReferenceTest : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantReferenceTest, EveryTensorDecodesToTheReferenceSha256) {
  const std::string type = GetParam();
  const std::string name = "qref-" + type + ".gguf";
  auto file = GgufFile::Open(kQuants + name);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_TRUE(reference().contains(name)) << name;
  int n_checked = 0, n_of_type = 0;
  for (const auto& [tensor_name, expected] : reference().at(name).items()) {
    const GgufTensor* t = file->find_tensor(tensor_name);
    ASSERT_NE(t, nullptr) << tensor_name;
    const std::vector<float> y = decode(*t);
    EXPECT_EQ(sha256_hex(y.data(), y.size() * sizeof(float)), expected.at("sha256_f32").get<std::string>())
        << name << " " << tensor_name << " (" << dtype_name(t->type) << "): " << first_difference(type, *file);
    ++n_checked;
    n_of_type += expected.at("type").get<std::string>() != "F32" ? 1 : 0;
  }
  EXPECT_EQ(n_checked, static_cast<int>(file->tensors().size()));
  EXPECT_GT(n_of_type, 0) << name << " holds no quantised tensor";
}

// Q3_K's file is llama.cpp's Q3_K_S file type (all Q3_K tensors with --pure).
INSTANTIATE_TEST_SUITE_P(AllTypes, QuantReferenceTest,
                         ::testing::Values("Q2_K", "Q3_K_S", "Q4_1", "Q5_1", "IQ4_NL", "IQ4_XS", "IQ3_S", "IQ3_XXS",
                                           "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ1_S", "IQ1_M"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace strata
