// Single-input-row matmul (one activation row: a decode step) for the lattice i-quants on
// the AVX-512 table, for CPUs with AVX-512 VBMI (vpermb, vpermt2b, vpmultishiftqb): this
// file alone is compiled with -mavx512vbmi, and avx2_matmul_iq_row.cc calls it only after
// checking the CPU (without VBMI its own AVX2-style kernels run).
//
// A super-block's grid lookups are byte permutes instead of per-element loads: a nibble
// table holds, per grid index, two of the entry's 4-bit magnitude codes in one byte (table A
// bytes 0 and 2, table B bytes 1 and 3); vpermt2b looks up 64 indices at once in 128
// entries, blends on the higher index bits pick among the 128-entry parts, and byte unpacks
// spread A and B into 4-byte entries. The unpacks interleave within 128-bit lanes, so the
// indices go in pre-shuffled (kEntryOrder) and the entries come out in element order. Sign
// bits negate the activation codes through a k-mask (masked subtract), so the unsigned
// magnitudes feed maddubs; madd by each sub-block's odd scale, then the int32 lanes of a
// sub-block pair fold into the 8 lanes the tiled kernels sum (lane k: elements 4k..4k+3 of
// every sub-block, times its scale), and avx2_iq_row_driver.h applies their float step.
// Bit-identical to the tiled kernels (MatmulIqSingleRow tests). Stateless; safe from any
// thread (the tables are rebuilt per call from the grids, in registers or on the stack).

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/cpu/avx2_iq3s_decode.h"
#include "kernels/cpu/avx2_iq_row_driver.h"
#include "kernels/cpu/avx2_iq_strips.h"
#include "kernels/cpu/avx2_matmul_iq_row.h"
#include "tensor/block_layouts.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::avx512 {

namespace {

using Acc = __m512i;  // int32 lanes 0-7 sum even sub-blocks, 8-15 odd ones

// The int16 scale vector of sub-blocks (2p, 2p + 1): words 0-15 scale 2p, 16-31 scale 2p + 1.
[[gnu::always_inline]] inline __m512i pair_scales(__m128i odd_scales, int p) {
  const __m512i sel = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(static_cast<int16_t>(2 * p))),
                                         _mm256_set1_epi16(static_cast<int16_t>(2 * p + 1)), 1);
  return _mm512_permutexvar_epi16(sel, _mm512_castsi128_si512(odd_scales));
}

// Activation codes x (64 bytes) negated where bit e of neg is set.
[[gnu::always_inline]] inline __m512i signed_codes(const int8_t* x, uint64_t neg) {
  const __m512i v = _mm512_loadu_si512(x);
  return _mm512_mask_sub_epi8(v, static_cast<__mmask64>(neg), _mm512_setzero_si512(), v);
}

[[gnu::always_inline]] inline __m256i fold(__m512i acc) {
  return _mm256_add_epi32(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
}

// One super-block decoded: per sub-block pair p (elements 64p..64p+63) the unsigned grid
// magnitudes, the bits of the elements whose sign is negative, and the int16 scale vector.
struct VbmiDecoded {
  __m512i w[4];
  uint64_t neg[4];
  __m512i scales[4];
};

// The int32 lanes of a decoded super-block against activation codes x.
[[gnu::always_inline]] inline __m256i decoded_lanes(const VbmiDecoded& d, const int8_t* x) {
  Acc acc = _mm512_setzero_si512();
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p) {
    const __m512i xs = signed_codes(x + 64 * p, d.neg[p]);
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(d.w[p], xs), d.scales[p]));
  }
  return fold(acc);
}

// A kernel's sum() for the single-row driver: its decode(), then decoded_lanes(). Derived
// supplies decode(block, VbmiDecoded&); the strips call decode() alone.
template <class Derived>
struct DecodeThenMultiply {
  template <class Block>
  [[gnu::always_inline]] __m256i sum(const Block& blk, const int8_t* x) const {
    VbmiDecoded d;
    static_cast<const Derived&>(*this).decode(blk, d);
    return decoded_lanes(d, x);
  }
};

// kParts * 64 grid indices' nibble-pair bytes, 64 per register.
template <int kParts>
struct NibbleTable {
  __m512i part[kParts];
};

// Position p of the index vector holds entry kEntryOrder[p] = 16m + 4L + i, where
// p = 16L + 4m + i: after the unpacks, register m holds entries 16m..16m+15 in order.
struct ByteTable {
  alignas(64) uint8_t byte[64];
};
constexpr ByteTable kEntryOrder = [] {
  ByteTable o{};
  for (int p = 0; p < 64; ++p) o.byte[p] = static_cast<uint8_t>(16 * ((p % 16) / 4) + 4 * (p / 16) + p % 4);
  return o;
}();

