// AVX-512 VNNI matmul over the packed Q3_K layout (packed_q3k.h): one 512-bit register holds
// 16 output rows; a low-bits line and a high-bits line, shifted, masked and merged, give the
// unsigned 3-bit codes of 4 inputs for all 16 rows (one VNNI instruction per input row), and
// the int8 scales arrive decoded and grouped by row.
//
// Each sub-block's dot product is exact in int32 and at most 16 * 7 * 127 in magnitude, so
// the dots of sub-blocks 2q and 2q + 1 fit one int16 pair per row and one multiply-add
// against the row's scale pair gives scale_2q * dot_2q + scale_2q+1 * dot_2q+1 exactly. The
// offset 4 enters as -4 * scale times the activation sums. The float step is that of the
// scalar oracle reference::matmul_packed_q3_k_rows, whatever the tile: the results are
// bit-identical to it and batch-invariant.
#include <immintrin.h>

#include <utility>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q3k.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// The loops over tile rows carry `#pragma GCC unroll 8`: unless they unroll completely,
// GCC keeps the per-row accumulator arrays in memory instead of registers.

// The codes of inputs 128 kH + 32 kC + 4t + k from low line 8 kH + t and high line t: bits
// 2kC..2kC+1 of low and bit 4kH + kC of high, moved to bit 2.
template <int kH, int kC>
inline __m512i codes(__m512i low, __m512i high) {
  const __m512i low2 = _mm512_and_si512(kC == 0 ? low : _mm512_srli_epi16(low, 2 * kC), _mm512_set1_epi8(3));
  constexpr int kBit = 4 * kH + kC;
  __m512i moved = high;
  if constexpr (kBit > 2) moved = _mm512_srli_epi16(high, kBit - 2);
  if constexpr (kBit < 2) moved = _mm512_slli_epi16(high, 2 - kBit);
  return _mm512_ternarylogic_epi32(low2, moved, _mm512_set1_epi8(4), 0xf8);  // low2 | (moved & 4)
}

// Scale pair q (sub-blocks 2q, 2q + 1) of every row as int16 pairs.
inline __m512i scale_pairs(const std::byte* blk, int q) {
  const auto* pairs = reinterpret_cast<const __m256i*>(blk + kPackedQ3KScalesOffset);
  return _mm512_cvtepi8_epi16(_mm256_loadu_si256(pairs + q));
}

// Sub-blocks 8kH + 2kC (lines t < 4) and 8kH + 2kC + 1 (lines t >= 4), slot kC of the code
// lines, against NR activation rows: adds scale_k * dot_k of both to dots[r].
template <int kH, int kC, int NR>
[[gnu::always_inline]] inline void sub_block_pair(const std::byte* blk, const Q8Row* x, int64_t s, __m512i* dots) {
  __m512i dot[2][NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot[0][r] = dot[1][r] = _mm512_setzero_si512();
#pragma GCC unroll 8
  for (int t = 0; t < 8; ++t) {
    const __m512i low = _mm512_loadu_si512(blk + kPackedQ3KLowOffset + 64 * (8 * kH + t));
    const __m512i high = _mm512_loadu_si512(blk + kPackedQ3KHighOffset + 64 * t);
    const __m512i u = codes<kH, kC>(low, high);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 128 * kH + 32 * kC + 4 * t;
      dot[t / 4][r] = _mm512_dpbusd_epi32(dot[t / 4][r], u, broadcast4(xq));
    }
  }
  const __m512i pairs = scale_pairs(blk, 4 * kH + kC);
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    // Both dots fit int16: dot 2q in the low, dot 2q + 1 in the high half of each lane.
    const __m512i both = _mm512_mask_blend_epi16(0xaaaaaaaa, dot[0][r], _mm512_slli_epi32(dot[1][r], 16));
    dots[r] = _mm512_dpwssd_epi32(dots[r], both, pairs);
  }
}

template <int NR, int... kQ>
[[gnu::always_inline]] inline void all_sub_blocks(const std::byte* blk, const Q8Row* x, int64_t s, __m512i* dots,
                                                  std::integer_sequence<int, kQ...>) {
  (sub_block_pair<kQ / 4, kQ % 4, NR>(blk, x, s, dots), ...);
}

struct PackedQ3K : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedQ3KBlockBytes;
  // Several super-blocks ahead, as on AVX2: one ahead left single-row decode waiting on DRAM
  // (BM_Matmul rows:1, 5632 x 2048: Q2_K 1.20x, Q3_K 1.25x, Q4_K 1.08x faster; Q6_K level).
  static constexpr int64_t kPrefetchBytes = 4 * kPackedQ3KBlockBytes;
  // Per tile row, acc, dots and two sub-block dots live across the code lines: 24 of the
  // 32 registers.
  static constexpr int kMaxTileRows = 6;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    // The offset 4 of the codes: -4 * scale fits int16, so one multiply-add per pair of
    // sub-blocks adds scale_k * -4 * (sum of x over sub-block k) for both.
    __m512i dots[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dots[r] = _mm512_setzero_si512();
    for (int q = 0; q < 8; ++q) {
      const __m512i neg4_scales = _mm512_sub_epi16(_mm512_setzero_si512(), _mm512_slli_epi16(scale_pairs(blk, q), 2));
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        dots[r] = _mm512_dpwssd_epi32(dots[r], neg4_scales, broadcast4(x[r].sum16 + s * 16 + 2 * q));
      }
    }
    all_sub_blocks<NR>(blk, x, s, dots, std::make_integer_sequence<int, 8>{});
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dots[r]), _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s])), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q3_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ3K>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
