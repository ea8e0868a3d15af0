// AVX-512 VNNI matmul over the packed Q4_K and Q5_K layouts (packed_q4k.h): one 512-bit
// register holds 16 output rows; one 64-byte code line, masked and shifted (Q5_K: with its
// 5th bits added from a high line), feeds two VNNI instructions (4 inputs of two
// sub-blocks) for all 16 rows, and the scales and mins arrive unpacked, so a super-block
// costs no decoding beyond that per line.
//
// Per (output row, input row) pair the integer sums are exact and the float operations
// are those of the scalar oracles reference::matmul_packed_q4_k_rows / _q5_k_rows, in order,
// whatever the tile: the results are bit-identical to it and batch-invariant.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as maybe-uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q4k.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// The loops over tile rows carry `#pragma GCC unroll 8`: unless they unroll completely,
// GCC keeps the per-row accumulator arrays in memory instead of registers.

// Activation sums of the super-block's sub-blocks 2p and 2p+1, as the int16 pair of
// every int32 lane (for one multiply-add against the row pairs of mins), p = 0..3.
struct XSumPairs {
  __m512i packed;  // int32 lanes 0, 1, 4, 5 hold the pairs of p = 0, 1, 2, 3
  __m512i pair(int p) const { return _mm512_permutexvar_epi32(_mm512_set1_epi32(p < 2 ? p : p + 2), packed); }
};

inline XSumPairs x_sum_pairs(const int16_t* sum16) {
  // Sums per 32 (two sums per 16 each, at most 4064 in magnitude, so int16 holds them).
  const __m256i sum32 = _mm256_madd_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(sum16)),
                                          _mm256_set1_epi16(1));
  return {_mm512_castsi256_si512(_mm256_packs_epi32(sum32, sum32))};
}

// 0x10 in every byte of high whose bit `bit` is set, else 0: a Q5_K code's 5th bit.
inline __m512i fifth_bits(__m512i high, int bit) {
  return _mm512_maskz_mov_epi8(_mm512_test_epi8_mask(high, _mm512_set1_epi8(static_cast<char>(1 << bit))),
                               _mm512_set1_epi8(0x10));
}

// Sub-blocks 2p (low nibbles) and 2p + 1 (high nibbles) against NR activation rows: adds
// scale_j * dot_j of both to dots[r]. kFive: Q5_K.
template <bool kFive, int NR>
inline void sub_block_pair(const std::byte* blk, int p, const Q8Row* x, int64_t s, __m512i* dots) {
  __m512i lo_dot[NR], hi_dot[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) lo_dot[r] = hi_dot[r] = _mm512_setzero_si512();
  const std::byte* lines = blk + kPackedQ4KCodesOffset + 64 * 8 * p;
  for (int t = 0; t < 8; ++t) {
    const __m512i line = _mm512_loadu_si512(lines + 64 * t);
    __m512i lo = _mm512_and_si512(line, _mm512_set1_epi8(0x0f));
    __m512i hi = _mm512_and_si512(_mm512_srli_epi16(line, 4), _mm512_set1_epi8(0x0f));
    if constexpr (kFive) {
      const __m512i high = _mm512_loadu_si512(blk + kPackedQ5KHighOffset + 64 * (2 * p + t / 4));
      lo = _mm512_or_si512(lo, fifth_bits(high, 2 * (t % 4)));
      hi = _mm512_or_si512(hi, fifth_bits(high, 2 * (t % 4) + 1));
    }
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
      lo_dot[r] = _mm512_dpbusd_epi32(lo_dot[r], lo, broadcast4(xq));
      hi_dot[r] = _mm512_dpbusd_epi32(hi_dot[r], hi, broadcast4(xq + 32));
    }
  }
  const auto* scales = reinterpret_cast<const __m128i*>(blk + kPackedQ4KScalesOffset);
  const __m512i sc_lo = _mm512_cvtepu8_epi32(_mm_loadu_si128(scales + 2 * p));
  const __m512i sc_hi = _mm512_cvtepu8_epi32(_mm_loadu_si128(scales + 2 * p + 1));
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    dots[r] = _mm512_add_epi32(dots[r], _mm512_mullo_epi32(lo_dot[r], sc_lo));
    dots[r] = _mm512_add_epi32(dots[r], _mm512_mullo_epi32(hi_dot[r], sc_hi));
  }
}

template <bool kFive>
struct PackedQ4K : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kFive ? kPackedQ5KBlockBytes : kPackedQ4KBlockBytes;
  // Several super-blocks ahead, as on AVX2: one ahead left single-row decode waiting on DRAM
  // (BM_Matmul rows:1, 5632 x 2048: Q2_K 1.20x, Q3_K 1.25x, Q4_K 1.08x faster; Q6_K level).
  static constexpr int64_t kPrefetchBytes = 4 * kBlockBytes;
  // Per tile row, acc, dots and two sub-block dots live across the code lines: 24 of the
  // 32 registers. 6 rows measured faster in prefill than 4 despite a few spills.
  static constexpr int kMaxTileRows = 6;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    __m512i dots[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dots[r] = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) sub_block_pair<kFive, NR>(blk, p, x, s, dots);
    const auto* mins = reinterpret_cast<const __m256i*>(blk + kPackedQ4KMinsOffset);
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
    const __m512 dmin = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const XSumPairs xs = x_sum_pairs(x[r].sum16 + s * 16);
      __m512i min_terms = _mm512_setzero_si512();
      for (int p = 0; p < 4; ++p) {
        min_terms = _mm512_dpwssd_epi32(min_terms, _mm512_cvtepu8_epi16(_mm256_loadu_si256(mins + p)), xs.pair(p));
      }
      const __m512 xd = _mm512_set1_ps(x[r].d[s]);
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dots[r]), _mm512_mul_ps(dw, xd), acc[r]);
      acc[r] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(min_terms), _mm512_mul_ps(dmin, xd), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q4_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ4K<false>>(a, o_begin, o_end);
}

void matmul_packed_q5_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ4K<true>>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