// From 4-byte grid entries whose byte codes (byte >> kShift) are < 16:
// A = code 0 | code 2 << 4, B = code 1 | code 3 << 4.
template <int kParts, int kShift>
inline void build_nibble_tables(const uint32_t* grid, NibbleTable<kParts>& a, NibbleTable<kParts>& b) {
  const __m512i lo = _mm512_set1_epi32(0x0f);
  const __m512i hi = _mm512_set1_epi32(0xf0);
  for (int t = 0; t < kParts; ++t) {
    __m128i pa[4], pb[4];
    for (int q = 0; q < 4; ++q) {
      const __m512i u = _mm512_and_si512(_mm512_srli_epi32(_mm512_loadu_si512(grid + 64 * t + 16 * q), kShift),
                                         _mm512_set1_epi32(0x0f0f0f0f));
      pa[q] = _mm512_cvtepi32_epi8(_mm512_or_si512(_mm512_and_si512(u, lo), _mm512_and_si512(_mm512_srli_epi32(u, 12), hi)));
      pb[q] = _mm512_cvtepi32_epi8(
          _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(u, 8), lo), _mm512_and_si512(_mm512_srli_epi32(u, 20), hi)));
    }
    a.part[t] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(pa[1], pa[0])), _mm256_set_m128i(pa[3], pa[2]), 1);
    b.part[t] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(pb[1], pb[0])), _mm256_set_m128i(pb[3], pb[2]), 1);
  }
}

// Table bytes of 64 8-bit indices: low 7 bits in index, bit 7 in bit7.
[[gnu::always_inline]] inline __m512i lookup_256(const NibbleTable<4>& t, __m512i index, __mmask64 bit7) {
  const __m512i t0 = _mm512_permutex2var_epi8(t.part[0], index, t.part[1]);
  const __m512i t1 = _mm512_permutex2var_epi8(t.part[2], index, t.part[3]);
  return _mm512_mask_blend_epi8(bit7, t0, t1);
}

// Table bytes of 64 9-bit indices: low 7 bits in index, bit 7 in bit7, bit 8 in bit8.
[[gnu::always_inline]] inline __m512i lookup_512(const NibbleTable<8>& t, __m512i index, __mmask64 bit7,
                                                 __mmask64 bit8) {
  const __m512i t0 = _mm512_permutex2var_epi8(t.part[0], index, t.part[1]);
  const __m512i t1 = _mm512_permutex2var_epi8(t.part[2], index, t.part[3]);
  const __m512i t2 = _mm512_permutex2var_epi8(t.part[4], index, t.part[5]);
  const __m512i t3 = _mm512_permutex2var_epi8(t.part[6], index, t.part[7]);
  return _mm512_mask_blend_epi8(bit8, _mm512_mask_blend_epi8(bit7, t0, t1), _mm512_mask_blend_epi8(bit7, t2, t3));
}

// The 64 grid entries of a super-block (4 bytes each, in element order) from the nibble
// tables' bytes a and b of entries in kEntryOrder.
[[gnu::always_inline]] inline void spread_entries(__m512i a, __m512i b, __m512i (&entries)[4]) {
  const __m512i m = _mm512_set1_epi16(0x0f0f);
  const __m512i ab_lo = _mm512_unpacklo_epi8(a, b);  // words byte0 | byte2 << 4 | byte1 << 8 | byte3 << 12
  const __m512i ab_hi = _mm512_unpackhi_epi8(a, b);
  const __m512i l_lo = _mm512_and_si512(ab_lo, m), h_lo = _mm512_and_si512(_mm512_srli_epi16(ab_lo, 4), m);
  const __m512i l_hi = _mm512_and_si512(ab_hi, m), h_hi = _mm512_and_si512(_mm512_srli_epi16(ab_hi, 4), m);
  entries[0] = _mm512_unpacklo_epi16(l_lo, h_lo);
  entries[1] = _mm512_unpackhi_epi16(l_lo, h_lo);
  entries[2] = _mm512_unpacklo_epi16(l_hi, h_hi);
  entries[3] = _mm512_unpackhi_epi16(l_hi, h_hi);
}

