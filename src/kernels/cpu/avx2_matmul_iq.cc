// AVX2 matmul for the lattice i-quants IQ3_S, IQ3_XXS, IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S and
// IQ1_M against Q8 activations with one scale per 256 inputs (make_q8_row_layout(n_in, 256)).
//
// One step is a 256-element super-block of 8 sub-blocks of 32. Decoding a sub-block (once
// per weight row and step, reused for every input row of the tile): the grid entries
// (unsigned magnitudes, looked up per group of 4 or 8 elements) form 32 bytes, negated where
// the sign bits say; IQ1_S / IQ1_M weights are 8 * grid (-1, 0, 1) plus the group's shift
// sign (+-1: the format's +-1/8, times 8). Per input row, maddubs of |w| with the codes carrying w's sign, then
// madd by the sub-block's odd integer scale (2 * ls + 1; IQ2_XS, IQ2_S, IQ1_M have one per 16) give exact
// int32 lanes (lane k: elements 4k..4k+3 of each sub-block), summed over the super-block;
// then one fused multiply-add by (d_w * f) * d_x, where f is the power of two the format
// scales by (IQ3_S 1, IQ3_XXS 1/4, IQ2_* and IQ1_* 1/8). The oracle in matmul_simd_oracle_test.cc
// computes the same integers and float operations.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_matmul_iq_row.h"
#include "kernels/cpu/avx2_matmul_tile.h"
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

IqInput iq_input(const MatmulArgs& a, int r) {
  const Q8Row row = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
  return {row.q, row.d};
}

[[gnu::always_inline]] inline uint32_t load_u32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Bytes v negated where bit i of signs (byte i) is set.
[[gnu::always_inline]] inline __m256i apply_signs(__m256i v, uint32_t signs) {
  const __m256i bytes = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(signs)),
      _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i negative = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
  return _mm256_sign_epi8(v, _mm256_or_si256(negative, _mm256_set1_epi8(1)));
}

// The four 7-bit sign sets of a sub-block (bits 7l..7l+6 of bits28), each completed with
// its parity bit, as 32 sign bits.
[[gnu::always_inline]] inline uint32_t signs_from7(uint32_t bits28) {
  uint32_t out = 0;
#pragma GCC unroll 4
  for (int l = 0; l < 4; ++l) out |= static_cast<uint32_t>(iq::sign_set_from7(bits28 >> (7 * l))) << (8 * l);
  return out;
}

[[gnu::always_inline]] inline __m256i scale16(int s) { return _mm256_set1_epi16(static_cast<int16_t>(s)); }

// One decoded sub-block: 32 signed weights (grid magnitude times sign, |w| <= 62; IQ1 8g +- 1) and the
// int16 scale of each element pair.
struct SubBlock {
  __m256i w;
  __m256i scale;
};

// What the four policies share; Derived supplies sub_block(block, j). The weights are decoded
// once per weight row and step (load_w) and reused for every input row of the tile.
template <class Derived, class Block, int kFactorInverse>
struct IqPolicy {
  using Input = IqInput;
  using X = IqX;
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
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) w.sub[j] = Derived::sub_block(*b, j);
    w.d = Derived::block_d(*b) * (1.0f / kFactorInverse);
    return w;
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

// Eight 4-element grid entries, or four 8-element ones, as the 32 bytes of a sub-block.
[[gnu::always_inline]] inline __m256i grid_bytes(const uint32_t* grid, const int (&index)[8]) {
  return _mm256_setr_epi32(static_cast<int>(grid[index[0]]), static_cast<int>(grid[index[1]]),
                           static_cast<int>(grid[index[2]]), static_cast<int>(grid[index[3]]),
                           static_cast<int>(grid[index[4]]), static_cast<int>(grid[index[5]]),
                           static_cast<int>(grid[index[6]]), static_cast<int>(grid[index[7]]));
}
[[gnu::always_inline]] inline __m256i grid_bytes(const uint64_t* grid, const int (&index)[4]) {
  return _mm256_setr_epi64x(static_cast<int64_t>(grid[index[0]]), static_cast<int64_t>(grid[index[1]]),
                            static_cast<int64_t>(grid[index[2]]), static_cast<int64_t>(grid[index[3]]));
}

struct IQ3S : IqPolicy<IQ3S, BlockIQ3_S, 1> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ3_S& b, int j) {
    const uint8_t* qs = b.qs + 8 * j;
    const int qh = b.qh[j];
    int index[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) index[i] = qs[i] | ((qh << (8 - i)) & 256);  // 9th bit from qh
    const int ls = (b.scales[j / 2] >> (4 * (j % 2))) & 0x0f;
    return {apply_signs(grid_bytes(iq::kIq3sGrid, index), load_u32(b.signs + 4 * j)), scale16(2 * ls + 1)};
  }
};

struct IQ3XXS : IqPolicy<IQ3XXS, BlockIQ3_XXS, 4> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ3_XXS& b, int j) {
    const uint8_t* qs = b.qs + 8 * j;
    const uint32_t aux = load_u32(b.qs + kQKK / 4 + 4 * j);
    int index[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) index[i] = qs[i];
    return {apply_signs(grid_bytes(iq::kIq3xxsGrid, index), signs_from7(aux)),
            scale16(2 * static_cast<int>(aux >> 28) + 1)};
  }
};

struct IQ2XXS : IqPolicy<IQ2XXS, BlockIQ2_XXS, 8> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ2_XXS& b, int j) {
    const uint32_t indices = load_u32(b.qs + 4 * j);
    const uint32_t signs_scale = load_u32(b.qs + 4 * j + 2);
    int index[4];
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) index[l] = static_cast<int>((indices >> (8 * l)) & 0xff);
    const int ls = static_cast<int>(signs_scale >> 28);
    return {apply_signs(grid_bytes(iq::kIq2xxsGrid, index), signs_from7(signs_scale)), scale16(2 * ls + 1)};
  }
};

struct IQ2XS : IqPolicy<IQ2XS, BlockIQ2_XS, 8> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ2_XS& b, int j) {
    const uint16_t* q = b.qs + 4 * j;
    int index[4];
    uint32_t signs = 0;
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) {
      index[l] = q[l] & 511;
      signs |= static_cast<uint32_t>(iq::sign_set_from7(q[l] >> 9)) << (8 * l);
    }
    // Elements 0-15 (the low 128 bits) take the low nibble's scale, 16-31 the high one's.
    const auto lo = static_cast<int16_t>(2 * (b.scales[j] & 0x0f) + 1);
    const auto hi = static_cast<int16_t>(2 * (b.scales[j] >> 4) + 1);
    const __m256i scale = _mm256_setr_m128i(_mm_set1_epi16(lo), _mm_set1_epi16(hi));
    return {apply_signs(grid_bytes(iq::kIq2xsGrid, index), signs), scale};
  }
};

// Elements 0-15 (the low 128 bits) take scale lo, 16-31 scale hi (both odd, 2 * ls + 1).
[[gnu::always_inline]] inline __m256i split_scale(int lo, int hi) {
  return _mm256_setr_m128i(_mm_set1_epi16(static_cast<int16_t>(lo)), _mm_set1_epi16(static_cast<int16_t>(hi)));
}

struct IQ2S : IqPolicy<IQ2S, BlockIQ2_S, 8> {
  [[gnu::always_inline]] static SubBlock sub_block(const BlockIQ2_S& b, int j) {
    int index[4];
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) index[l] = b.qs[4 * j + l] | ((b.qh[j] << (8 - 2 * l)) & 0x300);  // 2 high bits
    const uint32_t signs = load_u32(b.qs + kQKK / 8 + 4 * j);
    return {apply_signs(grid_bytes(iq::kIq2sGrid, index), signs),
            split_scale(2 * (b.scales[j] & 0x0f) + 1, 2 * (b.scales[j] >> 4) + 1)};
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

// On the AVX-512 table of a CPU with VBMI the single-row kernels (byte-permute grid lookups)
// beat the tiled ones even for several input rows: quiet 2-thread runs on an AMD EPYC Zen 5 of
// llama-quantize's 1.1B IQ2_XS file gave 45.0 tok/s decoding one sequence but 38.8 for 8 and
// 41.1 for a 512-token prompt through the tiles. Each row's bits are the tiled kernel's
// (MatmulIqSingleRow tests), so rows may go one at a time; the outputs are walked in chunks
// small enough (64 rows, tens of KiB of weights) to stay in L2 across the input rows.
bool rows_one_at_a_time_pays() {
#if defined(STRATA_KERNELS_AVX512)
  return __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}

void rows_one_at_a_time(const MatmulArgs& args, int64_t o_begin, int64_t o_end,
                        void (*single_row)(const MatmulArgs&, int64_t, int64_t)) {
  constexpr int64_t kChunkOutputs = 64;
  for (int64_t o = o_begin; o < o_end; o += kChunkOutputs) {
    const int64_t chunk_end = std::min(o + kChunkOutputs, o_end);
    for (int r = 0; r < args.n_rows; ++r) {
      MatmulArgs one = args;
      one.n_rows = 1;
      one.x = args.x != nullptr ? args.x + static_cast<int64_t>(r) * args.w->n_in : nullptr;
      one.xq = args.xq + static_cast<size_t>(r) * args.xq_layout.row_bytes;
      one.y = args.y + static_cast<int64_t>(r) * args.w->n_out;
      single_row(one, o, chunk_end);
    }
  }
}

// The single-row kernel for one input row (or any count where that pays), else tiles.
template <class K>
void matmul_lattice(const MatmulArgs& args, int64_t o_begin, int64_t o_end,
                    void (*single_row)(const MatmulArgs&, int64_t, int64_t)) {
  if (args.n_rows == 1) return single_row(args, o_begin, o_end);
  if (rows_one_at_a_time_pays()) return rows_one_at_a_time(args, o_begin, o_end, single_row);
  matmul_rows_tiled<K>(args, o_begin, o_end);
}

}  // namespace

void matmul_iq2_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ2S>(args, o_begin, o_end, matmul_iq2_s_single_row);
}
// IQ1_S / IQ1_M have no VBMI kernel, so several input rows take the tiles on both tables,
// except two IQ1_M rows: its tiles decode a sub-block element by element, which two rows do
// not pay back (one thread, 5632 x 2048, ns per row and super-block: 13.8 one at a time vs
// 17.5-19.5 tiled; three rows break even, IQ1_S's tiles already win at two).
void matmul_iq1_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (args.n_rows == 1) return matmul_iq1_s_single_row(args, o_begin, o_end);
  matmul_rows_tiled<IQ1S>(args, o_begin, o_end);
}
void matmul_iq1_m(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (args.n_rows == 1) return matmul_iq1_m_single_row(args, o_begin, o_end);
  if (args.n_rows == 2) return rows_one_at_a_time(args, o_begin, o_end, matmul_iq1_m_single_row);
  matmul_rows_tiled<IQ1M>(args, o_begin, o_end);
}
void matmul_iq3_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ3S>(args, o_begin, o_end, matmul_iq3_s_single_row);
}
void matmul_iq3_xxs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ3XXS>(args, o_begin, o_end, matmul_iq3_xxs_single_row);
}
void matmul_iq2_xxs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ2XXS>(args, o_begin, o_end, matmul_iq2_xxs_single_row);
}
void matmul_iq2_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ2XS>(args, o_begin, o_end, matmul_iq2_xs_single_row);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
