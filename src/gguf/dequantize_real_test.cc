// The tensor module's dequantizers against real files written by other tools: every F16,
// Q8_0 and Q5_0 tensor of the stories260K variants decodes close to the F32 original.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "gguf/gguf_file.h"
#include "tensor/quantize.h"

namespace strata {
namespace {

const std::string kRealModelsDir = std::string(STRATA_SHARED_DIR) + "/models/";

// rms(decoded - reference) / rms(reference) over every tensor of the given type.
void expect_close_to_f32(const std::string& file, DType type, double max_rel_rms) {
  auto ref = GgufFile::Open(kRealModelsDir + "stories260K.gguf");
  auto quant = GgufFile::Open(kRealModelsDir + file);
  ASSERT_TRUE(ref.ok() && quant.ok());
  int n_checked = 0;
  for (const auto& t : quant->tensors()) {
    if (t.type != type) continue;
    const GgufTensor* r = ref->find_tensor(t.name);
    ASSERT_NE(r, nullptr) << t.name;
    std::vector<float> y(t.n_elements);
    ASSERT_TRUE(dequantize_row(t.type, t.data, y.data(), y.size()).ok());
    const auto* x = reinterpret_cast<const float*>(r->data);
    double err = 0, signal = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      err += (static_cast<double>(y[i]) - x[i]) * (y[i] - x[i]);
      signal += static_cast<double>(x[i]) * x[i];
    }
    EXPECT_LE(std::sqrt(err / signal), max_rel_rms) << t.name;
    ++n_checked;
  }
  EXPECT_GT(n_checked, 0) << "no " << dtype_name(type) << " tensor in " << file;
}

TEST(DequantizeRealTest, F16MatchesTheF32Weights) { expect_close_to_f32("stories260K-f16.gguf", DType::kF16, 0.001); }

TEST(DequantizeRealTest, Q8_0MatchesTheF32Weights) {
  expect_close_to_f32("stories260K-q4_k_m-fallback.gguf", DType::kQ8_0, 0.01);
}

TEST(DequantizeRealTest, Q5_0MatchesTheF32Weights) {
  expect_close_to_f32("stories260K-q4_k_m-fallback.gguf", DType::kQ5_0, 0.06);
}

// Our own encoder reproduces the other tool's Q8_0 blocks from the F32 weights (the scale is
// amax / 127 and codes round to nearest, so at most an occasional tie differs).
TEST(DequantizeRealTest, OurQ8_0EncoderMatchesTheFileBytes) {
  auto ref = GgufFile::Open(kRealModelsDir + "stories260K.gguf");
  auto quant = GgufFile::Open(kRealModelsDir + "stories260K-q4_k_m-fallback.gguf");
  ASSERT_TRUE(ref.ok() && quant.ok());
  size_t n_bytes = 0, n_same = 0;
  for (const auto& t : quant->tensors()) {
    if (t.type != DType::kQ8_0) continue;
    std::vector<uint8_t> ours(t.n_bytes);
    ASSERT_TRUE(quantize_row(DType::kQ8_0, reinterpret_cast<const float*>(ref->find_tensor(t.name)->data),
                             ours.data(), t.n_elements).ok());
    for (size_t i = 0; i < t.n_bytes; ++i) n_same += ours[i] == t.data[i];
    n_bytes += t.n_bytes;
  }
  ASSERT_GT(n_bytes, 0u);
  EXPECT_GE(static_cast<double>(n_same) / n_bytes, 0.999);
}

}  // namespace
}  // namespace strata
