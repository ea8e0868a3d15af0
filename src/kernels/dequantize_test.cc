// Weight decoding: hand-built blocks with known values (the layout facts), bit-for-bit
// agreement with the tensor module's independent decoder, and the public
// dequantize_row / check_weight_matrix behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"
#include "kernels/reference/reference.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"
#include "tensor/quantize.h"

namespace strata::kernels {
namespace {

TEST(Dequantize, Q4_0LowNibblesAreTheFirstHalf) {
  BlockQ4_0 b{};
  b.d = fp32_to_fp16(0.5f);
  for (int j = 0; j < 16; ++j) b.qs[j] = static_cast<uint8_t>(j | ((15 - j) << 4));
  float out[32];
  ASSERT_TRUE(reference::dequantize(DType::kQ4_0, &b, 32, out));
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(out[j], (j - 8) * 0.5f);
    EXPECT_EQ(out[j + 16], (7 - j) * 0.5f);
  }
}

TEST(Dequantize, Q5_0FifthBitComesFromQhBitJ) {
  BlockQ5_0 b{};
  b.d = fp32_to_fp16(1.0f);
  const uint32_t qh = 0x80000001u;  // elements 0 and 31
  std::memcpy(b.qh, &qh, 4);
  float out[32];
  ASSERT_TRUE(reference::dequantize(DType::kQ5_0, &b, 32, out));
  EXPECT_EQ(out[0], 0.0f);    // 16 - 16
  EXPECT_EQ(out[1], -16.0f);  // 0 - 16
  EXPECT_EQ(out[31], 0.0f);
  EXPECT_EQ(out[16], -16.0f);
}

TEST(Dequantize, Q4_KUsesSubBlockScalesAndMins) {
  BlockQ4_K b{};
  b.d = fp32_to_fp16(1.0f);
  b.dmin = fp32_to_fp16(0.5f);
  b.scales[0] = 2;      // sc0 = 2
  b.scales[4] = 3;      // m0 = 3
  b.scales[8] = 0x15;   // sc4 = 5 (low nibble), m4 = 1 (high nibble)
  b.qs[0] = 0x97;       // element 0: 7; element 32 (sub-block 1, sc1 = 0): 9
  b.qs[64] = 0x04;      // chunk 2: element 128 (sub-block 4): 4
  float out[256];
  ASSERT_TRUE(reference::dequantize(DType::kQ4_K, &b, 256, out));
  EXPECT_EQ(out[0], 2.0f * 7 - 1.5f);
  EXPECT_EQ(out[32], 0.0f);
  EXPECT_EQ(out[128], 5.0f * 4 - 0.5f);
}

TEST(Dequantize, Q6_KScaleIndexIsElementOver16) {
  BlockQ6_K b{};
  b.d = fp32_to_fp16(1.0f);
  for (int i = 0; i < 16; ++i) b.scales[i] = static_cast<int8_t>(i + 1);
  for (auto& q : b.ql) q = 0x11;  // low 4 bits = 1 for every element
  float out[256];
  ASSERT_TRUE(reference::dequantize(DType::kQ6_K, &b, 256, out));
  for (int e = 0; e < 256; ++e) EXPECT_EQ(out[e], (e / 16 + 1) * (1.0f - 32.0f)) << e;
}

TEST(Dequantize, MatchesTheTensorModuleBitForBit) {
  for (DType type : testing::matmul_types()) {
    testing::TestWeights w(type, 4, 512, 77);
    for (int64_t o = 0; o < 4; ++o) {
      const std::vector<float> mine = w.row_floats(o);
      std::vector<float> theirs(512);
      const auto* row = static_cast<const std::byte*>(w.matrix().data) + o * w.matrix().row_bytes;
      ASSERT_TRUE(strata::dequantize_row(type, row, theirs.data(), 512).ok()) << dtype_name(type);
      EXPECT_EQ(0, std::memcmp(mine.data(), theirs.data(), 512 * sizeof(float))) << dtype_name(type) << " row " << o;
    }
  }
}

TEST(Dequantize, RoundTripsTheTensorModuleQuantiser) {
  const std::vector<float> x = testing::random_floats(512, 5);
  for (DType type : testing::matmul_types()) {
    if (!strata::can_quantize(type)) continue;  // decoded only (quant_reference_test checks those)
    std::vector<std::byte> q(*dtype_row_bytes(type, 512));
    ASSERT_TRUE(strata::quantize_row(type, x.data(), q.data(), 512).ok()) << dtype_name(type);
    const WeightMatrix w{type, q.data(), 1, 512, q.size()};
    std::vector<float> out(512), theirs(512);
    dequantize_row(w, 0, out.data());
    ASSERT_TRUE(strata::dequantize_row(type, q.data(), theirs.data(), 512).ok());
    EXPECT_EQ(0, std::memcmp(out.data(), theirs.data(), 512 * sizeof(float))) << dtype_name(type);
  }
}

TEST(CheckWeightMatrix, NamesWhatIsWrong) {
  std::vector<std::byte> data(34 * 4);
  WeightMatrix w{DType::kQ8_0, data.data(), 2, 64, 68};
  EXPECT_TRUE(check_weight_matrix(w).ok());
  w.row_bytes = 70;
  EXPECT_NE(check_weight_matrix(w).message().find("row_bytes"), std::string::npos);
  w = {DType::kQ4_K, data.data(), 1, 64, 36};
  EXPECT_NE(check_weight_matrix(w).message().find("block size"), std::string::npos);
  w = {DType::kQ8_1, data.data(), 1, 32, 36};
  EXPECT_EQ(check_weight_matrix(w).code(), Code::kUnsupported);
  w = {DType::kTQ1_0, data.data(), 1, 256, 54};
  EXPECT_TRUE(check_weight_matrix(w).ok());
  w = {DType::kF32, nullptr, 1, 4, 16};
  EXPECT_FALSE(check_weight_matrix(w).ok());
}

TEST(Matmul, ScratchSizedUpFrontIsReusedNotReallocated) {
  for (DType type : testing::matmul_types()) {
    testing::TestWeights w(type, 8, 512, 1);
    const std::vector<float> x = testing::random_floats(4 * 512, 2);
    std::vector<float> y(4 * 8);
    AlignedBuffer scratch(matmul_scratch_bytes(type, 512, 4));
    const std::byte* before = scratch.data();
    ThreadPool pool(2);
    for (int n_rows : {4, 1, 3}) matmul(w.matrix(), x.data(), n_rows, y.data(), scratch, pool);
    EXPECT_EQ(before, scratch.data()) << dtype_name(type);
  }
}

// Every type matmul supports has SIMD kernels of its own (the last three, IQ2_S, IQ1_S and
// IQ1_M, ran on the scalar reference rows until they got theirs), so no model logs a
// reference-kernel fallback; their bits are checked in matmul_simd_oracle_test.cc. The
// super-block types quantise their activations per 256.
TEST(Matmul, EveryMatmulTypeHasSimdKernels) {
  for (DType type : testing::matmul_types()) {
    EXPECT_TRUE(matmul_supports(type)) << dtype_name(type);
    EXPECT_TRUE(matmul_has_simd_kernel(type)) << dtype_name(type);
  }
  for (DType type : {DType::kIQ2_S, DType::kIQ1_S, DType::kIQ1_M, DType::kTQ1_0, DType::kTQ2_0}) {
    EXPECT_EQ(q8_block_for(type), static_cast<int>(dtype_info(type).block_size)) << dtype_name(type);
  }
}

TEST(Matmul, InvalidMatrixGivesNanInsteadOfCrashing) {
  std::vector<std::byte> data(64);
  const WeightMatrix w{DType::kQ8_0, data.data(), 1, 48, 51};  // 48 is not a multiple of 32
  float x[48] = {}, y[1] = {0.0f};
  AlignedBuffer scratch;
  ThreadPool pool(1);
  matmul(w, x, 1, y, scratch, pool);
  EXPECT_TRUE(std::isnan(y[0]));
}

}  // namespace
}  // namespace strata::kernels
