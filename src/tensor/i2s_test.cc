#include "tensor/i2s.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/quantize.h"

namespace strata {
namespace {

// An I2_S tensor of codes (one per element, 0..3) with the given scale, laid out as bitnet.cpp
// writes it: per 128 elements 32 bytes, element 32 g + j at bits 6 - 2 g of byte j; then the scale.
std::vector<std::byte> i2s_bytes(const std::vector<uint8_t>& codes, float scale) {
  std::vector<std::byte> out(*dtype_tensor_bytes(DType::kI2_S, codes.size()));
  for (size_t e = 0; e < codes.size(); ++e) {
    const size_t block = e / 128, g = e % 128 / 32, j = e % 32;
    auto& b = reinterpret_cast<uint8_t&>(out[block * 32 + j]);
    b = static_cast<uint8_t>(b | codes[e] << (6 - 2 * g));
  }
  std::memcpy(out.data() + codes.size() / 4, &scale, sizeof scale);
  return out;
}

// Every element of a 512-element tensor, read as TQ2_0 and decoded, is (code - 1) * scale.
TEST(I2s, ReadsAsTq2_0HoldingTheSameValues) {
  std::mt19937 rng(7);
  std::vector<uint8_t> codes(512);
  for (uint8_t& c : codes) c = static_cast<uint8_t>(rng() % 3);
  codes[5] = 3;  // outside the ternary set, but I2_S and TQ2_0 both read it as 2
  const float scale = 1.8125f;
  const std::vector<std::byte> src = i2s_bytes(codes, scale);
  EXPECT_EQ(src.size(), 512u / 4 + 32);
  std::vector<std::byte> tq(*dtype_row_bytes(DType::kTQ2_0, codes.size()));
  ASSERT_TRUE(i2s_to_tq2_0(src.data(), codes.size(), tq.data()).ok());
  std::vector<float> values(codes.size());
  ASSERT_TRUE(dequantize_row(DType::kTQ2_0, tq.data(), values.data(), codes.size()).ok());
  for (size_t e = 0; e < codes.size(); ++e) {
    ASSERT_EQ(values[e], (static_cast<float>(codes[e]) - 1.0f) * scale) << "element " << e;
  }
}

// A scale that fp16 cannot hold exactly, or rows that are not whole TQ2_0 blocks, are refused by name.
TEST(I2s, RefusesWhatTq2_0CannotHoldExactly) {
  const std::vector<uint8_t> codes(256, 2);
  std::vector<std::byte> tq(66);
  Status s = i2s_to_tq2_0(i2s_bytes(codes, 0.1f).data(), codes.size(), tq.data());
  EXPECT_EQ(s.code(), Code::kUnsupported);
  EXPECT_NE(s.message().find("not exactly an fp16 value"), std::string::npos) << s.message();
  const std::vector<uint8_t> short_codes(128, 1);
  s = i2s_to_tq2_0(i2s_bytes(short_codes, 1.0f).data(), short_codes.size(), tq.data());
  EXPECT_NE(s.message().find("128 elements are not whole blocks of 256"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace strata
