// AVX2 matmul over the packed IQ4_XS layout (packed_iq4xs.h), for CPUs without AVX-512:
// the weights stream as one contiguous run per row group, the scales arrive unpacked, and a
// code line is turned into levels once for every input row of the tile.
//
// Each super-block is done one half (8 rows) at a time: a code line's half, masked and
// shifted, gives the codes of two sub-blocks for 8 rows, a byte shuffle their signed levels.
// maddubs needs an unsigned operand, so it takes |level| against x carrying the level's
// sign: a pair adds at most 2 * 127 * 127 = 32258, exact in int16; one madd against the
// sub-block's scale (-32..31) widens it (exact in int32). The integer is the oracle's dots
// and the float step reference::matmul_packed_iq4_xs_rows', so the bits equal the oracle's
// (and the AVX-512 kernel's) for any tile and batch.
#include <immintrin.h>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_iq4xs.h"

namespace strata::kernels::cpu::avx2 {

namespace {

// Half h's 8 rows' scales of sub-blocks 2p (first) and 2p + 1 (second), each row's in both
// int16 halves of its int32 lane: one madd of a row's int16 pair sums against it is
// scale_j * (their sum).
struct ScalePair {
  __m256i lo, hi;
};

inline ScalePair scale_pair(const std::byte* blk, int h, int p) {
  // Lane i: row 8h + i's (scale 2p, scale 2p + 1) as int16.
  const __m256i pairs = _mm256_cvtepi8_epi16(
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedIQ4XSScalesOffset + 32 * p + 16 * h)));
  const __m256i low_twice = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13, 0, 1, 0, 1, 4, 5, 4,
                                             5, 8, 9, 8, 9, 12, 13, 12, 13);
  const __m256i high_twice = _mm256_add_epi8(low_twice, _mm256_set1_epi8(2));
  return {_mm256_shuffle_epi8(pairs, low_twice), _mm256_shuffle_epi8(pairs, high_twice)};
}

// acc + scale * (the int16 pair sums of |q| times x carrying q's sign).
inline __m256i signed_dot_add(__m256i acc, __m256i abs_q, __m256i q, __m256i x, __m256i scale) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(abs_q, _mm256_sign_epi8(x, q)), scale));
}

// sum_j scale_j * (sub-block j's level . x) of half h's 8 rows, for NR activation rows.
template <int NR>
inline void scaled_dots(const std::byte* blk, int h, const Q8Row* x, int64_t s, __m256i* dots) {
  const __m256i levels = iq4_levels();
  const __m256i mask4 = _mm256_set1_epi8(0x0f);
  for (int p = 0; p < 4; ++p) {
    const ScalePair sc = scale_pair(blk, h, p);
    const std::byte* lines = blk + kPackedIQ4XSCodesOffset + 64 * 8 * p;
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      const __m256i line = half_line(lines + 64 * t, h);
      const __m256i lo = _mm256_shuffle_epi8(levels, _mm256_and_si256(line, mask4));
      const __m256i hi = _mm256_shuffle_epi8(levels, _mm256_and_si256(_mm256_srli_epi16(line, 4), mask4));
      const __m256i abs_lo = _mm256_abs_epi8(lo), abs_hi = _mm256_abs_epi8(hi);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQKK + 64 * p + 4 * t;
        dots[r] = signed_dot_add(dots[r], abs_lo, lo, broadcast4(xq), sc.lo);
        dots[r] = signed_dot_add(dots[r], abs_hi, hi, broadcast4(xq + 32), sc.hi);
        keep_chain(dots[r]);
      }
    }
  }
}

struct PackedIQ4XS : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kPackedIQ4XSBlockBytes;
  static constexpr int64_t kPrefetchBytes = kBlockBytes;  // one super-block ahead
  // Per tile row only the half's dots stay live in the line loop (the accumulators wait in
  // memory), next to the levels, the line's two level vectors, their magnitudes and scales.
  static constexpr int kMaxTileRows = 4;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    for (int h = 0; h < 2; ++h) {
      __m256i dots[NR];
      for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
      scaled_dots<NR>(blk, h, x, s, dots);
      const __m256 dw = fp16x8(blk + 16 * h);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const __m256 xd = _mm256_set1_ps(x[r].d[s]);
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[r]), _mm256_mul_ps(dw, xd), acc[r][h]);
      }
    }
  }
};

}  // namespace

void matmul_packed_iq4_xs(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedIQ4XS>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx2
