// IEEE binary16 ("f16") and bfloat16 conversions for the tensor module's quantizers.
// Stateless, header-only.
//
// float_to_half rounds to nearest-even, turns overflow into Inf and keeps NaN a NaN;
// float_to_bf16 rounds to nearest-even too (plain truncation would bias every weight
// towards zero).
#pragma once

#include <bit>
#include <cstdint>

namespace strata {

inline float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
  float magnitude = static_cast<float>(mantissa) * 0x1p-24f;  // subnormal: mantissa * 2^-24, exact
  return sign != 0 ? -magnitude : magnitude;
}

inline uint16_t float_to_half(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to Inf
  if (abs < 0x38800000u) {                                                // below 2^-14: subnormal half
    if (abs < 0x33000000u) return sign;                                   // under half of 2^-24: zero
    uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - (abs >> 23);  // 14..24: aligns the value to units of 2^-24
    uint32_t q = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (q & 1u) != 0)) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t h = (abs - ((127u - 15u) << 23)) >> 13;  // rebias; a carry into the exponent is correct
  uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u) != 0)) ++h;
  return static_cast<uint16_t>(sign | h);
}

inline float bf16_to_float(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bf16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace strata
