// AVX2 matmul over the packed IQ4_NL and MXFP4 layouts (packed_iq4nl.h), for CPUs without
// AVX-512: the weights stream as one contiguous run per row group, and a code line is turned
// into levels once for every input row of the tile. The two types share the kernel; only the
// levels, the conversion of a half's 8 scales (fp16 d; MXFP4's bf16) and the way a block's
// int32 dot is formed differ.
//
// Each block is done one half (8 rows) at a time: a code line's half, masked and shifted,
// gives the codes of inputs 4c .. 4c + 3 and 16 + 4c .. 16 + 4c + 3 for 8 rows, a byte
// shuffle their levels. maddubs needs an unsigned operand:
//   IQ4_NL (levels -127 .. 113): |level| against x carrying the level's sign; a pair adds at
//     most 2 * 127 * 127 = 32258, exact in int16 but not twice, so one madd per line widens it
//     to int32.
//   MXFP4 (levels -12 .. 12): level + 12 (0 .. 24) against x, a pair at most 2 * 24 * 127 =
//     6096, so the 4 lines' low nibbles add up in int16 (at most 24384), and so do the high
//     ones; two madds per block widen them, and -12 times the block's activation sum takes
//     the bias back out.
// Either way the block's int32 dot is exact, and the float step follows
// reference::matmul_packed_iq4_nl_rows (_mxfp4_rows): the bits equal the oracle's (and the
// AVX-512 kernel's) for any tile and batch.
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there both types take level + 128 (unsigned, as
// vpdpbusd wants) and one vpdpbusd per line half and row adds the products to an int32 dot that
// starts at -128 times the block's activation sum; the same integer, so the same bits.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_iq4nl.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// What the two layouts differ in: the levels, a half's 8 scales, and the bias that makes the
// levels unsigned for maddubs (0: IQ4_NL's levels are too large, it takes the sign trick).
struct PackedIQ4NLFormat {
  [[maybe_unused]] static constexpr int kMaddubsBias = 0;  // the VNNI build does not read it
  static __m256i levels() { return iq4_levels(); }
  static __m256 scales8(const std::byte* blk, int h) { return fp16x8(blk + 16 * h); }  // rows 8h .. 8h + 7
};

struct PackedMXFP4Format {
  [[maybe_unused]] static constexpr int kMaddubsBias = 12;  // the VNNI build does not read it
  static __m256i levels() { return mxfp4_levels(); }
  static __m256 scales8(const std::byte* blk, int h) {  // bf16: the floats' top halves
    const __m256i bf16 = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16 * h)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(bf16, 16));
  }
};

// The levels (as `table` maps codes) of line c's half h: inputs 4c .. 4c + 3 (low nibbles) and
// 16 + 4c .. 16 + 4c + 3 (high) for the half's 8 rows.
struct HalfLevels {
  __m256i lo, hi;
};

inline HalfLevels half_levels(const std::byte* blk, int c, int h, __m256i table) {
  const __m256i mask4 = _mm256_set1_epi8(0x0f);
  const __m256i line = half_line(blk + kPackedIQ4NLCodesOffset + 64 * c, h);
  return {_mm256_shuffle_epi8(table, _mm256_and_si256(line, mask4)),
          _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4))};
}

// dot[r] = the exact int32 dots of half h's 8 rows with tile row r's block (codes at xq[r],
// activation sum sum[r]), one function per way of forming them (see the file comment).
#if defined(STRATA_KERNELS_AVX2_VNNI)
template <class Format, int NR>
[[gnu::always_inline]] inline void half_dots(const std::byte* blk, int h, const int8_t* const* xq, const int32_t* sum,
                                             __m256i* dot) {
  const __m256i biased = _mm256_xor_si256(Format::levels(), _mm256_set1_epi8(static_cast<char>(0x80)));
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot[r] = _mm256_set1_epi32(-128 * sum[r]);
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const HalfLevels u = half_levels(blk, c, h, biased);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      dot[r] = _mm256_dpbusd_avx_epi32(dot[r], u.lo, broadcast4(xq[r] + 4 * c));
      dot[r] = _mm256_dpbusd_avx_epi32(dot[r], u.hi, broadcast4(xq[r] + 16 + 4 * c));
    }
  }
}
#else
// IQ4_NL: the sign trick, one madd per line.
template <class Format, int NR>
  requires(Format::kMaddubsBias == 0)
[[gnu::always_inline]] inline void half_dots(const std::byte* blk, int h, const int8_t* const* xq, const int32_t*,
                                             __m256i* dot) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i levels = Format::levels();
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot[r] = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const HalfLevels q = half_levels(blk, c, h, levels);
    const __m256i abs_lo = _mm256_abs_epi8(q.lo), abs_hi = _mm256_abs_epi8(q.hi);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m256i x_lo = _mm256_sign_epi8(broadcast4(xq[r] + 4 * c), q.lo);
      const __m256i x_hi = _mm256_sign_epi8(broadcast4(xq[r] + 16 + 4 * c), q.hi);
      dot[r] = _mm256_add_epi32(dot[r], _mm256_madd_epi16(_mm256_maddubs_epi16(abs_lo, x_lo), ones));
      dot[r] = _mm256_add_epi32(dot[r], _mm256_madd_epi16(_mm256_maddubs_epi16(abs_hi, x_hi), ones));
      keep_chain(dot[r]);
    }
  }
}

// MXFP4: level + kMaddubsBias through maddubs, int16 sums over the block, the bias taken out.
template <class Format, int NR>
  requires(Format::kMaddubsBias != 0)
[[gnu::always_inline]] inline void half_dots(const std::byte* blk, int h, const int8_t* const* xq, const int32_t* sum,
                                             __m256i* dot) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i biased = _mm256_add_epi8(Format::levels(), _mm256_set1_epi8(Format::kMaddubsBias));
  __m256i sum_lo[NR], sum_hi[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) sum_lo[r] = sum_hi[r] = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (int c = 0; c < 4; ++c) {
    const HalfLevels u = half_levels(blk, c, h, biased);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      sum_lo[r] = _mm256_add_epi16(sum_lo[r], _mm256_maddubs_epi16(u.lo, broadcast4(xq[r] + 4 * c)));
      sum_hi[r] = _mm256_add_epi16(sum_hi[r], _mm256_maddubs_epi16(u.hi, broadcast4(xq[r] + 16 + 4 * c)));
      keep_chain(sum_lo[r]);
      keep_chain(sum_hi[r]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    const __m256i both = _mm256_add_epi32(_mm256_madd_epi16(sum_lo[r], ones), _mm256_madd_epi16(sum_hi[r], ones));
    dot[r] = _mm256_add_epi32(both, _mm256_set1_epi32(-Format::kMaddubsBias * sum[r]));
  }
}
#endif

template <class Format>
struct PackedLevels4 : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedIQ4NLBlockBytes;  // = kPackedMXFP4BlockBytes
  static constexpr int64_t kPrefetchBytes = 8 * kBlockBytes;      // a few blocks ahead
  // One half (8 rows) of the group at a time, so per tile row one or two partial dots stay
  // live across the half's 4 lines (the float accumulators wait in memory).
  static constexpr int kMaxTileRows = 4;

  // Always inlined: packed_matmul() calls it from two places (with and without prefetches).
  template <int NR>
  [[gnu::always_inline]] static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    int32_t sum[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) sum[r] = x[r].sum16[2 * s] + x[r].sum16[2 * s + 1];
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const int8_t* xq[NR];
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        // Hidden from GCC in each half, which would otherwise keep the first half's activation
        // broadcasts for the second and spill them (a store and a reload per broadcast).
        xq[r] = x[r].q + s * kQK;
        asm volatile("" : "+r"(xq[r]));
      }
      __m256i dot[NR];
      half_dots<Format, NR>(blk, h, xq, sum, dot);
      const __m256 dw = Format::scales8(blk, h);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]), _mm256_mul_ps(dw, _mm256_set1_ps(x[r].d[s])), acc[r][h]);
      }
    }
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
