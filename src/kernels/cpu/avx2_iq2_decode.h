// IQ2_XS and IQ2_S super-block decoding on AVX2, shared by the single-row kernels
// (avx2_matmul_iq_row.cc) and the tile and strip decoders (avx2_iq_lattice.h): each
// sub-block's grid entries, negative-element mask and pair of scales, the same bytes the
// scalar format gives.
//
// Both formats keep a 4-bit scale per 16 elements (a byte of two nibbles per sub-block).
// A super-block's sign bytes are decoded (IQ2_XS: 7-bit sets completed with their parity
// bits in vectors) or loaded (IQ2_S: plain bytes) once into IQ3_S's sign layout
// (negative_from_sign_bytes, avx2_iq3s_decode.h), and its scales spread into dwords once,
// so a sub-block takes its mask from one byte shuffle, an and and a compare, and its scales
// from one immediate dword shuffle. Sub-block indices are template arguments: the shuffles
// take immediates, which a loop variable gives only once the compiler unrolls.
//
// Internal linkage only (anonymous namespace): the header is compiled with different
// instruction sets, and a merged copy could run on a CPU without them.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/cpu/avx2_iq3s_decode.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::STRATA_SIMD {
namespace {

// A super-block's sign bytes (IQ3_S's layout) and scales: [h], dword d describes sub-block
// 4h + d, in the low 128-bit lane the scale of its elements 0-15, in the high one that of
// 16-31 (2 * ls + 1, in both int16 halves of the dword).
struct Iq2Parts {
  __m256i signs[2];
  __m256i scales[2];
};

// The odd scales of 8 bytes of nibble pairs (sub-block j: byte j, low nibble elements 0-15).
[[gnu::always_inline]] inline void iq2_scales(const uint8_t* scales, __m256i (&out)[2]) {
  uint64_t packed;
  std::memcpy(&packed, scales, sizeof packed);
  const __m128i raw = _mm_cvtsi64_si128(static_cast<int64_t>(packed));
  const __m128i m = _mm_set1_epi8(0x0f);
  // Words 0-7 the low nibbles' scales, 8-15 the high ones', then each doubled into a dword.
  const __m256i s16 =
      _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(_mm_and_si128(raw, m), _mm_and_si128(_mm_srli_epi16(raw, 4), m)));
  const __m256i odd = _mm256_add_epi16(_mm256_add_epi16(s16, s16), _mm256_set1_epi16(1));
  out[0] = _mm256_unpacklo_epi16(odd, odd);
  out[1] = _mm256_unpackhi_epi16(odd, odd);
}

// Sub-block J's scales as madd's operand: elements 0-15 (low lane) and 16-31 (high lane).
template <int J>
[[gnu::always_inline]] inline __m256i iq2_scale(const Iq2Parts& p) {
  return _mm256_shuffle_epi32(p.scales[J / 4], 0x55 * (J % 4));
}

template <int J>
[[gnu::always_inline]] inline __m256i iq2_negative(const Iq2Parts& p) {
  return negative_from_sign_bytes<J>(p.signs);
}

// Full sign sets of 16 u16 whose bits 9-15 hold a 7-bit set, in the low byte of each word:
// the parity of the 7 bits (that of their low nibble xor the high three) becomes bit 7.
[[gnu::always_inline]] inline __m256i full_sign_sets(__m256i q) {
  const __m256i sets = _mm256_srli_epi16(q, 9);
  const __m256i parity = _mm256_setr_epi8(0, -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0, 0,
                                          -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0);
  return _mm256_or_si256(sets, _mm256_shuffle_epi8(parity, _mm256_xor_si256(sets, _mm256_srli_epi16(q, 13))));
}

[[gnu::always_inline]] inline Iq2Parts iq2xs_parts(const BlockIQ2_XS& b) {
  Iq2Parts p;
  const __m256i q0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs));
  const __m256i q1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 16));
  // packus leaves the sign bytes of sub-blocks 0, 1, 4, 5 in the low 128-bit lane and 2, 3,
  // 6, 7 in the high one, a qword per pair; the qword permutes put 0-3, then 4-7, in both lanes.
  const __m256i packed = _mm256_packus_epi16(full_sign_sets(q0), full_sign_sets(q1));
  p.signs[0] = _mm256_permute4x64_epi64(packed, 0x88);
  p.signs[1] = _mm256_permute4x64_epi64(packed, 0xdd);
  iq2_scales(b.scales, p.scales);
  return p;
}

[[gnu::always_inline]] inline Iq2Parts iq2s_parts(const BlockIQ2_S& b) {
  Iq2Parts p;
  p.signs[0] = _mm256_broadcastsi128_si256(load_128(b.qs + kQKK / 8));
  p.signs[1] = _mm256_broadcastsi128_si256(load_128(b.qs + kQKK / 8 + 16));
  iq2_scales(b.scales, p.scales);
  return p;
}

// Four 8-element grid entries. Unsigned indices: a signed one costs a sign extension per
// entry before its load (measured 9% of an IQ2_S super-block).
[[gnu::always_inline]] inline __m256i grid64(const uint64_t* grid, uint32_t i0, uint32_t i1, uint32_t i2, uint32_t i3) {
  return _mm256_set_epi64x(static_cast<int64_t>(grid[i3]), static_cast<int64_t>(grid[i2]),
                           static_cast<int64_t>(grid[i1]), static_cast<int64_t>(grid[i0]));
}

// Sub-block J's grid magnitudes (32 unsigned bytes, element order).
template <int J>
[[gnu::always_inline]] inline __m256i iq2xs_magnitudes(const BlockIQ2_XS& b) {
  const uint16_t* q = b.qs + 4 * J;
  return grid64(iq::kIq2xsGrid, q[0] & 511u, q[1] & 511u, q[2] & 511u, q[3] & 511u);
}
template <int J>
[[gnu::always_inline]] inline __m256i iq2s_magnitudes(const BlockIQ2_S& b) {
  // Group l takes bits 2l, 2l + 1 of qh[J] as index bits 8 and 9.
  const uint32_t qh = b.qh[J];
  const uint8_t* q = b.qs + 4 * J;
  return grid64(iq::kIq2sGrid, q[0] | ((qh << 8) & 0x300u), q[1] | ((qh << 6) & 0x300u), q[2] | ((qh << 4) & 0x300u),
                q[3] | ((qh << 2) & 0x300u));
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD
