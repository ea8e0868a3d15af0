// On-disk layouts of the GGUF block-quantised types that quantize.h encodes and decodes.
// Little-endian, packed, no padding; the static_asserts pin the sizes to dtype.cc.
// Pure data.
#pragma once

#include <cstdint>

namespace strata {

inline constexpr int kBlock32 = 32;    // elements per Q8_0 / Q4_0 / Q5_0 block
inline constexpr int kBlock256 = 256;  // elements per K-quant super-block

struct BlockQ8_0 {
  uint16_t d;          // f16 scale: x = d * q
  int8_t qs[kBlock32];
};

struct BlockQ4_0 {
  uint16_t d;                // f16 scale: x = d * (q - 8)
  uint8_t qs[kBlock32 / 2];  // element j: low nibble of qs[j]; element j + 16: high nibble
};

struct BlockQ5_0 {
  uint16_t d;                // f16 scale: x = d * (q - 16)
  uint8_t qh[4];             // bit j of this little-endian u32: the 5th bit of element j
  uint8_t qs[kBlock32 / 2];  // low 4 bits, nibbles as in Q4_0
};

// Q4_K / Q5_K: 8 sub-blocks of 32; sub-block j has 6-bit scale sc_j and min m_j packed in
// scales[12]; x = (d * sc_j) * q - dmin * m_j. 64-element chunk c keeps sub-block 2c in the
// low nibbles and 2c + 1 in the high nibbles of qs[32c .. 32c + 31].
struct BlockQ4_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qs[kBlock256 / 2];
};

struct BlockQ5_K {
  uint16_t d;
  uint16_t dmin;
  uint8_t scales[12];
  uint8_t qh[kBlock256 / 8];  // qh[l] bit 2c: 5th bit of element l of sub-block 2c; bit 2c+1: of 2c+1
  uint8_t qs[kBlock256 / 2];
};

// Q6_K: 16 sub-blocks of 16 with int8 scales; x = d * scales[e / 16] * (q - 32), q 6 bits.
// Each 128-element half h: ql[64h + l] holds elements l (low) and l + 64 (high nibble),
// ql[64h + 32 + l] holds l + 32 and l + 96; qh[32h + l] bits 0-1, 2-3, 4-5, 6-7 are the top
// two bits of elements l, l + 32, l + 64, l + 96.
struct BlockQ6_K {
  uint8_t ql[kBlock256 / 2];
  uint8_t qh[kBlock256 / 4];
  int8_t scales[kBlock256 / 16];
  uint16_t d;
};

static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);

}  // namespace strata
