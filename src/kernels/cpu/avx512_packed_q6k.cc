// AVX-512 VNNI matmul over the packed Q6_K layout (packed_q6k.h): one 512-bit register
// holds 16 output rows; a low-bits line and a quarter of a top-bits line give the VNNI
// operands for 2 x 4 inputs of all 16 rows, and the scales arrive grouped by row.
//
// Per (output row, input row) pair the integer sum is exact and the float operation is
// that of the scalar oracle reference::matmul_packed_q6_k_rows, whatever the tile: the
// results are bit-identical to it and batch-invariant.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as maybe-uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_q6k.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// The loops over tile rows carry `#pragma GCC unroll 8`: unless they unroll completely,
// GCC keeps the per-row accumulator arrays in memory instead of registers.

// Bits kFrom..kFrom+1 of every byte of tops moved to bits 4-5, other bits cleared.
template <int kFrom>
inline __m512i top_bits(__m512i tops) {
  const __m512i moved = kFrom <= 4 ? _mm512_slli_epi16(tops, 4 - kFrom) : _mm512_srli_epi16(tops, kFrom - 4);
  return _mm512_and_si512(moved, _mm512_set1_epi8(0x30));
}

// Scale pair q (sub-blocks 2q, 2q + 1) of every row as int16 pairs, and one of them as int32.
inline __m512i scale_pairs(const std::byte* blk, int q) {
  const auto* pairs = reinterpret_cast<const __m256i*>(blk + kPackedQ6KScalesOffset);
  return _mm512_cvtepi8_epi16(_mm256_loadu_si256(pairs + q));
}
inline __m512i scale_of_pair(__m512i pairs, int e) {
  return e == 0 ? _mm512_srai_epi32(_mm512_slli_epi32(pairs, 16), 16) : _mm512_srai_epi32(pairs, 16);
}

// Code lines 8p + 4u .. 8p + 4u + 3: sub-blocks 4p + u (low nibbles) and 4p + 2 + u (high
// nibbles) against NR activation rows; adds scale_k * dot_k of both to dots[r].
template <int NR>
inline void quarter(const std::byte* blk, int p, int u, const Q8Row* x, int64_t s, __m512i* dots) {
  __m512i lo_dot[NR], hi_dot[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) lo_dot[r] = hi_dot[r] = _mm512_setzero_si512();
  const __m512i mask4 = _mm512_set1_epi8(0x0f);
  for (int v2 = 0; v2 < 2; ++v2) {
    const int t0 = 4 * u + 2 * v2;
    const __m512i tops = _mm512_loadu_si512(blk + kPackedQ6KHighOffset + 64 * (4 * p + t0 / 2));
    const __m512i low0 = _mm512_loadu_si512(blk + kPackedQ6KLowOffset + 64 * (8 * p + t0));
    const __m512i low1 = _mm512_loadu_si512(blk + kPackedQ6KLowOffset + 64 * (8 * p + t0 + 1));
    const __m512i codes[4] = {
        _mm512_or_si512(_mm512_and_si512(low0, mask4), top_bits<0>(tops)),
        _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(low0, 4), mask4), top_bits<2>(tops)),
        _mm512_or_si512(_mm512_and_si512(low1, mask4), top_bits<4>(tops)),
        _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(low1, 4), mask4), top_bits<6>(tops)),
    };
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t0;
      lo_dot[r] = _mm512_dpbusd_epi32(lo_dot[r], codes[0], broadcast4(xq));
      hi_dot[r] = _mm512_dpbusd_epi32(hi_dot[r], codes[1], broadcast4(xq + 32));
      lo_dot[r] = _mm512_dpbusd_epi32(lo_dot[r], codes[2], broadcast4(xq + 4));
      hi_dot[r] = _mm512_dpbusd_epi32(hi_dot[r], codes[3], broadcast4(xq + 36));
    }
  }
  const __m512i sc_lo = scale_of_pair(scale_pairs(blk, 2 * p), u);
  const __m512i sc_hi = scale_of_pair(scale_pairs(blk, 2 * p + 1), u);
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    dots[r] = _mm512_add_epi32(dots[r], _mm512_mullo_epi32(lo_dot[r], sc_lo));
    dots[r] = _mm512_add_epi32(dots[r], _mm512_mullo_epi32(hi_dot[r], sc_hi));
  }
}

struct PackedQ6K : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedQ6KBlockBytes;
  // Several super-blocks ahead, as on AVX2: one ahead left single-row decode waiting on DRAM
  // (BM_Matmul rows:1, 5632 x 2048: Q2_K 1.20x, Q3_K 1.25x, Q4_K 1.08x faster; Q6_K level).
  static constexpr int64_t kPrefetchBytes = 3 * kPackedQ6KBlockBytes;
  // Per tile row, acc, dots and two sub-block dots live across the code lines: 24 of the
  // 32 registers. 6 rows measured faster in prefill than 4 despite a few spills.
  static constexpr int kMaxTileRows = 6;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    // The offset 32 of the codes: -32 * scale fits int16, so one multiply-add per pair of
    // sub-blocks adds scale_k * -32 * (sum of x over sub-block k) for both.
    __m512i dots[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dots[r] = _mm512_setzero_si512();
    for (int q = 0; q < 8; ++q) {
      const __m512i neg32_scales = _mm512_sub_epi16(_mm512_setzero_si512(), _mm512_slli_epi16(scale_pairs(blk, q), 5));
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        dots[r] = _mm512_dpwssd_epi32(dots[r], neg32_scales, broadcast4(x[r].sum16 + s * 16 + 2 * q));
      }
    }
    for (int p = 0; p < 4; ++p) {
      quarter<NR>(blk, p, 0, x, s, dots);
      quarter<NR>(blk, p, 1, x, s, dots);
    }
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dots[r]), _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s])), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_q6_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ6K>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
