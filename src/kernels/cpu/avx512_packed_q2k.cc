// AVX-512 VNNI matmul over the packed Q2_K layout (packed_q2k.h): one 512-bit register holds
// 16 output rows; a code line, shifted and masked, gives the unsigned 2-bit codes of 4
// inputs for all 16 rows (one VNNI instruction per input row), and each row's scale and min
// bytes arrive grouped by row.
//
// Each sub-block's dot product is exact in int32 and at most 16 * 3 * 127 in magnitude, so
// the dots of sub-blocks 2q and 2q + 1 fit one int16 pair per row and one multiply-add
// against the row's scale pair gives scale_2q * dot_2q + scale_2q+1 * dot_2q+1 exactly; the
// mins multiply the activation sums the same way. The float steps are those of the scalar
// oracle reference::matmul_packed_q2_k_rows, in order, whatever the tile: the results are
// bit-identical to it and batch-invariant.
#include <immintrin.h>

#include <utility>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as (maybe-)uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q2k.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// The loops over tile rows carry `#pragma GCC unroll 8`: unless they unroll completely,
// GCC keeps the per-row accumulator arrays in memory instead of registers.

// Scale-and-min pair q (sub-blocks 2q, 2q + 1) of every row as int16 pairs (scale in the low
// nibble, min in the high one).
inline __m512i scale_min_pairs(const std::byte* blk, int q) {
  const auto* pairs = reinterpret_cast<const __m256i*>(blk + kPackedQ2KScalesOffset);
  return _mm512_cvtepu8_epi16(_mm256_loadu_si256(pairs + q));
}

// Sub-blocks 8kH + 2kC (lines t < 4) and 8kH + 2kC + 1 (lines t >= 4), bits 2kC..2kC+1 of
// the code lines, against NR activation rows: adds scale_k * dot_k of both to dots[r].
template <int kH, int kC, int NR>
[[gnu::always_inline]] inline void sub_block_pair(const std::byte* blk, const Q8Row* x, int64_t s, __m512i* dots) {
  __m512i dot[2][NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) dot[0][r] = dot[1][r] = _mm512_setzero_si512();
#pragma GCC unroll 8
  for (int t = 0; t < 8; ++t) {
    const __m512i line = _mm512_loadu_si512(blk + kPackedQ2KCodesOffset + 64 * (8 * kH + t));
    const __m512i u = _mm512_and_si512(kC == 0 ? line : _mm512_srli_epi16(line, 2 * kC), _mm512_set1_epi8(3));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 128 * kH + 32 * kC + 4 * t;
      dot[t / 4][r] = _mm512_dpbusd_epi32(dot[t / 4][r], u, broadcast4(xq));
    }
  }
  const __m512i scales = _mm512_and_si512(scale_min_pairs(blk, 4 * kH + kC), _mm512_set1_epi16(0x0f));
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    // Both dots fit int16: dot 2q in the low, dot 2q + 1 in the high half of each lane.
    const __m512i both = _mm512_mask_blend_epi16(0xaaaaaaaa, dot[0][r], _mm512_slli_epi32(dot[1][r], 16));
    dots[r] = _mm512_dpwssd_epi32(dots[r], both, scales);
  }
}

template <int NR, int... kQ>
[[gnu::always_inline]] inline void all_sub_blocks(const std::byte* blk, const Q8Row* x, int64_t s, __m512i* dots,
                                                  std::integer_sequence<int, kQ...>) {
  (sub_block_pair<kQ / 4, kQ % 4, NR>(blk, x, s, dots), ...);
}

struct PackedQ2K : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedQ2KBlockBytes;
  // Several super-blocks ahead, as on AVX2: one ahead left single-row decode waiting on DRAM
  // (BM_Matmul rows:1, 5632 x 2048: Q2_K 1.20x, Q3_K 1.25x, Q4_K 1.08x faster; Q6_K level).
  static constexpr int64_t kPrefetchBytes = 4 * kPackedQ2KBlockBytes;
  // Per tile row, acc, dots and two sub-block dots live across the code lines: 24 of the
  // 32 registers.
  static constexpr int kMaxTileRows = 6;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    __m512i dots[NR], min_terms[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dots[r] = min_terms[r] = _mm512_setzero_si512();
    all_sub_blocks<NR>(blk, x, s, dots, std::make_integer_sequence<int, 8>{});
    for (int q = 0; q < 8; ++q) {
      const __m512i mins = _mm512_srli_epi16(scale_min_pairs(blk, q), 4);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        min_terms[r] = _mm512_dpwssd_epi32(min_terms[r], mins, broadcast4(x[r].sum16 + s * 16 + 2 * q));
      }
    }
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
    const __m512 dmin = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m512 xd = _mm512_set1_ps(x[r].d[s]);
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dots[r]), _mm512_mul_ps(dw, xd), acc[r]);
      acc[r] = _mm512_fnmadd_ps(_mm512_cvtepi32_ps(min_terms[r]), _mm512_mul_ps(dmin, xd), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q2_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ2K>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