struct IQ3SVbmi : DecodeThenMultiply<IQ3SVbmi> {
  using Block = BlockIQ3_S;
  static constexpr int kFactorInverse = 1;
  NibbleTable<8> a, b;
  IQ3SVbmi() { build_nibble_tables<8, 0>(iq::kIq3sGrid, a, b); }
  [[gnu::always_inline]] void decode(const Block& blk, VbmiDecoded& d) const {
    const __m512i order = _mm512_load_si512(kEntryOrder.byte);
    const __m512i index = _mm512_permutexvar_epi8(order, _mm512_loadu_si512(blk.qs));
    const __m512i high = _mm512_permutexvar_epi8(order, _mm512_movm_epi8(load_as<uint64_t>(blk.qh)));
    const __mmask64 bit7 = _mm512_movepi8_mask(index);
    const __mmask64 bit8 = _mm512_movepi8_mask(high);
    spread_entries(lookup_512(a, index, bit7, bit8), lookup_512(b, index, bit7, bit8), d.w);
    const __m128i scales = odd_scales_from_nibbles(load_as<uint32_t>(blk.scales));
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      d.neg[p] = load_as<uint64_t>(blk.signs + 8 * p);
      d.scales[p] = pair_scales(scales, p);
    }
  }
};

// The full sign set (parity bit added) of each 7-bit one, as a 128-byte vpermt2b table.
struct SignTable {
  alignas(64) uint8_t byte[128];
};
constexpr SignTable kSignsFrom7 = [] {
  SignTable t{};
  for (int i = 0; i < 128; ++i) t.byte[i] = iq::sign_set_from7(static_cast<uint32_t>(i));
  return t;
}();

// The negation masks of sub-block pairs 0-3 from the low 32 bytes of signs (one sign set
// per group of 8 elements, in element order).
[[gnu::always_inline]] inline void sign_masks(__m512i signs, uint64_t (&neg)[4]) {
  alignas(32) uint64_t out[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), _mm512_castsi512_si256(signs));
  for (int p = 0; p < 4; ++p) neg[p] = out[p];
}

// Full sign sets of the 7-bit ones in bits 0-6 of each byte (bit 7 is ignored).
[[gnu::always_inline]] inline __m512i complete_signs(__m512i sevens) {
  return _mm512_permutex2var_epi8(_mm512_load_si512(kSignsFrom7.byte), sevens, _mm512_load_si512(kSignsFrom7.byte + 64));
}

// The 32 sign bytes (one per group of 8 elements) of four u32 pairs holding four 7-bit sign
// sets each in bits 0-27: the negation masks of sub-block pairs 0-3.
[[gnu::always_inline]] inline void signs_from7(__m256i words, uint64_t (&neg)[4]) {
  const __m512i fields = _mm512_multishift_epi64_epi8(_mm512_set1_epi64(0x352e2720150e0700), _mm512_castsi256_si512(words));
  sign_masks(complete_signs(fields), neg);
}

// IQ3_XXS magnitudes: grid bytes 4, 12, ..., 52, 62 are codes byte >> 3 = 0..7.
constexpr ByteTable kIq3xxsLevels = [] {
  ByteTable t{};
  constexpr uint8_t kLevels[8] = {4, 12, 20, 28, 36, 44, 52, 62};
  for (int i = 0; i < 64; ++i) t.byte[i] = kLevels[i % 8];
  return t;
}();

struct IQ3XXSVbmi : DecodeThenMultiply<IQ3XXSVbmi> {
  using Block = BlockIQ3_XXS;
  static constexpr int kFactorInverse = 4;
  NibbleTable<4> a, b;
  IQ3XXSVbmi() { build_nibble_tables<4, 3>(iq::kIq3xxsGrid, a, b); }
  [[gnu::always_inline]] void decode(const Block& blk, VbmiDecoded& d) const {
    const __m512i index = _mm512_permutexvar_epi8(_mm512_load_si512(kEntryOrder.byte), _mm512_loadu_si512(blk.qs));
    const __mmask64 bit7 = _mm512_movepi8_mask(index);
    __m512i entries[4];
    spread_entries(lookup_256(a, index, bit7), lookup_256(b, index, bit7), entries);
    const __m256i aux = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk.qs + kQKK / 4));
    signs_from7(aux, d.neg);
    const __m128i ls = _mm256_cvtepi32_epi16(_mm256_srli_epi32(aux, 28));
    const __m128i scales = _mm_add_epi16(_mm_add_epi16(ls, ls), _mm_set1_epi16(1));
    const __m512i levels = _mm512_load_si512(kIq3xxsLevels.byte);
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      d.w[p] = _mm512_shuffle_epi8(levels, entries[p]);
      d.scales[p] = pair_scales(scales, p);
    }
  }
};

// The IQ2 grids: 8-element entries of magnitudes 8, 25, 43, i.e. codes (byte >> 4) & 3 =
// 0, 1, 2. Per grid index a 16-bit word of the 8 two-bit codes (element k in bits 2k,
// 2k + 1), split into a low-byte table (elements 0-3) and a high-byte table (4-7).
template <int kEntries>
struct CodeTables {
  alignas(64) uint8_t lo[kEntries];
  alignas(64) uint8_t hi[kEntries];
  explicit CodeTables(const uint64_t* grid) {
    const __m512i three = _mm512_set1_epi64(0x0303030303030303);
    const __m512i even_nibbles = _mm512_set1_epi64(0x000f000f000f000f);
    for (int e = 0; e < kEntries; e += 8) {
      const __m512i c = _mm512_and_si512(_mm512_srli_epi64(_mm512_loadu_si512(grid + e), 4), three);
      const __m512i pairs = _mm512_and_si512(_mm512_or_si512(c, _mm512_srli_epi64(c, 6)), even_nibbles);
      const __m512i quads = _mm512_or_si512(pairs, _mm512_srli_epi64(pairs, 12));  // bytes 0 and 4
      _mm_storel_epi64(reinterpret_cast<__m128i*>(lo + e), _mm512_cvtepi64_epi8(quads));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(hi + e), _mm512_cvtepi64_epi8(_mm512_srli_epi64(quads, 32)));
    }
  }
};

// Table bytes of 64 indices into a kEntries-byte table (128, 256, 512 or 1024): index bits
// 0-6 in index, bits 7, 8, 9 in high[0], high[1], high[2].
template <int kEntries>
[[gnu::always_inline]] inline __m512i lookup_bytes(const uint8_t* table, __m512i index, const __mmask64 (&high)[3]) {
  constexpr int kPairs = kEntries / 128;
  __m512i r[kPairs];
#pragma GCC unroll 8
  for (int i = 0; i < kPairs; ++i) {
    r[i] = _mm512_permutex2var_epi8(_mm512_load_si512(table + 128 * i), index, _mm512_load_si512(table + 128 * i + 64));
  }
  int n = kPairs;
#pragma GCC unroll 3
  for (int bit = 0; n > 1; ++bit, n /= 2) {
#pragma GCC unroll 4
    for (int i = 0; i < n / 2; ++i) r[i] = _mm512_mask_blend_epi8(high[bit], r[2 * i], r[2 * i + 1]);
  }
  return r[0];
}

// Magnitudes of the 32 entries of a super-block (entry g = bytes 0-31 of lo / hi, group g
// of 8 elements) as 4 registers of element bytes, register m = elements 64m..64m+63.
[[gnu::always_inline]] inline void expand_codes(__m512i lo, __m512i hi, __m512i (&w)[4]) {
  const __m512i levels = _mm512_set1_epi32(0x002b1908);  // codes 0, 1, 2 -> 8, 25, 43
  const __m512i shifts = _mm512_set1_epi64(0x0e0c0a0806040200);
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m) {
    // Qword q: byte 0 = lo[8m + q], byte 1 = hi[8m + q].
    const __m512i sel = _mm512_add_epi64(_mm512_setr_epi64(0x0000, 0x0101, 0x0202, 0x0303, 0x0404, 0x0505, 0x0606, 0x0707),
                                         _mm512_set1_epi64(0x4000 + 0x0101 * 8 * m));
    const __m512i words = _mm512_permutex2var_epi8(lo, sel, hi);
    w[m] = _mm512_permutexvar_epi8(_mm512_multishift_epi64_epi8(shifts, words), levels);
  }
}

// The 16 odd scales 2 * ls + 1 of 8 bytes of nibble pairs (IQ2_XS, IQ2_S: the low nibble
// scales elements 0-15 of a sub-block, the high one 16-31), in word order lo0, hi0, lo1, ...
[[gnu::always_inline]] inline __m256i odd_half_scales(uint64_t packed) {
  const __m128i raw = _mm_cvtsi64_si128(static_cast<int64_t>(packed));
  const __m128i m = _mm_set1_epi8(0x0f);
  const __m128i ls = _mm_unpacklo_epi8(_mm_and_si128(raw, m), _mm_and_si128(_mm_srli_epi16(raw, 4), m));
  const __m256i s16 = _mm256_cvtepu8_epi16(ls);
  return _mm256_add_epi16(_mm256_add_epi16(s16, s16), _mm256_set1_epi16(1));
}

// The int16 scale vector of sub-blocks (2p, 2p + 1) with a scale per 16 elements: words
// 8q..8q+7 take scale 4p + q.
[[gnu::always_inline]] inline __m512i pair_half_scales(__m256i odd_scales, int p) {
  const __m512i q = _mm512_srli_epi16(_mm512_setr_epi64(0x0000000000000000, 0x0000000000000000, 0x0008000800080008,
                                                        0x0008000800080008, 0x0010001000100010, 0x0010001000100010,
                                                        0x0018001800180018, 0x0018001800180018),
                                      3);
  return _mm512_permutexvar_epi16(_mm512_add_epi16(q, _mm512_set1_epi16(static_cast<int16_t>(4 * p))),
                                  _mm512_castsi256_si512(odd_scales));
}

// IQ2_XXS: per sub-block a u32 of four 8-bit indices, then a u32 of four 7-bit sign sets
// and the 4-bit scale.
struct IQ2XXSVbmi : DecodeThenMultiply<IQ2XXSVbmi> {
  using Block = BlockIQ2_XXS;
  static constexpr int kFactorInverse = 8;
  CodeTables<256> t{iq::kIq2xxsGrid};
  [[gnu::always_inline]] void decode(const Block& blk, VbmiDecoded& d) const {
    const __m512i qs = _mm512_loadu_si512(blk.qs);
    // Index bytes (0-3 of every 8) to the front; the aux u32s (odd dwords) to one register.
    const __m512i pick = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0x3b3a3938, 0x33323130, 0x2b2a2928, 0x23222120,
                                          0x1b1a1918, 0x13121110, 0x0b0a0908, 0x03020100);
    const __m512i index = _mm512_permutexvar_epi8(pick, qs);
    const __mmask64 high[3] = {_mm512_movepi8_mask(index), 0, 0};
    expand_codes(lookup_bytes<256>(t.lo, index, high), lookup_bytes<256>(t.hi, index, high), d.w);
    const __m256i aux = _mm512_castsi512_si256(
        _mm512_permutexvar_epi32(_mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 1, 3, 5, 7, 9, 11, 13, 15), qs));
    signs_from7(aux, d.neg);
    const __m128i ls = _mm256_cvtepi32_epi16(_mm256_srli_epi32(aux, 28));
    const __m128i odd = _mm_add_epi16(_mm_add_epi16(ls, ls), _mm_set1_epi16(1));
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) d.scales[p] = pair_scales(odd, p);
  }
};

// Byte i < 32: 2i (the low bytes of 32 u16); the rest 0.
constexpr ByteTable kEvenBytes = [] {
  ByteTable t{};
  for (int i = 0; i < 32; ++i) t.byte[i] = static_cast<uint8_t>(2 * i);
  return t;
}();

// IQ2_XS: per group of 8 a u16 of a 9-bit index and a 7-bit sign set; a 4-bit scale per 16
// elements.
struct IQ2XSVbmi : DecodeThenMultiply<IQ2XSVbmi> {
  using Block = BlockIQ2_XS;
  static constexpr int kFactorInverse = 8;
  CodeTables<512> t{iq::kIq2xsGrid};
  [[gnu::always_inline]] void decode(const Block& blk, VbmiDecoded& d) const {
    const __m512i qs = _mm512_loadu_si512(blk.qs);
    const __m512i even = _mm512_load_si512(kEvenBytes.byte);
    const __m512i odd = _mm512_add_epi8(even, _mm512_set1_epi8(1));
    const __m512i index = _mm512_permutexvar_epi8(even, qs);
    const __m512i upper = _mm512_permutexvar_epi8(odd, qs);  // index bit 8, then the sign set
    const __mmask64 high[3] = {_mm512_movepi8_mask(index), _mm512_test_epi8_mask(upper, _mm512_set1_epi8(1)), 0};
    expand_codes(lookup_bytes<512>(t.lo, index, high), lookup_bytes<512>(t.hi, index, high), d.w);
    sign_masks(complete_signs(_mm512_srli_epi16(upper, 1)), d.neg);  // bit 7 of each byte ignored
    const __m256i odd_scales = odd_half_scales(load_as<uint64_t>(blk.scales));
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) d.scales[p] = pair_half_scales(odd_scales, p);
  }
};

