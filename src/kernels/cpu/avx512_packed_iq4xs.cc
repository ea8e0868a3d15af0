// AVX-512 VNNI matmul over the packed IQ4_XS layout (packed_iq4xs.h): one 512-bit register
// holds 16 output rows. A 64-byte code line, masked and shifted, gives two sub-blocks'
// codes; one byte shuffle each turns them into level + 128 (1..241, unsigned, as VNNI's
// first operand wants), and two VNNI instructions multiply them with 4 inputs for all 16
// rows. The +128 comes back out once per super-block: 128 * sum_j scale_j * (sum of x over
// sub-block j), one multiply-add of int16 pairs per two sub-blocks.
//
// The integer sums are exact (|sum over a sub-block of (level + 128) * x| <= 32 * 241 * 127,
// times |scale| <= 32 and 8 sub-blocks: under 2^28) and equal the oracle's dots; the float
// step is reference::matmul_packed_iq4_xs_rows', so the bits equal the oracle's (and the
// AVX2 kernel's) for any tile and batch.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as maybe-uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_iq4xs.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// The 16 levels plus 128 (the sign bit flipped) as bytes 0-15 of every 128-bit lane.
inline __m512i biased_levels() {
  return _mm512_xor_si512(_mm512_broadcast_i64x4(iq4_levels()), _mm512_set1_epi8(static_cast<char>(0x80)));
}

// Activation sums of the super-block's sub-blocks 2p and 2p+1, as the int16 pair of every
// int32 lane (for one multiply-add against the rows' scale pairs), p = 0..3.
inline __m512i x_sum_pair(const int16_t* sum16, int p) {
  const int32_t lo = sum16[4 * p] + sum16[4 * p + 1], hi = sum16[4 * p + 2] + sum16[4 * p + 3];
  return _mm512_set1_epi32(static_cast<int32_t>(static_cast<uint16_t>(lo) | static_cast<uint32_t>(hi) << 16));
}

// Sub-blocks 2p (low nibbles) and 2p + 1 (high nibbles) against NR activation rows: adds
// scale_j * sum((level + 128) * x) of both to dots[r].
template <int NR>
inline void sub_block_pair(const std::byte* blk, int p, __m512i scale_pairs, const Q8Row* x, int64_t s,
                           __m512i* dots) {
  const __m512i levels = biased_levels();
  const __m512i mask4 = _mm512_set1_epi8(0x0f);
  __m512i lo_dot[NR], hi_dot[NR];
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) lo_dot[r] = hi_dot[r] = _mm512_setzero_si512();
  const std::byte* lines = blk + kPackedIQ4XSCodesOffset + 64 * 8 * p;
  for (int t = 0; t < 8; ++t) {
    const __m512i line = _mm512_loadu_si512(lines + 64 * t);
    const __m512i lo = _mm512_shuffle_epi8(levels, _mm512_and_si512(line, mask4));
    const __m512i hi = _mm512_shuffle_epi8(levels, _mm512_and_si512(_mm512_srli_epi16(line, 4), mask4));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
      lo_dot[r] = _mm512_dpbusd_epi32(lo_dot[r], lo, broadcast4(xq));
      hi_dot[r] = _mm512_dpbusd_epi32(hi_dot[r], hi, broadcast4(xq + 32));
    }
  }
  // Lane i holds row i's scales of sub-blocks 2p and 2p + 1 as an int16 pair.
  const __m512i sc_lo = _mm512_srai_epi32(_mm512_slli_epi32(scale_pairs, 16), 16);
  const __m512i sc_hi = _mm512_srai_epi32(scale_pairs, 16);
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    dots[r] = _mm512_add_epi32(dots[r], _mm512_mullo_epi32(lo_dot[r], sc_lo));
    dots[r] = _mm512_add_epi32(dots[r], _mm512_mullo_epi32(hi_dot[r], sc_hi));
  }
}

struct PackedIQ4XS : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedIQ4XSBlockBytes;
  static constexpr int64_t kPrefetchBytes = kBlockBytes;  // one super-block ahead
  // Per tile row, acc, dots and two sub-block dots live across the code lines: 24 of the
  // 32 registers, as in the packed Q4_K kernel.
  static constexpr int kMaxTileRows = 6;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const auto* scales = reinterpret_cast<const __m256i*>(blk + kPackedIQ4XSScalesOffset);
    __m512i dots[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dots[r] = _mm512_setzero_si512();
    for (int p = 0; p < 4; ++p) {
      sub_block_pair<NR>(blk, p, _mm512_cvtepi8_epi16(_mm256_loadu_si256(scales + p)), x, s, dots);
    }
    const __m512 dw = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const int16_t* sum16 = x[r].sum16 + s * 16;
      __m512i offset_terms = _mm512_setzero_si512();
      for (int p = 0; p < 4; ++p) {
        offset_terms = _mm512_dpwssd_epi32(offset_terms, _mm512_cvtepi8_epi16(_mm256_loadu_si256(scales + p)),
                                           x_sum_pair(sum16, p));
      }
      const __m512i exact = _mm512_sub_epi32(dots[r], _mm512_slli_epi32(offset_terms, 7));
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(exact), _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s])), acc[r]);
    }
  }
};

}  // namespace

void matmul_packed_iq4_xs(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedIQ4XS>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
