// Scales and signs shared by the lattice i-quant encoders (quantize_iq_lattice*.cc).
//
// Every lattice type stores an f16 super-block scale d and a small code per sub-block (16 or
// 32 elements); the sub-block's scale is d * (base + step * code) * mult, evaluated in that
// order so it equals the decoder's float bit for bit. Round to nearest: each sub-block wants
// the scale that puts its largest magnitude on the grid's top level; d gives the largest of
// those the largest code, and each sub-block takes the code nearest its wish.
// Stateless, header-only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tensor/half.h"

namespace strata::iq {

struct SubScaleRule {
  float base, step, mult;
  int max_code;

  float scale(float d, int code) const { return d * (base + step * static_cast<float>(code)) * mult; }

  // f16 bits of d for sub-block wishes `wanted` (all >= 0).
  uint16_t super_scale(const float* wanted, int n) const {
    const float largest = *std::max_element(wanted, wanted + n);
    return float_to_half(largest / ((base + step * static_cast<float>(max_code)) * mult));
  }

  int code(float wanted, float d) const {
    if (!(d > 0)) return 0;
    const long c = std::lround((wanted / (d * mult) - base) / step);
    return static_cast<int>(std::clamp(c, 0L, static_cast<long>(max_code)));
  }
};

inline float max_magnitude(const float* x, int n) {
  float m = 0;
  for (int i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
  return m;
}

// Bit j set where x[j] is negative, for j < n (n <= 8).
inline uint8_t sign_bits(const float* x, int n) {
  unsigned bits = 0;
  for (int j = 0; j < n; ++j) bits |= (x[j] < 0 ? 1u : 0u) << j;
  return static_cast<uint8_t>(bits);
}

// The sign bits of 8 elements made even (the 7-bit sign sets store the 8th as parity) by
// flipping the element where a flip costs least: the smallest |x_j| * magnitude_j (the
// squared error grows by 4 |x_j| magnitude_j scale); the first such element on ties.
inline uint8_t even_sign_bits(const float* x, const float* magnitude) {
  uint8_t bits = sign_bits(x, 8);
  if ((__builtin_popcount(bits) & 1) == 0) return bits;
  int cheapest = 0;
  for (int j = 1; j < 8; ++j) {
    if (std::fabs(x[j]) * magnitude[j] < std::fabs(x[cheapest]) * magnitude[cheapest]) cheapest = j;
  }
  return static_cast<uint8_t>(bits ^ (1u << cheapest));
}

}  // namespace strata::iq
