// f16 and bf16 conversions: exact bit patterns, rounding ties, specials, full round trips.
#include "tensor/half.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata {
namespace {

TEST(HalfTest, KnownValues) {
  EXPECT_EQ(float_to_half(0.0f), 0x0000);
  EXPECT_EQ(float_to_half(-0.0f), 0x8000);
  EXPECT_EQ(float_to_half(1.0f), 0x3c00);
  EXPECT_EQ(float_to_half(-2.0f), 0xc000);
  EXPECT_EQ(float_to_half(0.1f), 0x2e66);
  EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_half(0x1p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(0x1p-14f), 0x0400);  // smallest normal
}

TEST(HalfTest, RoundsToNearestEven) {
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f), 0x3c00);      // tie, even stays
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1p-11f), 0x3c02);  // tie, odd rounds up
  EXPECT_EQ(float_to_half(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01);
  EXPECT_EQ(float_to_half(0x1p-25f), 0x0000);             // tie at the bottom: to even (zero)
  EXPECT_EQ(float_to_half(3 * 0x1p-25f), 0x0002);
}

TEST(HalfTest, OverflowInfinityAndNan) {
  EXPECT_EQ(float_to_half(65519.0f), 0x7bff);
  EXPECT_EQ(float_to_half(65520.0f), 0x7c00);
  EXPECT_EQ(float_to_half(-1e9f), 0xfc00);
  EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
  uint16_t nan = float_to_half(NAN);
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_EQ(half_to_float(0xfc00), -INFINITY);
}

TEST(HalfTest, EveryFiniteHalfRoundTrips) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00) continue;  // Inf and NaN
    ASSERT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
}

TEST(Bf16Test, KnownValuesAndRounding) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(float_to_bf16(-2.0f), 0xc000);
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie, even
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  EXPECT_EQ(bf16_to_float(0x4049), std::bit_cast<float>(0x40490000u));
}

TEST(Bf16Test, EveryFiniteBf16RoundTrips) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7f80) == 0x7f80) continue;
    ASSERT_EQ(float_to_bf16(bf16_to_float(static_cast<uint16_t>(b))), b) << std::hex << b;
  }
}

}  // namespace
}  // namespace strata
