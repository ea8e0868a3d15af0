// Scalar IEEE half and bfloat16 conversions. Stateless, header-only.
//
// fp32_to_fp16 rounds to nearest-even and keeps NaN/Inf, so it matches the F16C
// instruction (vcvtps2ph with imm 0) bit-for-bit; tests rely on that to compare the scalar
// and SIMD K/V stores with memcmp. `static inline`: see quant_blocks.h (mixed-ISA files).
#pragma once

#include <cstdint>
#include <cstring>

namespace strata::kernels {

static inline float bits_to_float(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

static inline uint32_t float_to_bits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

static inline float fp16_to_fp32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_to_float(sign | 0x7f800000u | (mant << 13));
  if (exp != 0) return bits_to_float(sign | ((exp + 112) << 23) | (mant << 13));
  // Subnormal half: mant * 2^-24, exact in float.
  const float magnitude = static_cast<float>(mant) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

static inline uint16_t fp32_to_fp16(float f) {
  const uint32_t bits = float_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((abs >> 13) & 0x3ffu));  // NaN stays quiet NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520: Inf
  if (abs < 0x38800000u) {
    // Result is subnormal (or zero): round abs * 2^24 to an integer, nearest-even.
    if (abs < 0x33000000u) return sign;  // below half the smallest subnormal
    const uint32_t exp = abs >> 23;
    const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - exp;  // in [14, 24]
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias exponent, round the 13 dropped mantissa bits to nearest-even.
  uint32_t h = ((abs - 0x38000000u) >> 13);
  const uint32_t rem = abs & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

static inline float bf16_to_fp32(uint16_t b) { return bits_to_float(static_cast<uint32_t>(b) << 16); }

}  // namespace strata::kernels
