// IQ3_S super-block decoding on AVX2 shared by the single-row kernel (avx2_matmul_iq_row.cc)
// and the tile and strip decoder (avx2_iq_lattice.h): the 64 grid indices, the grid entries
// of a sub-block, its sign masks and its scale, each the same bytes the scalar format gives.
//
// On the AMD Zen 5 this was measured on, the IQ3_S decode is bound by its vector operations
// and loads, not by scalar work: so the 9-bit indices are built for the whole super-block in
// four vectors (not per group in scalar registers: 4 scalar operations and a byte load per
// group) and moved to scalar registers four at a time by vmovq (read back from the stack
// instead: 1.1x slower), the sign bytes are loaded once per super-block (not a broadcast per
// sub-block), and the scales are spread by immediate dword shuffles (no shuffle table).
// Together 1.17x the single-row kernel's former speed (one thread, 256 x 2048 in L2).
// Sub-block indices are template arguments: the shuffles take immediates, which a loop
// variable gives only once the compiler unrolls (not at -O0, nor under ASan at -O1).
//
// Internal linkage only (anonymous namespace): the header is compiled with different
// instruction sets, and a merged copy could run on a CPU without them.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::STRATA_SIMD {
namespace {

// What a super-block's sub-blocks are decoded from: the grid indices (sub-block j's eight
// in the 128-bit half j % 2 of index[j / 2], as u16), its sign bytes (bytes 0-15, then 16-31,
// in both 128-bit halves) and the odd scales 2 * ls + 1 (sub-blocks 0-3, then 4-7, each
// twice in dword j % 4 of both halves).
struct Iq3sParts {
  __m256i index[4];
  __m256i signs[2];
  __m256i scales[2];
};

// The eight odd sub-block scales 2 * ls + 1 of a block whose 4-bit ls are the nibbles of
// four bytes (sub-block 2i the low nibble of byte i, 2i + 1 the high one), as int16 lanes.
[[gnu::always_inline]] inline __m128i odd_scales_from_nibbles(uint32_t packed) {
  const __m128i raw = _mm_cvtsi32_si128(static_cast<int>(packed));
  const __m128i m = _mm_set1_epi8(0x0f);
  const __m128i ls = _mm_unpacklo_epi8(_mm_and_si128(raw, m), _mm_and_si128(_mm_srli_epi16(raw, 4), m));
  const __m128i s16 = _mm_cvtepu8_epi16(ls);
  return _mm_add_epi16(_mm_add_epi16(s16, s16), _mm_set1_epi16(1));
}

[[gnu::always_inline]] inline Iq3sParts iq3s_parts(const BlockIQ3_S& b) {
  Iq3sParts p;
  uint64_t qh64;
  std::memcpy(&qh64, b.qh, sizeof qh64);
  const __m256i qh = _mm256_set1_epi64x(static_cast<int64_t>(qh64));
  // Word l of a 16-index vector (group l % 8 of its sub-block) takes bit l % 8 of that
  // sub-block's qh byte: masked to 1 << (8 + l % 8), then min'd with 256 to become index bit 8.
  const __m256i bit = _mm256_setr_epi16(0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000, -0x8000, 0x100, 0x200,
                                        0x400, 0x800, 0x1000, 0x2000, 0x4000, -0x8000);
  const __m256i bit8 = _mm256_set1_epi16(0x100);
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    // The qh byte of sub-block 2k in the high byte of each word of the low half, 2k + 1's in the high one.
    const char a = static_cast<char>(2 * k), c = static_cast<char>(2 * k + 1), z = static_cast<char>(0x80);
    const __m256i spread = _mm256_setr_epi8(z, a, z, a, z, a, z, a, z, a, z, a, z, a, z, a, z, c, z, c, z, c, z, c, z,
                                            c, z, c, z, c, z, c);
    const __m256i high = _mm256_min_epu16(_mm256_and_si256(_mm256_shuffle_epi8(qh, spread), bit), bit8);
    const __m256i low = _mm256_cvtepu8_epi16(load_128(b.qs + 16 * k));
    p.index[k] = _mm256_or_si256(low, high);
  }
  p.signs[0] = _mm256_broadcastsi128_si256(load_128(b.signs));
  p.signs[1] = _mm256_broadcastsi128_si256(load_128(b.signs + 16));
  uint32_t packed;
  std::memcpy(&packed, b.scales, sizeof packed);
  const __m128i odd = odd_scales_from_nibbles(packed);
  const __m128i lo = _mm_unpacklo_epi16(odd, odd), hi = _mm_unpackhi_epi16(odd, odd);
  p.scales[0] = _mm256_set_m128i(lo, lo);
  p.scales[1] = _mm256_set_m128i(hi, hi);
  return p;
}

