// MXFP4 against its definition (mxfp4.h): every block decodes, byte for byte, to the float
// of kMxfp4Values[code] * 2^(e - 128) computed in float64, for every exponent byte 0..255
// (e = 255 is 2^127 here, as in ggml, not NaN); encoding is exact for the blocks it can
// represent and keeps each element within its nearest level's reach.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tensor/block_layouts.h"
#include "tensor/mxfp4.h"
#include "tensor/quantize.h"
#include "tensor/quantize_test_rows.h"

namespace strata {
namespace {

using quantize_test::decode;
using quantize_test::encode;

// The doubled E2M1 value of a code, from its bits (sign, 2-bit exponent, 1-bit mantissa), not
// from the table under test: 2 * (exponent 0: mantissa * 0.5, else (1 + mantissa / 2) *
// 2^(exponent - 1)). Both zeros are +0, as ggml's integer table has them.
double doubled_e2m1(int code) {
  const int exponent = (code >> 1) & 3, mantissa = code & 1;
  const double magnitude = exponent == 0 ? mantissa * 0.5 : (1.0 + mantissa * 0.5) * std::ldexp(1.0, exponent - 1);
  if (magnitude == 0) return 0.0;
  return (code & 8) != 0 ? -2.0 * magnitude : 2.0 * magnitude;
}

// n blocks of random codes, block k with exponent byte e_of(k).
template <class ExponentOf>
std::vector<uint8_t> random_blocks(size_t n, uint32_t seed, ExponentOf e_of) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(n * sizeof(BlockMXFP4));
  for (size_t k = 0; k < n; ++k) {
    BlockMXFP4 b;
    b.e = e_of(k);
    for (uint8_t& q : b.qs) q = static_cast<uint8_t>(rng());
    std::memcpy(&bytes[k * sizeof b], &b, sizeof b);
  }
  return bytes;
}

TEST(Mxfp4Test, LevelsAreTheDoubledE2M1Values) {
  for (int code = 0; code < 16; ++code) EXPECT_EQ(doubled_e2m1(code), kMxfp4Values[code]) << code;
}

TEST(Mxfp4Test, ScaleIsTwoToTheExponentLess128ForEveryByte) {
  for (int e = 0; e < 256; ++e) {
    const float want = static_cast<float>(std::ldexp(1.0, e - 128));
    EXPECT_EQ(std::bit_cast<uint32_t>(want), std::bit_cast<uint32_t>(mxfp4_scale(static_cast<uint8_t>(e)))) << e;
  }
  EXPECT_EQ(0x00200000u, std::bit_cast<uint32_t>(mxfp4_scale(0)));  // 2^-128, subnormal
  EXPECT_EQ(0x00400000u, std::bit_cast<uint32_t>(mxfp4_scale(1)));  // 2^-127, subnormal
  EXPECT_EQ(0x00800000u, std::bit_cast<uint32_t>(mxfp4_scale(2)));  // 2^-126, the smallest normal
  EXPECT_EQ(0x7f000000u, std::bit_cast<uint32_t>(mxfp4_scale(255)));  // 2^127 (OCP: NaN)
}

TEST(Mxfp4Test, BlocksOfEveryExponentDecodeToTheirFloat64Values) {
  // 8 blocks per exponent byte, so every (e, code) pair appears many times.
  const size_t n_blocks = 256 * 8;
  const std::vector<uint8_t> bytes = random_blocks(n_blocks, 7, [](size_t k) { return static_cast<uint8_t>(k % 256); });
  const std::vector<float> y = decode(DType::kMXFP4, bytes, n_blocks * 32);
  for (size_t k = 0; k < n_blocks; ++k) {
    BlockMXFP4 b;
    std::memcpy(&b, &bytes[k * sizeof b], sizeof b);
    for (int i = 0; i < 32; ++i) {
      const int code = i < 16 ? b.qs[i] & 0x0f : b.qs[i - 16] >> 4;
      // Beyond FLT_MAX (e >= 253 with the larger levels) the float is +-Inf.
      const auto want = static_cast<float>(doubled_e2m1(code) * std::ldexp(1.0, b.e - 128));
      ASSERT_EQ(std::bit_cast<uint32_t>(want), std::bit_cast<uint32_t>(y[32 * k + i]))
          << "e " << int{b.e} << " code " << code << ": " << y[32 * k + i] << " vs " << want;
    }
  }
}

TEST(Mxfp4Test, EdgeExponentsDecodeAsGgmlDoes) {
  BlockMXFP4 b{};
  b.qs[0] = 0x21;  // element 0: code 1 (level 1), element 16: code 2 (level 2)
  b.qs[1] = 0xa8;  // element 1: code 8 (level 0, +0), element 17: code 10 (level -2)
  struct Want {
    uint8_t e;
    float x0, x16, x17;
  };
  const float inf = std::numeric_limits<float>::infinity();
  for (const Want& w : {Want{0, 0x1p-128f, 0x1p-127f, -0x1p-127f}, Want{1, 0x1p-127f, 0x1p-126f, -0x1p-126f},
                        Want{2, 0x1p-126f, 0x1p-125f, -0x1p-125f}, Want{254, 0x1p126f, 0x1p127f, -0x1p127f},
                        Want{255, 0x1p127f, inf, -inf}}) {
    b.e = w.e;
    float y[32];
    ASSERT_TRUE(dequantize_row(DType::kMXFP4, &b, y, 32).ok());
    EXPECT_EQ(w.x0, y[0]) << int{w.e};
    EXPECT_EQ(w.x16, y[16]) << int{w.e};
    EXPECT_EQ(0u, std::bit_cast<uint32_t>(y[1])) << int{w.e};  // +0, never -0
    EXPECT_EQ(w.x17, y[17]) << int{w.e};
  }
}

// Blocks with exponents 0..252 (those whose every level decodes finite) encode to their own
// values; and to their own bytes when the largest level is 8 or 12 in magnitude and no code
// is 8 (level 0 as -0, which encodes as code 0).
TEST(Mxfp4Test, RepresentableBlocksEncodeExactly) {
  const size_t n_blocks = 253 * 4;
  std::vector<uint8_t> bytes = random_blocks(n_blocks, 3, [](size_t k) { return static_cast<uint8_t>(k % 253); });
  const std::vector<float> y = decode(DType::kMXFP4, bytes, n_blocks * 32);
  const std::vector<float> again = decode(DType::kMXFP4, encode(DType::kMXFP4, y), n_blocks * 32);
  ASSERT_EQ(0, std::memcmp(y.data(), again.data(), y.size() * sizeof(float)));

  for (size_t k = 0; k < n_blocks; ++k) {
    auto* b = reinterpret_cast<BlockMXFP4*>(&bytes[k * sizeof(BlockMXFP4)]);
    for (uint8_t& q : b->qs) {
      if ((q & 0x0f) == 8) q = static_cast<uint8_t>(q & 0xf0);
      if ((q >> 4) == 8) q = static_cast<uint8_t>(q & 0x0f);
    }
    b->qs[k % 16] = static_cast<uint8_t>((b->qs[k % 16] & 0xf0) | (k % 2 == 0 ? 0x07 : 0x0e));  // level 12 or -8
  }
  EXPECT_EQ(bytes, encode(DType::kMXFP4, decode(DType::kMXFP4, bytes, n_blocks * 32)));
}

// The scale makes the largest magnitude 8 to 16 scales: an element up to 12 scales is within
// half the widest gap between levels (8 to 12: 2 scales) of its level, one beyond clips to 12
// (under 4 scales away).
TEST(Mxfp4Test, ElementsAreWithinTheirLevelsReach) {
  const std::vector<float> x = quantize_test::weights_row(4096, 13);
  const std::vector<uint8_t> b = encode(DType::kMXFP4, x);
  const std::vector<float> y = decode(DType::kMXFP4, b, x.size());
  for (size_t k = 0; k < x.size() / 32; ++k) {
    const double scale = mxfp4_scale(b[k * sizeof(BlockMXFP4)]);
    double amax = 0;
    for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(static_cast<double>(x[32 * k + i])));
    ASSERT_GE(amax / scale, 8.0) << k;
    ASSERT_LT(amax / scale, 16.0) << k;
    for (int i = 0; i < 32; ++i) {
      const double xi = x[32 * k + i], err = std::fabs(y[32 * k + i] - xi);
      ASSERT_LE(err, std::fabs(xi) <= 12 * scale ? 2 * scale : 4 * scale) << "block " << k << " element " << i;
    }
  }
}

TEST(Mxfp4Test, TinyAndHugeBlocksTakeTheNearestExponent) {
  std::vector<float> x(64, 0.0f);
  x[3] = 0x1p-140f;    // under 2^-125: the smallest scale, e = 0
  x[40] = 0x1.8p127f;  // 1.5 * 2^127: e = 252, level 12
  const std::vector<uint8_t> b = encode(DType::kMXFP4, x);
  EXPECT_EQ(0, b[0]);
  EXPECT_EQ(252, b[sizeof(BlockMXFP4)]);
  const std::vector<float> y = decode(DType::kMXFP4, b, 64);
  EXPECT_EQ(0.0f, y[3]);  // 2^-140 is far under half of 2^-128
  EXPECT_EQ(x[40], y[40]);
}

}  // namespace
}  // namespace strata
