// Quantizers and dequantizers: byte layouts against hand-computed blocks, and error bounds
// on pseudo-random rows.
#include "tensor/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "tensor/block_layouts.h"
#include "tensor/half.h"

namespace strata {
namespace {

std::vector<uint8_t> quantize(DType type, const std::vector<float>& x) {
  std::vector<uint8_t> out(*dtype_row_bytes(type, x.size()));
  Status st = quantize_row(type, x.data(), out.data(), x.size());
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

std::vector<float> dequantize(DType type, const std::vector<uint8_t>& bytes, size_t n) {
  std::vector<float> out(n);
  Status st = dequantize_row(type, bytes.data(), out.data(), n);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

uint16_t u16_at(const std::vector<uint8_t>& b, size_t at) { return static_cast<uint16_t>(b[at] | (b[at + 1] << 8)); }

TEST(QuantizeTest, Q8_0BlockLayout) {
  std::vector<float> x(32);
  for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i * 4 - 62);  // -62..62
  x[5] = 127;                                                           // amax 127: d = 1
  auto b = quantize(DType::kQ8_0, x);
  ASSERT_EQ(b.size(), 34u);
  EXPECT_EQ(u16_at(b, 0), 0x3c00);  // f16 1.0
  for (int i = 0; i < 32; ++i) EXPECT_EQ(static_cast<int8_t>(b[2 + i]), static_cast<int>(x[i])) << i;
  EXPECT_EQ(dequantize(DType::kQ8_0, b, 32), x);
}

TEST(QuantizeTest, Q4_0BlockLayout) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j % 16 - 8);  // max magnitude -8: d = 1
  auto b = quantize(DType::kQ4_0, x);
  const uint8_t want[18] = {0x00, 0x3c, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66,
                            0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  ASSERT_EQ(b.size(), 18u);
  EXPECT_EQ(std::memcmp(b.data(), want, 18), 0);
  EXPECT_EQ(dequantize(DType::kQ4_0, b, 32), x);
}

TEST(QuantizeTest, Q4_0NibbleOrderIsFirstHalfLow) {
  std::vector<float> x(32, 0.0f);
  x[0] = -8;   // code 0 in the low nibble of byte 0
  x[16] = 7;   // code 15 in the high nibble of byte 0
  x[1] = 1;    // code 9 in the low nibble of byte 1
  auto b = quantize(DType::kQ4_0, x);
  EXPECT_EQ(b[2], 0xf0);
  EXPECT_EQ(b[3], 0x89);
}

TEST(QuantizeTest, Q5_0BlockLayout) {
  std::vector<float> x(32);
  for (int j = 0; j < 32; ++j) x[j] = static_cast<float>(j - 16);  // -16..15: d = 1, code = j
  auto b = quantize(DType::kQ5_0, x);
  ASSERT_EQ(b.size(), 22u);
  EXPECT_EQ(u16_at(b, 0), 0x3c00);
  // Codes 0..15 have no 5th bit; codes 16..31 (elements 16..31) all do.
  const uint8_t want_qh[4] = {0x00, 0x00, 0xff, 0xff};
  EXPECT_EQ(std::memcmp(b.data() + 2, want_qh, 4), 0);
  for (int j = 0; j < 16; ++j) EXPECT_EQ(b[6 + j], (j & 0x0f) | (j << 4)) << j;
  EXPECT_EQ(dequantize(DType::kQ5_0, b, 32), x);
}

TEST(QuantizeTest, Q4_KBlockLayout) {
  std::vector<float> x(256);
  for (int e = 0; e < 256; ++e) x[e] = static_cast<float>(e % 16);  // every sub-block: 0..15, min 0
  auto b = quantize(DType::kQ4_K, x);
  ASSERT_EQ(b.size(), 144u);
  EXPECT_EQ(u16_at(b, 0), 0x2410);  // d = f16(1/63): every sub-block scale is 63
  EXPECT_EQ(u16_at(b, 2), 0x0000);  // dmin = 0
  const uint8_t want_scales[12] = {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0x0f, 0x0f, 0x0f, 0x0f};
  EXPECT_EQ(std::memcmp(b.data() + 4, want_scales, 12), 0);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(b[16 + i], (i % 16) * 0x11) << i;
  float step = half_to_float(0x2410) * 63;
  auto y = dequantize(DType::kQ4_K, b, 256);
  for (int e = 0; e < 256; ++e) EXPECT_EQ(y[e], step * static_cast<float>(e % 16)) << e;
}

TEST(QuantizeTest, Q4_KScalesAndMinsOfUpperSubBlocks) {
  // Sub-block j spans [-j, 15 - j] * 2^-2... a distinct min per sub-block exercises the
  // packing of the upper four (split 4+2 bit) scales and mins.
  std::vector<float> x(256);
  for (int e = 0; e < 256; ++e) {
    int j = e / 32;
    x[e] = static_cast<float>(e % 16) * 0.25f * static_cast<float>(j + 1) - static_cast<float>(j);
  }
  auto b = quantize(DType::kQ4_K, x);
  auto y = dequantize(DType::kQ4_K, b, 256);
  for (int e = 0; e < 256; ++e) EXPECT_NEAR(y[e], x[e], 0.15f * static_cast<float>(e / 32 + 1)) << e;
}

// A block packed by hand: distinct 6-bit scales and mins, including the split 4+2-bit
// encoding of sub-blocks 4..7.
TEST(QuantizeTest, Q4_KDecodesHandPackedScalesAndMins) {
  std::vector<uint8_t> b(144, 0);
  b[0] = 0x00, b[1] = 0x3c;  // d = 1
  b[2] = 0x00, b[3] = 0x3c;  // dmin = 1
  const uint8_t scales[12] = {0x41, 0x02, 0x03, 0x04, 0x82, 0x00, 0x00, 0x00, 0x05, 0x06, 0x07, 0x08};
  std::memcpy(b.data() + 4, scales, 12);
  std::memset(b.data() + 16, 0x11, 128);  // every code is 1
  auto y = dequantize(DType::kQ4_K, b, 256);
  EXPECT_EQ(y[0], 1.0f * 1 - 2);     // sub-block 0: sc 1, m 2
  EXPECT_EQ(y[32], 2.0f);            // sub-block 1: sc 2, m 0
  EXPECT_EQ(y[64 + 31], 3.0f);       // sub-block 2
  EXPECT_EQ(y[96], 4.0f);            // sub-block 3
  EXPECT_EQ(y[128], 21.0f - 32);     // sub-block 4: sc 5 | 1 << 4, m 0 | 2 << 4
  EXPECT_EQ(y[160], 6.0f);           // sub-block 5
  EXPECT_EQ(y[255], 8.0f);           // sub-block 7
}

TEST(QuantizeTest, Q6_KDecodesSignedScales) {
  std::vector<uint8_t> b(210, 0);  // every code 0, i.e. q - 32 = -32
  for (int s = 0; s < 16; ++s) b[192 + s] = static_cast<uint8_t>(s % 2 == 0 ? s + 1 : -(s + 1));
  b[208] = 0x00, b[209] = 0x3c;  // d = 1
  auto y = dequantize(DType::kQ6_K, b, 256);
  EXPECT_EQ(y[0], -32.0f);          // scale 1
  EXPECT_EQ(y[16], 64.0f);          // scale -2
  EXPECT_EQ(y[48], 128.0f);         // scale -4
  EXPECT_EQ(y[255], 16.0f * 32);    // scale -16
}

TEST(QuantizeTest, Q5_KHighBitsLayout) {
  std::vector<float> x(256);
  for (int e = 0; e < 256; ++e) x[e] = static_cast<float>(e % 32);  // codes 0..31 per sub-block
  auto b = quantize(DType::kQ5_K, x);
  ASSERT_EQ(b.size(), 176u);
  // Element l of every sub-block has code l: its 5th bit (l >= 16) sets all 8 bits of qh[l].
  for (int l = 0; l < 32; ++l) EXPECT_EQ(b[16 + l], l >= 16 ? 0xff : 0x00) << l;
  for (int i = 0; i < 128; ++i) EXPECT_EQ(b[48 + i], (i % 16) * 0x11) << i;
  auto y = dequantize(DType::kQ5_K, b, 256);
  float step = half_to_float(u16_at(b, 0)) * 63;
  for (int e = 0; e < 256; ++e) EXPECT_EQ(y[e], step * static_cast<float>(e % 32)) << e;
}

TEST(QuantizeTest, Q6_KBlockLayout) {
  std::vector<float> x(256);
  for (int e = 0; e < 256; ++e) x[e] = static_cast<float>((e % 16) * 4 - 31);  // codes (e%16)*4 + 1
  auto b = quantize(DType::kQ6_K, x);
  ASSERT_EQ(b.size(), 210u);
  EXPECT_EQ(b[0], 0x11);    // elements 0 and 64: code 1
  EXPECT_EQ(b[15], 0xdd);   // elements 15 and 79: code 61 = 0b111101, low nibble 0xd
  EXPECT_EQ(b[47], 0xdd);   // elements 47 and 111
  EXPECT_EQ(b[128], 0x00);  // qh[0]: top bits of code 1 are 0
  EXPECT_EQ(b[128 + 15], 0xff);
  for (int s = 0; s < 16; ++s) EXPECT_EQ(static_cast<int8_t>(b[192 + s]), 127) << s;
  EXPECT_EQ(u16_at(b, 208), 0x2008);  // d = f16(1/127)
  auto y = dequantize(DType::kQ6_K, b, 256);
  float d = half_to_float(0x2008);
  for (int e = 0; e < 256; ++e) EXPECT_EQ(y[e], d * 127 * static_cast<float>((e % 16) * 4 - 31)) << e;
}

// Deterministic pseudo-random row with a few outliers, like real weights.
std::vector<float> noise_row(size_t n, uint32_t seed) {
  std::vector<float> x(n);
  uint32_t s = seed;
  for (auto& v : x) {
    s = s * 1664525u + 1013904223u;
    v = (static_cast<float>(s >> 8) / 16777216.0f - 0.5f) * 0.2f;
    if ((s & 0xff) == 7) v *= 8;
  }
  return x;
}

struct Bound {
  DType type;
  double max_rel_rms;  // rms(error) / rms(x)
};

TEST(QuantizeTest, ErrorStaysWithinTheTypeBound) {
  const Bound bounds[] = {
      {DType::kF32, 0.0},    {DType::kF16, 0.0005}, {DType::kBF16, 0.003}, {DType::kQ8_0, 0.008},
      {DType::kQ6_K, 0.025}, {DType::kQ5_0, 0.06},  {DType::kQ5_K, 0.045}, {DType::kQ4_0, 0.12},
      {DType::kQ4_K, 0.09},
  };
  auto x = noise_row(4096, 42);
  double signal = 0;
  for (float v : x) signal += static_cast<double>(v) * v;
  for (const auto& bound : bounds) {
    auto y = dequantize(bound.type, quantize(bound.type, x), x.size());
    double err = 0;
    for (size_t i = 0; i < x.size(); ++i) err += (static_cast<double>(y[i]) - x[i]) * (y[i] - x[i]);
    EXPECT_LE(std::sqrt(err / signal), bound.max_rel_rms) << dtype_name(bound.type);
  }
}

TEST(QuantizeTest, ZeroRowsStayZero) {
  for (DType type : {DType::kQ8_0, DType::kQ4_0, DType::kQ5_0, DType::kQ4_K, DType::kQ5_K, DType::kQ6_K}) {
    std::vector<float> x(256, 0.0f);
    auto y = dequantize(type, quantize(type, x), 256);
    for (float v : y) ASSERT_EQ(v, 0.0f) << dtype_name(type);
  }
}

TEST(QuantizeTest, Q8_0RequantizesToTheSameBytes) {
  auto x = noise_row(1024, 7);
  auto b = quantize(DType::kQ8_0, x);
  auto b2 = quantize(DType::kQ8_0, dequantize(DType::kQ8_0, b, x.size()));
  EXPECT_EQ(b, b2);
}

TEST(QuantizeTest, RejectsPartialBlocksAndUnknownTypes) {
  std::vector<float> x(48);
  std::vector<uint8_t> out(1024);
  Status partial = quantize_row(DType::kQ8_0, x.data(), out.data(), 40);
  EXPECT_EQ(partial.code(), Code::kInvalidArgument);
  EXPECT_NE(partial.message().find("not whole blocks of 32"), std::string::npos);
  Status unknown = dequantize_row(DType::kQ8_1, out.data(), x.data(), 256);
  EXPECT_EQ(unknown.code(), Code::kUnsupported);
  EXPECT_NE(unknown.message().find("q8_1"), std::string::npos);
  EXPECT_FALSE(can_quantize(DType::kQ8_1));
  EXPECT_TRUE(can_dequantize(DType::kIQ2_XXS));
  EXPECT_TRUE(can_dequantize(DType::kQ6_K));
}

}  // namespace
}  // namespace strata