// The eight grid entries (4 magnitude bytes each) of u16 indices idx, by scalar loads of
// the table merged by broadcasts and blends (a gather of the same indices: 1.25x slower).
[[gnu::always_inline]] inline __m256i iq3s_grid_entries(__m128i idx) {
  const uint32_t* g = iq::kIq3sGrid;
  const auto lo = static_cast<uint64_t>(_mm_cvtsi128_si64(idx));
  const auto hi = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(idx, idx)));
  const auto entry = [g](uint64_t v) { return _mm256_set1_epi32(static_cast<int>(g[v & 0xffff])); };
  __m256i v = _mm256_castsi128_si256(_mm_cvtsi32_si128(static_cast<int>(g[lo & 0xffff])));
  v = _mm256_blend_epi32(v, entry(lo >> 16), 0x02);
  v = _mm256_blend_epi32(v, entry(lo >> 32), 0x04);
  v = _mm256_blend_epi32(v, entry(lo >> 48), 0x08);
  v = _mm256_blend_epi32(v, entry(hi), 0x10);
  v = _mm256_blend_epi32(v, entry(hi >> 16), 0x20);
  v = _mm256_blend_epi32(v, entry(hi >> 32), 0x40);
  return _mm256_blend_epi32(v, entry(hi >> 48), 0x80);
}

// Sub-block J's grid magnitudes (32 unsigned bytes, element order).
template <int J>
[[gnu::always_inline]] inline __m256i iq3s_magnitudes(const Iq3sParts& p) {
  const __m128i idx = J % 2 == 0 ? _mm256_castsi256_si128(p.index[J / 2]) : _mm256_extracti128_si256(p.index[J / 2], 1);
  return iq3s_grid_entries(idx);
}

// 0xff on sub-block J's negative elements, else 0, from sign bytes laid out as IQ3_S keeps
// them: signs[J / 4], both 128-bit lanes, byte 4 (J % 4) + g holds the 8 sign bits of group g
// (bit e: element 8g + e). IQ3_XXS, IQ2_XXS, IQ2_XS and IQ2_S decode theirs to this layout.
template <int J>
[[gnu::always_inline]] inline __m256i negative_from_sign_bytes(const __m256i (&signs)[2]) {
  constexpr char b = static_cast<char>(4 * (J % 4)), c = static_cast<char>(b + 1), e = static_cast<char>(b + 2),
                 f = static_cast<char>(b + 3);
  const __m256i spread = _mm256_setr_epi8(b, b, b, b, b, b, b, b, c, c, c, c, c, c, c, c,  //
                                          e, e, e, e, e, e, e, e, f, f, f, f, f, f, f, f);
  const __m256i bytes = _mm256_shuffle_epi8(signs[J / 4], spread);
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  return _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
}

// 0xff on sub-block J's negative elements (bit e of sign byte 4J + g: element 8g + e), else 0.
template <int J>
[[gnu::always_inline]] inline __m256i iq3s_negative(const Iq3sParts& p) {
  return negative_from_sign_bytes<J>(p.signs);
}

// Sub-block J's odd scale in every int16 lane (madd's operand).
template <int J>
[[gnu::always_inline]] inline __m256i iq3s_scale(const Iq3sParts& p) {
  return _mm256_shuffle_epi32(p.scales[J / 4], 0x55 * (J % 4));
}

// Bytes v negated where negative is 0xff.
[[gnu::always_inline]] inline __m256i negate_where(__m256i v, __m256i negative) {
  return _mm256_sub_epi8(_mm256_xor_si256(v, negative), negative);
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD
