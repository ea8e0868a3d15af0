// The lattice i-quants' sub-block decoders (IQ3_S, IQ3_XXS, IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S,
// IQ1_M) and the tile policies built on them, shared by the tiled kernels of
// avx2_matmul_iq.cc and the strip kernels of avx2_iq_strips.h.
//
// One step is a 256-element super-block of 8 sub-blocks of 32. Decoding a sub-block gives
// 32 signed bytes (grid magnitude times sign; IQ1_S / IQ1_M 8 * grid (-1, 0, 1) plus the group's
// shift sign, +-1: the format's +-1/8, times 8) and the int16 scale of each element pair (the
// odd sub-block scale 2 * ls + 1; IQ2_XS, IQ2_S, IQ1_M have one per 16 elements). A super-block's
// scale is d_w times the format's power-of-two factor f (IQ3_S 1, IQ3_XXS 1/4, IQ2_* and IQ1_* 1/8).
//
// Everything here has internal linkage (anonymous namespace): the header is compiled with
// different instruction sets, and a merged copy could run on a CPU without them.
#pragma once

#include <cstring>
#include <utility>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/cpu/avx2_iq2_decode.h"
#include "kernels/cpu/avx2_iq3s_decode.h"
#include "kernels/cpu/avx2_iq_xxs_decode.h"
#include "kernels/kernel_table.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"

namespace strata::kernels::cpu::STRATA_SIMD {
namespace {

struct IqInput {
  const int8_t* q;
  const float* d;
};

struct IqX {
  const int8_t* q;  // the super-block's 256 activation codes
  float d;          // their scale
};

inline IqInput iq_input(const MatmulArgs& a, int r) {
  const Q8Row row = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
  return {row.q, row.d};
}

[[gnu::always_inline]] inline __m256i scale16(int s) { return _mm256_set1_epi16(static_cast<int16_t>(s)); }

// One decoded sub-block: 32 signed weights (grid magnitude times sign, |w| <= 62; IQ1 8g +- 1) and the
// int16 scale of each element pair.
struct SubBlock {
  __m256i w;
  __m256i scale;
};

// What the policies share; Derived supplies sub_block(block, j), or decode_all(block, out)
// for all 8 at once. The weights are decoded once per weight row and step (load_w) and reused
// for every input row of the tile.
template <class Derived, class Block, int kFactorInverse>
struct IqPolicy {
  using Input = IqInput;
  using X = IqX;
  using BlockType = Block;
  static constexpr int kFactorInv = kFactorInverse;
  static constexpr int64_t kElems = kQKK;
  static constexpr int kStreamRows = 2;
  static constexpr int64_t kStepBytes = sizeof(Block);
  struct W {
    SubBlock sub[8];
    float d;  // d_w times the format's power-of-two factor
  };
  static Input input(const MatmulArgs& a, int r) { return iq_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return {in.q + s * kQKK, in.d[s]}; }
  static W load_w(const std::byte* row, int64_t s) {
    const Block* b = reinterpret_cast<const Block*>(row) + s;
    W w;
    sub_blocks(*b, w.sub);
    w.d = Derived::block_d(*b) * (1.0f / kFactorInverse);
    return w;
  }
  // All 8 sub-blocks of b: Derived::decode_all where the format decodes a super-block at
  // once, else Derived::sub_block one at a time.
  [[gnu::always_inline]] static void sub_blocks(const Block& b, SubBlock (&out)[8]) {
    if constexpr (requires { Derived::decode_all(b, out); }) {
      Derived::decode_all(b, out);
    } else {
#pragma GCC unroll 8
      for (int j = 0; j < 8; ++j) out[j] = Derived::sub_block(b, j);
    }
  }
  static float block_d(const Block& b) { return load_fp16(&b.d); }
  // sum(w * x) = sum(|w| * (x * sign(w))): unsigned times signed, as maddubs needs.
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const __m256i q = w.sub[j].w;
      const __m256i dot16 = _mm256_maddubs_epi16(_mm256_abs_epi8(q), _mm256_sign_epi8(load_256(x.q + 32 * j), q));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(dot16, w.sub[j].scale));
    }
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_set1_ps(w.d * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// Four 8-element grid entries as the 32 bytes of a sub-block.
[[gnu::always_inline]] inline __m256i grid_bytes(const uint64_t* grid, const int (&index)[4]) {
  return _mm256_setr_epi64x(static_cast<int64_t>(grid[index[0]]), static_cast<int64_t>(grid[index[1]]),
                            static_cast<int64_t>(grid[index[2]]), static_cast<int64_t>(grid[index[3]]));
}

struct IQ3S : IqPolicy<IQ3S, BlockIQ3_S, 1> {
  // The super-block's indices, signs and scales are built once for its 8 sub-blocks
  // (avx2_iq3s_decode.h).
  [[gnu::always_inline]] static void decode_all(const BlockIQ3_S& b, SubBlock (&out)[8]) {
    decode_sub_blocks(iq3s_parts(b), out, std::make_integer_sequence<int, 8>{});
  }
  template <int... J>
  [[gnu::always_inline]] static void decode_sub_blocks(const Iq3sParts& p, SubBlock (&out)[8],
                                                       std::integer_sequence<int, J...>) {
    ((out[J] = {negate_where(iq3s_magnitudes<J>(p), iq3s_negative<J>(p)), iq3s_scale<J>(p)}), ...);
  }
};

// IQ3_XXS and IQ2_XXS: a super-block's aux words (signs and scales) decoded at once in
// vectors (avx2_iq_xxs_decode.h, as the single-row kernels do); the sign masks negate the
// grid magnitudes.
struct IQ3XXS : IqPolicy<IQ3XXS, BlockIQ3_XXS, 4> {
  [[gnu::always_inline]] static void decode_all(const BlockIQ3_XXS& b, SubBlock (&out)[8]) {
    decode_sub_blocks(b, iq3xxs_aux(b), out, std::make_integer_sequence<int, 8>{});
  }
  template <int... J>
  [[gnu::always_inline]] static void decode_sub_blocks(const BlockIQ3_XXS& b, const XxsAux& aux, SubBlock (&out)[8],
                                                       std::integer_sequence<int, J...>) {
    ((out[J] = {negate_where(iq3xxs_magnitudes<J>(b), xxs_negative<J>(aux)), xxs_scale<J>(aux)}), ...);
  }
};

struct IQ2XXS : IqPolicy<IQ2XXS, BlockIQ2_XXS, 8> {
  [[gnu::always_inline]] static void decode_all(const BlockIQ2_XXS& b, SubBlock (&out)[8]) {
    decode_sub_blocks(b, iq2xxs_aux(b), out, std::make_integer_sequence<int, 8>{});
  }
  template <int... J>
  [[gnu::always_inline]] static void decode_sub_blocks(const BlockIQ2_XXS& b, const XxsAux& aux, SubBlock (&out)[8],
                                                       std::integer_sequence<int, J...>) {
    ((out[J] = {negate_where(iq2xxs_magnitudes<J>(b), xxs_negative<J>(aux)), xxs_scale<J>(aux)}), ...);
  }
};

// IQ2_XS and IQ2_S: a super-block's sign bytes and scales decoded once (avx2_iq2_decode.h,
// as the single-row kernels do); the sign masks negate the grid magnitudes.
struct IQ2XS : IqPolicy<IQ2XS, BlockIQ2_XS, 8> {
  [[gnu::always_inline]] static void decode_all(const BlockIQ2_XS& b, SubBlock (&out)[8]) {
    decode_sub_blocks(b, iq2xs_parts(b), out, std::make_integer_sequence<int, 8>{});
  }
  template <int... J>
  [[gnu::always_inline]] static void decode_sub_blocks(const BlockIQ2_XS& b, const Iq2Parts& p, SubBlock (&out)[8],
                                                       std::integer_sequence<int, J...>) {
    ((out[J] = {negate_where(iq2xs_magnitudes<J>(b), iq2_negative<J>(p)), iq2_scale<J>(p)}), ...);
  }
};

// Elements 0-15 (the low 128 bits) take scale lo, 16-31 scale hi (both odd, 2 * ls + 1).
[[gnu::always_inline]] inline __m256i split_scale(int lo, int hi) {
  return _mm256_setr_m128i(_mm_set1_epi16(static_cast<int16_t>(lo)), _mm_set1_epi16(static_cast<int16_t>(hi)));
}

struct IQ2S : IqPolicy<IQ2S, BlockIQ2_S, 8> {
  [[gnu::always_inline]] static void decode_all(const BlockIQ2_S& b, SubBlock (&out)[8]) {
    decode_sub_blocks(b, iq2s_parts(b), out, std::make_integer_sequence<int, 8>{});
  }
  template <int... J>
  [[gnu::always_inline]] static void decode_sub_blocks(const BlockIQ2_S& b, const Iq2Parts& p, SubBlock (&out)[8],
                                                       std::integer_sequence<int, J...>) {
    ((out[J] = {negate_where(iq2s_magnitudes<J>(b), iq2_negative<J>(p)), iq2_scale<J>(p)}), ...);
  }
};

// IQ1 weights: 8 * g for grid bytes g in {-1, 0, 1}, plus shift, whose bytes are +1 or -1.
[[gnu::always_inline]] inline __m256i iq1_weights(const int (&index)[4], __m256i shift) {
  return _mm256_add_epi8(_mm256_sign_epi8(_mm256_set1_epi8(8), grid_bytes(iq::kIq1sGrid, index)), shift);
}

// Eight bytes of +1, or of -1 when negative (a group's shift).
[[gnu::always_inline]] inline int64_t shift_bytes(bool negative) {
  return negative ? -1 : 0x0101010101010101;
}

struct IQ1S : IqPolicy<IQ1S, BlockIQ1_S, 8> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ1_S& b, int j) {
    const int qh = b.qh[j];
    int index[4];
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) index[l] = b.qs[4 * j + l] | (((qh >> (3 * l)) & 7) << 8);
    const __m256i shift = _mm256_set1_epi64x(shift_bytes((qh & 0x8000) != 0));
    return {iq1_weights(index, shift), scale16(2 * ((qh >> 12) & 7) + 1)};
  }
};

struct IQ1M : IqPolicy<IQ1M, BlockIQ1_M, 8> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ1_M& b, int j) {
    int index[4];
    int64_t shift[4];
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) {
      // Group l's 3 high index bits and shift sign: the low (even l) or high nibble of qh[2j + l / 2].
      const int nibble = (b.qh[2 * j + l / 2] >> (4 * (l % 2))) & 0x0f;
      index[l] = b.qs[4 * j + l] | ((nibble & 7) << 8);
      shift[l] = shift_bytes((nibble & 8) != 0);
    }
    uint16_t sc;
    std::memcpy(&sc, b.scales + 2 * (j / 2), sizeof sc);
    const int bits = sc >> (6 * (j % 2));
    return {iq1_weights(index, _mm256_setr_epi64x(shift[0], shift[1], shift[2], shift[3])),
            split_scale(2 * (bits & 7) + 1, 2 * ((bits >> 3) & 7) + 1)};
  }
  // The fp16 super-block scale sits in the top nibbles of the four uint16 of scales.
  static float block_d(const BlockIQ1_M& b) {
    uint16_t sc[4];
    std::memcpy(sc, b.scales, sizeof sc);
    const auto d_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) |
                                              (sc[3] & 0xf000));
    return load_fp16(&d_bits);
  }
};

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD
