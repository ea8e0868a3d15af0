// Codebooks of the GGUF i-quant types: facts of the format, as constant data.
//
// A grid entry packs one point of the lattice, one byte per element, element 0 in the
// lowest byte: 8 unsigned magnitudes for IQ2_* (u64), 4 for IQ3_* (u32), 8 signed values in
// {-1, 0, 1} for IQ1_S / IQ1_M (u64, int8 bytes). The sign sets of IQ2_XXS / IQ2_XS /
// IQ3_XXS store 7 bits; the 8th is their parity (an even number of minus signs).
// Immutable; safe from any thread.
#pragma once

#include <cstdint>

namespace strata::iq {

extern const uint64_t kIq2xxsGrid[256];
extern const uint64_t kIq2xsGrid[512];
extern const uint64_t kIq2sGrid[1024];
extern const uint32_t kIq3xxsGrid[256];
extern const uint32_t kIq3sGrid[512];
extern const uint64_t kIq1sGrid[2048];

// IQ4_NL / IQ4_XS: the 16 non-uniform levels a 4-bit code selects.
inline constexpr int8_t kIq4nlValues[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                            1,    13,   25,  38,  53,  69,  89,  113};

// IQ1_S / IQ1_M: every grid value is shifted by +-kIq1Delta before scaling.
inline constexpr float kIq1Delta = 0.125f;

// Byte `element` of a packed grid entry.
constexpr uint8_t grid_byte(uint64_t entry, int element) { return static_cast<uint8_t>(entry >> (8 * element)); }

// The full 8-bit sign set (bit j set: element j is negative) of a 7-bit stored one.
constexpr uint8_t sign_set_from7(uint32_t bits7) {
  const uint32_t b = bits7 & 127u;
  const uint32_t parity = static_cast<uint32_t>(__builtin_popcount(b)) & 1u;
  return static_cast<uint8_t>(b | (parity << 7));
}

}  // namespace strata::iq