// IQ2_S: 10-bit indices (low bytes in qs[0..31], bits 8 and 9 of group g in bits 2g and
// 2g + 1 of qh), explicit sign bytes in qs[32..63], a 4-bit scale per 16 elements.
struct IQ2SVbmi : DecodeThenMultiply<IQ2SVbmi> {
  using Block = BlockIQ2_S;
  static constexpr int kFactorInverse = 8;
  CodeTables<1024> t{iq::kIq2sGrid};
  [[gnu::always_inline]] void decode(const Block& blk, VbmiDecoded& d) const {
    const __m512i index = _mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk.qs)));
    const __m512i even = _mm512_load_si512(kEvenBytes.byte);
    const __m512i qh_bytes = _mm512_movm_epi8(load_as<uint64_t>(blk.qh));  // byte i: bit i of qh
    const __mmask64 high[3] = {
        _mm512_movepi8_mask(index), _mm512_movepi8_mask(_mm512_permutexvar_epi8(even, qh_bytes)),
        _mm512_movepi8_mask(_mm512_permutexvar_epi8(_mm512_add_epi8(even, _mm512_set1_epi8(1)), qh_bytes))};
    expand_codes(lookup_bytes<1024>(t.lo, index, high), lookup_bytes<1024>(t.hi, index, high), d.w);
    const __m256i odd_scales = odd_half_scales(load_as<uint64_t>(blk.scales));
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      d.neg[p] = load_as<uint64_t>(blk.qs + kQKK / 8 + 8 * p);
      d.scales[p] = pair_half_scales(odd_scales, p);
    }
  }
};

// The strips' decoder (avx2_iq_strips.h) from kernel K's decode(): the magnitudes negated
// where the sign bits say, the scale vectors, and the lanes' bias from codes of 128 (the
// same maddubs and madd as the policies' decode_step, on 512-bit sub-block pairs).
template <class K>
struct VbmiStripDecoder {
  const K& k;
  void decode_rows(const MatmulArgs& a, int64_t o, int n, int64_t n_steps, DecodedStep* strip) const {
    using Block = typename K::Block;
    const __m512i codes128 = _mm512_set1_epi8(static_cast<char>(0x80));
    for (int i = 0; i < n; ++i) {
      const auto* row = reinterpret_cast<const Block*>(static_cast<const std::byte*>(a.w->data) + (o + i) * a.w->row_bytes);
      for (int64_t s = 0; s < n_steps; ++s) {
        VbmiDecoded d;
        k.decode(row[s], d);
        DecodedStep& out = strip[i * n_steps + s];
        Acc bias = _mm512_setzero_si512();
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p) {
          const __m512i w = _mm512_mask_sub_epi8(d.w[p], static_cast<__mmask64>(d.neg[p]), _mm512_setzero_si512(), d.w[p]);
          _mm512_store_si512(out.w + 64 * p, w);
          _mm512_store_si512(out.scale[2 * p], d.scales[p]);
          bias = _mm512_add_epi32(bias, _mm512_madd_epi16(_mm512_maddubs_epi16(codes128, w), d.scales[p]));
        }
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.neg_bias), _mm256_sub_epi32(_mm256_setzero_si256(), fold(bias)));
        out.d = block_scale<K>(row[s]) * (1.0f / K::kFactorInverse);
      }
    }
  }
};

template <class K>
void strips_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  const K k;
  matmul_rows_strips_with(args, o_begin, o_end, VbmiStripDecoder<K>{k});
}

}  // namespace

void matmul_iq3_s_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  strips_vbmi<IQ3SVbmi>(args, o_begin, o_end);
}
void matmul_iq3_xxs_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  strips_vbmi<IQ3XXSVbmi>(args, o_begin, o_end);
}
void matmul_iq2_xxs_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  strips_vbmi<IQ2XXSVbmi>(args, o_begin, o_end);
}
void matmul_iq2_xs_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  strips_vbmi<IQ2XSVbmi>(args, o_begin, o_end);
}
void matmul_iq2_s_vbmi_strips(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  strips_vbmi<IQ2SVbmi>(args, o_begin, o_end);
}

void matmul_iq2_xs_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ2XSVbmi(), args, o_begin, o_end);
}

void matmul_iq2_s_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ2SVbmi(), args, o_begin, o_end);
}

void matmul_iq2_xxs_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ2XXSVbmi(), args, o_begin, o_end);
}

void matmul_iq3_xxs_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ3XXSVbmi(), args, o_begin, o_end);
}

void matmul_iq3_s_vbmi(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_single_row(IQ3SVbmi(), args, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
