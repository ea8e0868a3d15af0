// IQ3_XXS and IQ2_XXS super-block decoding on AVX2, shared by the single-row kernels
// (avx2_matmul_iq_row.cc) and the tile and strip decoders (avx2_iq_lattice.h): the sign sets
// and scales of a super-block's eight 32-bit aux words, and each sub-block's grid entries,
// negative-element mask and scale, the same bytes the scalar format gives.
//
// An aux word aux_j (sub-block j) holds four 7-bit sign sets at bits 0, 7, 14, 21 (the
// eighth sign of a set is the parity of its seven) and the 4-bit scale at 28. XxsAux decodes
// all eight words at once in vectors, each half of them into both 128-bit lanes; a sub-block
// then takes its sign mask from one byte shuffle, an and and a compare, and its scale from an
// immediate dword shuffle (a shuffle table in memory cost the single-row IQ3_XXS kernel 1.07x
// on the AMD Zen 5 measured: its decode is bound by vector loads and operations, so every
// memory operand counts). Scalar sign steps per set and table loads of sign multipliers
// were slower. Sub-block indices are template arguments: the shuffles take immediates, which
// a loop variable gives only once the compiler unrolls (not at -O0, nor under ASan at -O1).
//
// Internal linkage only (anonymous namespace): the header is compiled with different
// instruction sets, and a merged copy could run on a CPU without them.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/cpu/avx2_iq3s_decode.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::STRATA_SIMD {
namespace {

// The decoded aux words: [h], both 128-bit lanes, dword d describes sub-block 4h + d.
struct XxsAux {
  __m256i signs[2];   // its four full sign bytes (byte g: the 8 sign bits of group g)
  __m256i scales[2];  // its odd scale 2 * s + 1 in both int16 halves

  // aux: the eight aux words, sub-block j's in dword j.
  [[gnu::always_inline]] explicit XxsAux(__m256i aux) {
    const __m256i sets = _mm256_or_si256(
        _mm256_or_si256(_mm256_and_si256(aux, _mm256_set1_epi32(0x7f)),
                        _mm256_and_si256(_mm256_slli_epi32(aux, 1), _mm256_set1_epi32(0x7f00))),
        _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi32(aux, 2), _mm256_set1_epi32(0x7f0000)),
                        _mm256_and_si256(_mm256_slli_epi32(aux, 3), _mm256_set1_epi32(0x7f000000))));
    // Bit 7 of each byte: the parity of its 7 bits, that of (low nibble xor high three bits).
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i folded =
        _mm256_xor_si256(_mm256_and_si256(sets, nibble), _mm256_and_si256(_mm256_srli_epi16(sets, 4), nibble));
    const __m256i parity = _mm256_setr_epi8(0, -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0, 0,
                                            -128, -128, 0, -128, 0, 0, -128, -128, 0, 0, -128, 0, -128, -128, 0);
    const __m256i full = _mm256_or_si256(sets, _mm256_shuffle_epi8(parity, folded));
    const __m256i s = _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(aux, 28), 1), _mm256_set1_epi32(1));
    const __m256i both = _mm256_or_si256(s, _mm256_slli_epi32(s, 16));
    signs[0] = _mm256_permute2x128_si256(full, full, 0x00);
    signs[1] = _mm256_permute2x128_si256(full, full, 0x11);
    scales[0] = _mm256_permute2x128_si256(both, both, 0x00);
    scales[1] = _mm256_permute2x128_si256(both, both, 0x11);
  }
};

// 0xff on sub-block J's negative elements (bit e of its sign byte g: element 8g + e), else 0.
template <int J>
[[gnu::always_inline]] inline __m256i xxs_negative(const XxsAux& a) {
  return negative_from_sign_bytes<J>(a.signs);
}

// Sub-block J's odd scale in every int16 lane (madd's operand).
template <int J>
[[gnu::always_inline]] inline __m256i xxs_scale(const XxsAux& a) {
  return _mm256_shuffle_epi32(a.scales[J / 4], 0x55 * (J % 4));
}

// The aux words of an IQ3_XXS block: the 32 bytes after its 64 grid indices.
[[gnu::always_inline]] inline XxsAux iq3xxs_aux(const BlockIQ3_XXS& b) {
  return XxsAux(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + kQKK / 4)));
}

// The aux words of an IQ2_XXS block: the odd u32 of its qs (each even one holds a sub-block's
// four grid indices).
[[gnu::always_inline]] inline XxsAux iq2xxs_aux(const BlockIQ2_XXS& b) {
  const __m256 w0 = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs)));
  const __m256 w1 = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.qs + 16)));
  return XxsAux(_mm256_permute4x64_epi64(_mm256_castps_si256(_mm256_shuffle_ps(w0, w1, 0xdd)), 0xd8));
}

// IQ3_XXS sub-block J's eight 4-byte grid entries (32 magnitude bytes, element order): loaded
// by scalar-indexed broadcasts merged by blends (a gather of the same indices: 1.4x slower,
// vpinsrd or 64-bit pairs built in scalar registers: no faster).
template <int J>
[[gnu::always_inline]] inline __m256i iq3xxs_magnitudes(const BlockIQ3_XXS& b) {
  const uint32_t* g = iq::kIq3xxsGrid;
  const uint8_t* q = b.qs + 8 * J;
  const auto entry = [g](uint32_t i) { return _mm256_set1_epi32(static_cast<int>(g[i])); };
  __m256i v = _mm256_castsi128_si256(_mm_cvtsi32_si128(static_cast<int>(g[q[0]])));
  v = _mm256_blend_epi32(v, entry(q[1]), 0x02);
  v = _mm256_blend_epi32(v, entry(q[2]), 0x04);
  v = _mm256_blend_epi32(v, entry(q[3]), 0x08);
  v = _mm256_blend_epi32(v, entry(q[4]), 0x10);
  v = _mm256_blend_epi32(v, entry(q[5]), 0x20);
  v = _mm256_blend_epi32(v, entry(q[6]), 0x40);
  return _mm256_blend_epi32(v, entry(q[7]), 0x80);
}

// IQ2_XXS sub-block J's four 8-byte grid entries (indices: bytes 0-3 of its even u32).
// Unsigned indices: a signed one costs a sign extension per entry before its load.
template <int J>
[[gnu::always_inline]] inline __m256i iq2xxs_magnitudes(const BlockIQ2_XXS& b) {
  const uint64_t* g = iq::kIq2xxsGrid;
  const auto* q = reinterpret_cast<const uint8_t*>(b.qs + 4 * J);
  return _mm256_set_epi64x(static_cast<int64_t>(g[q[3]]), static_cast<int64_t>(g[q[2]]), static_cast<int64_t>(g[q[1]]),
                           static_cast<int64_t>(g[q[0]]));
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD
