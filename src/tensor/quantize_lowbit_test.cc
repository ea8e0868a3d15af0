// The round-to-nearest encoders of Q4_1, Q5_1, Q2_K, Q3_K, IQ4_NL, IQ4_XS and MXFP4: decoding
// what they write stays within the type's error bound, and a decoded row encodes again to
// the same values and bytes (the extreme elements take the extreme codes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/quantize.h"
#include "tensor/quantize_test_rows.h"

namespace strata {
namespace {

constexpr DType kTypes[] = {DType::kQ4_1,   DType::kQ5_1,   DType::kQ2_K, DType::kQ3_K,
                            DType::kIQ4_NL, DType::kIQ4_XS, DType::kMXFP4};

using quantize_test::decode;
using quantize_test::encode;
using quantize_test::weights_row;

// RMS error over RMS signal on Gaussian rows, from the code spacing: a uniform step q has
// RMS error q / sqrt(12). Q5_1 / Q4_1 span a 32-block's range (~4.5 sigma) with 31 / 15
// steps: ~0.04 / ~0.09. IQ4_NL / IQ4_XS: levels ~1/10 of the block's max apart: ~0.1.
// Q3_K: 8 codes over +-max of 16 elements (~2 sigma, but a quarter of the sub-blocks hold an
// 8x outlier): ~0.2. Q2_K: 4 codes over 16 elements' range: ~0.35. MXFP4: 8 magnitudes
// (0 to 12) on a power-of-two scale, steps up to 4 / 12 of the top level and the top quarter
// of the scale's range clipped: ~0.15. Measured: Q5_1 0.048, Q4_1 0.097, IQ4_NL / IQ4_XS
// 0.114, MXFP4 0.153, Q3_K 0.201, Q2_K 0.382; bounds ~1.2x those.
double rms_bound(DType type) {
  switch (type) {
    case DType::kQ5_1: return 0.06;
    case DType::kQ4_1: return 0.12;
    case DType::kIQ4_NL: case DType::kIQ4_XS: return 0.13;
    case DType::kMXFP4: return 0.18;
    case DType::kQ3_K: return 0.25;
    default: return 0.45;  // Q2_K
  }
}

TEST(QuantizeLowBitTest, DecodedRowsStayWithinTheTypesErrorBound) {
  for (DType type : kTypes) {
    const std::vector<float> x = weights_row(4096, 11);
    const std::vector<float> y = decode(type, encode(type, x), x.size());
    double err = 0, signal = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      err += (static_cast<double>(y[i]) - x[i]) * (y[i] - x[i]);
      signal += static_cast<double>(x[i]) * x[i];
    }
    const double rms_rel = std::sqrt(err / signal);
    EXPECT_LT(rms_rel, rms_bound(type)) << dtype_name(type);
    RecordProperty(std::string(dtype_name(type)) + "_rms_rel", std::to_string(rms_rel));
  }
}

// Q4_1 / Q5_1: every element is within half a step of its code, the step and minimum being
// the f16 values stored (plus the f16 rounding of the minimum and the clamped top code).
TEST(QuantizeLowBitTest, Q4_1AndQ5_1ElementsAreWithinHalfAStep) {
  for (DType type : {DType::kQ4_1, DType::kQ5_1}) {
    const std::vector<float> x = weights_row(1024, 5);
    const std::vector<uint8_t> b = encode(type, x);
    const std::vector<float> y = decode(type, b, x.size());
    const size_t block_bytes = dtype_info(type).block_bytes;
    for (size_t k = 0; k < x.size() / 32; ++k) {
      uint16_t d_bits, m_bits;
      std::memcpy(&d_bits, &b[k * block_bytes], 2);
      std::memcpy(&m_bits, &b[k * block_bytes + 2], 2);
      const float d = half_to_float(d_bits), m = half_to_float(m_bits);
      float lo = x[32 * k];
      for (int i = 0; i < 32; ++i) lo = std::min(lo, x[32 * k + i]);
      const double bound = 0.5 * d * 1.02 + std::fabs(lo - m) + 1e-7;
      for (int i = 0; i < 32; ++i) {
        ASSERT_LE(std::fabs(static_cast<double>(y[32 * k + i]) - x[32 * k + i]), bound)
            << dtype_name(type) << " block " << k << " element " << i;
      }
    }
  }
}

// IQ4_NL: the levels are at most 24 apart and the block spans +-127 scale, so no element is
// more than 14 scales from its level (113 is the top level, 127 scales the extreme).
TEST(QuantizeLowBitTest, IQ4_NLElementsAreWithinHalfTheWidestGap) {
  const std::vector<float> x = weights_row(1024, 9);
  const std::vector<uint8_t> b = encode(DType::kIQ4_NL, x);
  const std::vector<float> y = decode(DType::kIQ4_NL, b, x.size());
  for (size_t k = 0; k < x.size() / 32; ++k) {
    uint16_t d_bits;
    std::memcpy(&d_bits, &b[k * sizeof(BlockIQ4_NL)], 2);
    const double bound = 14.0 * std::fabs(half_to_float(d_bits)) * 1.01 + 1e-7;
    for (int i = 0; i < 32; ++i) ASSERT_LE(std::fabs(static_cast<double>(y[32 * k + i]) - x[32 * k + i]), bound) << k;
  }
}

TEST(QuantizeLowBitTest, DecodedRowsEncodeToTheSameValuesAndBytes) {
  for (DType type : kTypes) {
    for (uint32_t seed : {1u, 2u, 3u}) {
      const std::vector<float> x = weights_row(2048, seed);
      const std::vector<uint8_t> b1 = encode(type, x);
      const std::vector<float> y1 = decode(type, b1, x.size());
      const std::vector<uint8_t> b2 = encode(type, y1);
      const std::vector<float> y2 = decode(type, b2, x.size());
      EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * sizeof(float))) << dtype_name(type) << " " << seed;
      EXPECT_EQ(b1, b2) << dtype_name(type) << " seed " << seed;
    }
  }
}

TEST(QuantizeLowBitTest, ZeroRowsStayZeroAndConstantRowsStayClose) {
  for (DType type : kTypes) {
    std::vector<float> zero(256, 0.0f);
    for (float v : decode(type, encode(type, zero), 256)) ASSERT_EQ(v, 0.0f) << dtype_name(type);
    std::vector<float> constant(256, -0.5f);
    for (float v : decode(type, encode(type, constant), 256)) ASSERT_NEAR(v, -0.5f, 0.01f) << dtype_name(type);
  }
}

TEST(QuantizeLowBitTest, EncodersAreAvailable) {
  for (DType type : kTypes) EXPECT_TRUE(can_quantize(type)) << dtype_name(type);
}

}  // namespace
}  // namespace strata
