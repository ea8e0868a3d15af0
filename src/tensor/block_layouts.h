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

// Q4_1 / Q5_1: x = d * q + m with unsigned codes (4 or 5 bits), nibbles as in Q4_0 / Q5_0.
struct BlockQ4_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qs[kBlock32 / 2];
};

struct BlockQ5_1 {
  uint16_t d;
  uint16_t m;
  uint8_t qh[4];  // as in Q5_0
  uint8_t qs[kBlock32 / 2];
};

// Q2_K: 16 sub-blocks of 16; scales[s] holds sub-block s's 4-bit scale (low nibble) and
// min (high nibble); x = (d * sc) * q - dmin * m, q 2 bits. Each 128-element half h reads
// qs[32h .. 32h + 31]: bits 2j..2j+1 of qs[32h + l] are element 32j + l of the half.
struct BlockQ2_K {
  uint8_t scales[kBlock256 / 16];
  uint8_t qs[kBlock256 / 4];
  uint16_t d;
  uint16_t dmin;
};

// Q3_K: 16 sub-blocks of 16 with 6-bit scales (offset by 32) packed in scales[12];
// x = (d * (sc - 32)) * (q - 4 * !hbit), q the 2 low bits laid out as in Q2_K; bit
// 4h + j of hmask[l] is the high bit of element 32j + l of half h (hmask[l + 16] likewise
// for 32j + 16 + l).
struct BlockQ3_K {
  uint8_t hmask[kBlock256 / 8];
  uint8_t qs[kBlock256 / 4];
  uint8_t scales[12];
  uint16_t d;
};

// IQ4_NL: x = d * kIq4nlValues[code], nibbles as in Q4_0.
struct BlockIQ4_NL {
  uint16_t d;
  uint8_t qs[kBlock32 / 2];
};

// MXFP4: x = kMxfp4Values[code] * mxfp4_scale(e) (mxfp4.h: e is the E8M0 exponent, the
// levels doubled E2M1 values), nibbles as in Q4_0.
struct BlockMXFP4 {
  uint8_t e;
  uint8_t qs[kBlock32 / 2];
};

// IQ4_XS: 8 sub-blocks of 32 with 6-bit scales (low 4 bits in scales_l nibbles, high 2
// bits in scales_h), x = (d * (ls - 32)) * kIq4nlValues[code]; each sub-block's 16 bytes
// of qs are nibbles as in Q4_0.
struct BlockIQ4_XS {
  uint16_t d;
  uint16_t scales_h;
  uint8_t scales_l[kBlock256 / 64];
  uint8_t qs[kBlock256 / 2];
};

// The lattice i-quants (grids in iq_grids.h). Per 32 elements ("ib32"), four groups of 8.
// IQ2_XXS: per ib32 two u32: four 8-bit grid indices, then four 7-bit sign sets + a 4-bit scale.
struct BlockIQ2_XXS {
  uint16_t d;
  uint16_t qs[kBlock256 / 8];
};

// IQ2_XS: per group a u16: 9-bit grid index, 7-bit sign set; a 4-bit scale per 16 elements.
struct BlockIQ2_XS {
  uint16_t d;
  uint16_t qs[kBlock256 / 8];
  uint8_t scales[kBlock256 / 32];
};

// IQ2_S: 10-bit grid indices (8 low bits in qs[0..31], 2 high bits in qh), 8-bit sign
// sets in qs[32..63], a 4-bit scale per 16 elements.
struct BlockIQ2_S {
  uint16_t d;
  uint8_t qs[kBlock256 / 4];
  uint8_t qh[kBlock256 / 32];
  uint8_t scales[kBlock256 / 32];
};

// IQ3_XXS: 8-bit indices into a grid of 4 magnitudes (qs[0..63]), then per ib32 a u32 of
// four 7-bit sign sets + a 4-bit scale.
struct BlockIQ3_XXS {
  uint16_t d;
  uint8_t qs[3 * kBlock256 / 8];
};

// IQ3_S: 9-bit indices into a grid of 4 magnitudes (high bits in qh), 8-bit sign sets, a
// 4-bit scale per 32 elements.
struct BlockIQ3_S {
  uint16_t d;
  uint8_t qs[kBlock256 / 4];
  uint8_t qh[kBlock256 / 32];
  uint8_t signs[kBlock256 / 8];
  uint8_t scales[kBlock256 / 64];
};

// IQ1_S: 11-bit indices into a grid of {-1, 0, 1} octets (8 low bits in qs, 3 in qh);
// qh[ib32] also holds a 3-bit scale (bits 12-14) and the sign of the shift (bit 15).
struct BlockIQ1_S {
  uint16_t d;
  uint8_t qs[kBlock256 / 8];
  uint16_t qh[kBlock256 / 32];
};

// IQ1_M: like IQ1_S with a shift sign per group of 8 and a 3-bit scale per 16 elements;
// the f16 super-block scale is spread over the top nibbles of the four u16 of scales.
struct BlockIQ1_M {
  uint8_t qs[kBlock256 / 8];
  uint8_t qh[kBlock256 / 16];
  uint8_t scales[kBlock256 / 32];
};

// TQ1_0 (BitNet b1.58's ternary weights, 1.6875 bits each): x = d * (t - 1), t a trit (0..2).
// Each byte packs trits base 3, the first trit most significant, stored as the fraction
// ceil(v * 256 / 243) of its base-3 value v; trit n of byte q is ((uint8(q * 3^n)) * 3) >> 8.
// qs[m] (m < 32) holds elements m + 32n (n = 0..4), qs[32 + m] (m < 16) elements 160 + m + 16n,
// qh[j] elements 240 + j + 4n (n = 0..3, the value shifted up one trit first).
struct BlockTQ1_0 {
  uint8_t qs[48];
  uint8_t qh[4];
  uint16_t d;
};

// TQ2_0: x = d * (c - 1), c 2 bits (0..2 in files ggml writes; a 3 decodes to 2). Each
// 128-element half h reads qs[32h .. 32h + 31]: bits 2l..2l+1 of qs[32h + m] are element
// 128h + 32l + m.
struct BlockTQ2_0 {
  uint8_t qs[kBlock256 / 4];
  uint16_t d;
};

static_assert(sizeof(BlockQ8_0) == 34);
static_assert(sizeof(BlockQ4_0) == 18);
static_assert(sizeof(BlockQ5_0) == 22);
static_assert(sizeof(BlockQ4_K) == 144);
static_assert(sizeof(BlockQ5_K) == 176);
static_assert(sizeof(BlockQ6_K) == 210);
static_assert(sizeof(BlockQ4_1) == 20);
static_assert(sizeof(BlockQ5_1) == 24);
static_assert(sizeof(BlockQ2_K) == 84);
static_assert(sizeof(BlockQ3_K) == 110);
static_assert(sizeof(BlockIQ4_NL) == 18);
static_assert(sizeof(BlockMXFP4) == 17);
static_assert(sizeof(BlockIQ4_XS) == 136);
static_assert(sizeof(BlockIQ2_XXS) == 66);
static_assert(sizeof(BlockIQ2_XS) == 74);
static_assert(sizeof(BlockIQ2_S) == 82);
static_assert(sizeof(BlockIQ3_XXS) == 98);
static_assert(sizeof(BlockIQ3_S) == 110);
static_assert(sizeof(BlockIQ1_S) == 50);
static_assert(sizeof(BlockIQ1_M) == 56);
static_assert(sizeof(BlockTQ1_0) == 54);
static_assert(sizeof(BlockTQ2_0) == 66);

}  // namespace strata
