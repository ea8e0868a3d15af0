// AVX2 matmul over the packed IQ4_NL and MXFP4 layouts (packed_iq4nl.h), for CPUs without
// AVX-512: the weights stream as one contiguous run per row group, and a code line is turned
// into levels once for every input row of the tile. The two types share the kernel; only the
// levels and the conversion of a half's 8 scales (fp16 d; MXFP4's bf16) differ.
//
// A 256-bit register holds one float lane of 8 output rows, so a tile row keeps 2 x 8
// accumulators (the two 8-row halves of the group, the 8 lanes of the unpacked kernels'
// arithmetic); they wait in memory. A code line's half, masked and shifted, gives the codes
// of lanes c and c + 4 for 8 rows, a byte shuffle their signed levels. maddubs needs an
// unsigned operand, so it takes |level| against x carrying the level's sign: a pair adds at
// most 2 * 127 * 127 = 32258, exact in int16, and one madd widens the lane's two pairs to
// its exact int32 dot. The float steps are reference::matmul_packed_iq4_nl_rows' (_mxfp4_rows'),
// lane by lane and block by block, with its lane sum at the store, so the bits equal the
// oracle's (and the AVX-512 kernel's, and the unpacked kernels') for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd takes the place of maddubs and
// madd (signed_dot); the same int32 dot, so the same bits. (Levels + 128 as vpdpbusd's
// unsigned operand, with -128 times each lane's activation sum as its start, as the AVX-512
// kernel does, needs those 8 sums per row and block as broadcasts: GCC kept them in
// registers and extracted each with vpextrd, and the kernel ran 3-12% slower than AVX2's at
// 4-64 rows, BM_MatmulHot iq4_nl 256x2048.)
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_iq4nl.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// One input row's accumulators for a group's 16 rows: lane[h][k] holds float lane k of rows
// 8h .. 8h + 7.
struct LaneAcc {
  __m256 lane[2][8];
};

// The exact int32 dot of signed levels q (|q| given as abs_q) with x, 4 inputs per int32 lane:
// |q| against x carrying q's sign, as the unsigned and signed operands want. AVX2: maddubs
// (a pair adds at most 2 * 127 * 127, exact in int16) and a madd; AVX-VNNI: one vpdpbusd.
inline __m256i signed_dot(__m256i abs_q, __m256i q, __m256i x) {
#if defined(STRATA_KERNELS_AVX2_VNNI)
  return _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), abs_q, _mm256_sign_epi8(x, q));
#else
  return _mm256_madd_epi16(_mm256_maddubs_epi16(abs_q, _mm256_sign_epi8(x, q)), _mm256_set1_epi16(1));
#endif
}

// What the two layouts differ in: the levels and a half's 8 scales.
struct PackedIQ4NLFormat {
  static __m256i levels() { return iq4_levels(); }
  static __m256 scales8(const std::byte* blk, int h) { return fp16x8(blk + 16 * h); }  // rows 8h .. 8h + 7
};

struct PackedMXFP4Format {
  static __m256i levels() { return mxfp4_levels(); }
  static __m256 scales8(const std::byte* blk, int h) {  // bf16: the floats' top halves
    const __m256i bf16 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16 * h)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(bf16, 16));
  }
};

template <class Format>
struct PackedLevels4 {
  using Acc = LaneAcc;
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedIQ4NLBlockBytes;  // = kPackedMXFP4BlockBytes
  static constexpr int64_t kPrefetchBytes = 8 * kBlockBytes;      // a few blocks ahead
  // Per tile row only a line's two products and the row's scale stay live, next to the
  // levels, the mask and the line's two level vectors and their magnitudes.
  static constexpr int kMaxTileRows = 4;

  // Always inlined: packed_matmul() calls it from two places (with and without prefetches),
  // and GCC made a slightly larger step (MXFP4's, when it decoded exponent bytes here) a call,
  // keeping the accumulators in memory (BM_MatmulHot 256 x 2048, 32 rows, AVX-512: 1.4x the
  // time).
  template <int NR>
  [[gnu::always_inline]] static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m256i levels = Format::levels();
    const __m256i mask4 = _mm256_set1_epi8(0x0f);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m256 dw = Format::scales8(blk, h);
      __m256 scale[NR];
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) scale[r] = _mm256_mul_ps(dw, _mm256_set1_ps(x[r].d[s]));
#pragma GCC unroll 4
      for (int c = 0; c < 4; ++c) {
        const __m256i line = half_line(blk + kPackedIQ4NLCodesOffset + 64 * c, h);
        const __m256i lo = _mm256_shuffle_epi8(levels, _mm256_and_si256(line, mask4));
        const __m256i hi = _mm256_shuffle_epi8(levels, _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4));
        const __m256i abs_lo = _mm256_abs_epi8(lo), abs_hi = _mm256_abs_epi8(hi);
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          const int8_t* xq = x[r].q + s * kQK + 4 * c;
          const __m256i dot_lo = signed_dot(abs_lo, lo, broadcast4(xq));
          const __m256i dot_hi = signed_dot(abs_hi, hi, broadcast4(xq + 16));
          acc[r].lane[h][c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_lo), scale[r], acc[r].lane[h][c]);
          acc[r].lane[h][c + 4] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_hi), scale[r], acc[r].lane[h][c + 4]);
        }
      }
    }
  }

  template <int NR>
  static void store(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end, const Acc* acc) {
    __m256 y[NR][2];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      for (int h = 0; h < 2; ++h) {
        const __m256* l = acc[r].lane[h];
        y[r][h] = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(l[0], l[4]), _mm256_add_ps(l[2], l[6])),
                                _mm256_add_ps(_mm256_add_ps(l[1], l[5]), _mm256_add_ps(l[3], l[7])));
      }
    }
    store_group<NR>(a, g, r0, o_begin, o_end, y);
  }
};

}  // namespace

void matmul_packed_iq4_nl(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedLevels4<PackedIQ4NLFormat>>(a, o_begin, o_end);
}

void matmul_packed_mxfp4(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedLevels4<PackedMXFP4Format>>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
