// TQ1_0 and TQ2_0: the decoders against hand-built blocks (every element position, both
// parts of TQ1_0, every base-3 byte value, the f16 scale), the encoders against an independent
// transcription of ggml's reference quantizers (the same bytes), lossless round trips of
// ternary rows, and the error bound on gaussian rows.
#include <gtest/gtest.h>

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

using quantize_test::decode;
using quantize_test::encode;

// The byte ggml stores for base-3 digits (most significant first): ceil(value * 256 / 243).
uint8_t tq_byte(const std::vector<int>& digits) {
  int v = 0;
  for (int d : digits) v = v * 3 + d;
  return static_cast<uint8_t>((v * 256 + 242) / 243);
}

// A TQ1_0 block whose elements all have trit `fill` but element e, which has trit `at_e`:
// built from the layout facts (qs[m] holds elements m + 32n, qs[32 + m] 160 + m + 16n,
// qh[j] 240 + j + 4n followed by a zero trit).
BlockTQ1_0 tq1_block_with(int e, int at_e, int fill, float d) {
  auto trit = [&](int element) { return element == e ? at_e : fill; };
  BlockTQ1_0 b{};
  for (int m = 0; m < 32; ++m) b.qs[m] = tq_byte({trit(m), trit(m + 32), trit(m + 64), trit(m + 96), trit(m + 128)});
  for (int m = 0; m < 16; ++m) {
    const int base = 160 + m;
    b.qs[32 + m] = tq_byte({trit(base), trit(base + 16), trit(base + 32), trit(base + 48), trit(base + 64)});
  }
  for (int j = 0; j < 4; ++j) b.qh[j] = tq_byte({trit(240 + j), trit(244 + j), trit(248 + j), trit(252 + j), 0});
  b.d = float_to_half(d);
  return b;
}

TEST(TernaryDequantize, Tq1EveryElementPositionIncludingQh) {
  for (int e = 0; e < kBlock256; ++e) {
    for (int at_e : {0, 2}) {
      const BlockTQ1_0 b = tq1_block_with(e, at_e, 1, 0.375f);
      const std::vector<float> y = decode(DType::kTQ1_0, &b, kBlock256);
      for (int i = 0; i < kBlock256; ++i) {
        ASSERT_EQ(y[i], i == e ? (at_e - 1) * 0.375f : 0.0f) << "element " << e << " set, element " << i;
      }
    }
  }
}

// Every base-3 value a byte can store decodes to its five digits, most significant first; in
// qh the four digits before the padding zero.
TEST(TernaryDequantize, Tq1EveryByteValueDecodesToItsDigits) {
  for (int v = 0; v < 243; ++v) {
    const int digits[5] = {v / 81, v / 27 % 3, v / 9 % 3, v / 3 % 3, v % 3};
    BlockTQ1_0 b = tq1_block_with(-1, 0, 1, 1.0f);
    b.qs[7] = tq_byte({digits[0], digits[1], digits[2], digits[3], digits[4]});
    b.qs[32 + 5] = b.qs[7];
    if (v % 3 == 0) b.qh[2] = b.qs[7];  // the last digit is qh's padding zero
    const std::vector<float> y = decode(DType::kTQ1_0, &b, kBlock256);
    for (int n = 0; n < 5; ++n) {
      ASSERT_EQ(y[7 + 32 * n], digits[n] - 1.0f) << "value " << v << " digit " << n;
      ASSERT_EQ(y[165 + 16 * n], digits[n] - 1.0f) << "value " << v << " digit " << n;
      if (v % 3 == 0 && n < 4) {
        ASSERT_EQ(y[242 + 4 * n], digits[n] - 1.0f) << "qh value " << v << " digit " << n;
      }
    }
  }
}

TEST(TernaryDequantize, Tq2EveryElementPositionAndCodeThree) {
  for (int e = 0; e < kBlock256; ++e) {
    BlockTQ2_0 b{};
    std::memset(b.qs, 0x55, sizeof b.qs);  // every code 1: zero
    const int h = e / 128, l = e % 128 / 32, m = e % 32;
    for (int code : {0, 2, 3}) {
      b.qs[32 * h + m] = static_cast<uint8_t>((0x55 & ~(3 << (2 * l))) | (code << (2 * l)));
      b.d = float_to_half(-1.5f);
      const std::vector<float> y = decode(DType::kTQ2_0, &b, kBlock256);
      for (int i = 0; i < kBlock256; ++i) ASSERT_EQ(y[i], i == e ? (code - 1) * -1.5f : 0.0f) << e << " " << i;
    }
  }
}

// ggml's reference quantizers, transcribed from the format's description: uint8 arithmetic
// for the base-3 accumulation, lroundf, and ggml's element order.
std::vector<uint8_t> ggml_style_tq1(const std::vector<float>& x) {
  std::vector<uint8_t> out(x.size() / kBlock256 * sizeof(BlockTQ1_0));
  for (size_t b = 0; b < x.size() / kBlock256; ++b) {
    const float* v = x.data() + b * kBlock256;
    float amax = 0.0f;
    for (int i = 0; i < kBlock256; ++i) amax = std::max(amax, std::fabs(v[i]));
    const float id = amax != 0.0f ? 1.0f / amax : 0.0f;
    BlockTQ1_0 blk{};
    auto code = [&](int i) { return static_cast<int>(lroundf(v[i] * id)) + 1; };
    auto ceil_243 = [](uint8_t q) { return static_cast<uint8_t>((static_cast<uint16_t>(q) * 256 + 242) / 243); };
    for (int m = 0; m < 48; ++m) {
      uint8_t q = 0;
      for (int n = 0; n < 5; ++n) q = static_cast<uint8_t>(q * 3 + code(m < 32 ? m + 32 * n : 160 + (m - 32) + 16 * n));
      blk.qs[m] = ceil_243(q);
    }
    for (int j = 0; j < 4; ++j) {
      uint8_t q = 0;
      for (int n = 0; n < 4; ++n) q = static_cast<uint8_t>(q * 3 + code(240 + j + 4 * n));
      blk.qh[j] = ceil_243(static_cast<uint8_t>(q * 3));
    }
    blk.d = float_to_half(amax);
    std::memcpy(&out[b * sizeof blk], &blk, sizeof blk);
  }
  return out;
}

std::vector<uint8_t> ggml_style_tq2(const std::vector<float>& x) {
  std::vector<uint8_t> out(x.size() / kBlock256 * sizeof(BlockTQ2_0));
  for (size_t b = 0; b < x.size() / kBlock256; ++b) {
    const float* v = x.data() + b * kBlock256;
    float amax = 0.0f;
    for (int i = 0; i < kBlock256; ++i) amax = std::max(amax, std::fabs(v[i]));
    const float id = amax != 0.0f ? 1.0f / amax : 0.0f;
    BlockTQ2_0 blk{};
    for (int i = 0; i < kBlock256; ++i) {
      const int c = static_cast<int>(lroundf(v[i] * id)) + 1;
      blk.qs[i / 128 * 32 + i % 32] |= static_cast<uint8_t>(c << (2 * (i % 128 / 32)));
    }
    blk.d = float_to_half(amax);
    std::memcpy(&out[b * sizeof blk], &blk, sizeof blk);
  }
  return out;
}

// Gaussian rows, rows with ties at +-half the maximum, an all-zero block and a constant one.
std::vector<float> awkward_row() {
  std::vector<float> x = quantize_test::weights_row(6 * kBlock256, 41);
  x[kBlock256 + 1] = 1.0f;  // the maximum, so +-0.5 times 1 / max is exactly half
  for (int i = 0; i < kBlock256; i += 5) x[kBlock256 + i] = i % 2 ? 0.5f : -0.5f;
  for (int i = 0; i < kBlock256; ++i) x[2 * kBlock256 + i] = 0.0f;
  for (int i = 0; i < kBlock256; ++i) x[3 * kBlock256 + i] = -0.125f;
  return x;
}

TEST(TernaryQuantize, BytesAreThoseOfGgmlsReferenceQuantizers) {
  const std::vector<float> x = awkward_row();
  EXPECT_EQ(encode(DType::kTQ1_0, x), ggml_style_tq1(x));
  EXPECT_EQ(encode(DType::kTQ2_0, x), ggml_style_tq2(x));
}

// d * {-1, 0, 1} with d an exact f16 that is every block's largest magnitude: decoded exactly,
// and encoded again to the same bytes.
TEST(TernaryQuantize, TernaryRowsRoundTripExactly) {
  std::mt19937 rng(5);
  const float scales[] = {0.0234375f, 1.0f, 3.0e-5f, 0.6875f};
  std::vector<float> x(4 * kBlock256);
  for (int b = 0; b < 4; ++b) {
    const float d = half_to_float(float_to_half(scales[b]));
    for (int i = 0; i < kBlock256; ++i) x[b * kBlock256 + i] = d * static_cast<float>(static_cast<int>(rng() % 3) - 1);
    x[b * kBlock256 + 17] = -d;  // the largest magnitude is there whatever the draw
  }
  for (DType type : {DType::kTQ1_0, DType::kTQ2_0}) {
    const std::vector<uint8_t> bytes = encode(type, x);
    const std::vector<float> y = decode(type, bytes, x.size());
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), x.size() * sizeof(float))) << dtype_name(type);
    EXPECT_EQ(encode(type, y), bytes) << dtype_name(type);
  }
}

// Each weight becomes the nearest of -d, 0, d, d the block's maximum rounded to f16: off by
// at most half the maximum (plus d's f16 rounding). Both types decode to the same floats.
TEST(TernaryQuantize, GaussianRowsStayWithinHalfTheBlockMaximum) {
  const std::vector<float> x = quantize_test::weights_row(8 * kBlock256, 9);
  const std::vector<float> y1 = decode(DType::kTQ1_0, encode(DType::kTQ1_0, x), x.size());
  const std::vector<float> y2 = decode(DType::kTQ2_0, encode(DType::kTQ2_0, x), x.size());
  EXPECT_EQ(0, std::memcmp(y1.data(), y2.data(), x.size() * sizeof(float)));
  int zeros = 0;
  for (size_t b = 0; b < x.size() / kBlock256; ++b) {
    float amax = 0.0f;
    for (int i = 0; i < kBlock256; ++i) amax = std::max(amax, std::fabs(x[b * kBlock256 + i]));
    for (int i = 0; i < kBlock256; ++i) {
      const size_t k = b * kBlock256 + i;
      ASSERT_LE(std::fabs(y1[k] - x[k]), amax * (0.5f + 0x1p-10f)) << k;
      ASSERT_TRUE(y1[k] == 0.0f || std::fabs(y1[k]) == half_to_float(float_to_half(amax))) << k;
      zeros += y1[k] == 0.0f;
    }
  }
  // With an outlier of 8 sigma per 61 weights most weights are under half the maximum.
  EXPECT_GT(zeros, static_cast<int>(x.size()) / 2);
}

}  // namespace
}  // namespace strata
