// AVX2 matmul over the packed Q8_0 layout (packed_q8.h), for CPUs without AVX-512: the
// weights stream as one contiguous run per row group, as on AVX-512, where the file layout
// reads several rows' blocks at once and reaches only ~45% of the read bandwidth.
//
// A 64-byte chunk (16 rows x 4 inputs) is two 256-bit halves of 8 rows. The layout stores
// codes as q + 128 for VNNI; flipping the top bit gives q back, and the AVX2 sign trick
// (|q| as unsigned times x carrying q's sign: maddubs, then madd) gives the exact int32
// dot, since |q| <= 128 and |x| <= 127 keep every pair of products within int16. The
// integer per block is therefore the oracle's, and the float steps follow
// reference::matmul_packed_q8_0_rows in order: the bits equal the oracle's (and the
// AVX-512 kernel's), for any tile and batch.
#include <immintrin.h>

#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/packed_tile_walk.h"
#include "kernels/packed_q8.h"

namespace strata::kernels::cpu::avx2 {

namespace {

// How far ahead of the block in use a tile asks for weights (a few blocks of 544 bytes).
constexpr int64_t kPrefetchBytes = 4 * kPackedGroupBlockBytes;

// Writes acc[r][h] lane i to y[(r0 + r) * n_out + 16 g + 8 h + i] for the outputs in
// [o_begin, o_end) (a task's range may end inside the last, padded group).
template <int NR>
inline void store_group(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end,
                        const __m256 (&acc)[NR][2]) {
  const int64_t first = g * kPackedGroupRows;
  const bool whole = first >= o_begin && first + kPackedGroupRows <= o_end;
  for (int r = 0; r < NR; ++r) {
    float* y = a.y + static_cast<int64_t>(r0 + r) * a.w->n_out + first;
    if (whole) {
      _mm256_storeu_ps(y, acc[r][0]);
      _mm256_storeu_ps(y + 8, acc[r][1]);
      continue;
    }
    alignas(32) float lanes[kPackedGroupRows];
    _mm256_store_ps(lanes, acc[r][0]);
    _mm256_store_ps(lanes + 8, acc[r][1]);
    for (int i = 0; i < kPackedGroupRows; ++i) {
      if (first + i >= o_begin && first + i < o_end) y[i] = lanes[i];
    }
  }
}

// Input rows [r0, r0 + NR) against row group g.
template <int NR>
inline void packed_tile(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / kQK;
  const std::byte* group = static_cast<const std::byte*>(w.packed) + g * n_blocks * kPackedGroupBlockBytes;
  Q8Row x[NR];
  tile_inputs<NR>(a, r0, x);
  const __m256i top_bit = _mm256_set1_epi8(static_cast<char>(0x80));
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[NR][2];
  for (int r = 0; r < NR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  for (int64_t s = 0; s < n_blocks; ++s) {
    const std::byte* blk = group + s * kPackedGroupBlockBytes;
    prefetch_block(blk, kPackedGroupBlockBytes, kPrefetchBytes);
    __m256i dot[NR][2];
    for (int r = 0; r < NR; ++r) dot[r][0] = dot[r][1] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int c = 0; c < 8; ++c) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256i stored = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk + 32 + 64 * c + 32 * h));
        const __m256i q = _mm256_xor_si256(stored, top_bit);
        const __m256i abs_q = _mm256_abs_epi8(q);
#pragma GCC unroll 4
        for (int r = 0; r < NR; ++r) {
          int32_t four;
          std::memcpy(&four, x[r].q + s * kQK + 4 * c, sizeof four);
          const __m256i signed_x = _mm256_sign_epi8(_mm256_set1_epi32(four), q);
          dot[r][h] = _mm256_add_epi32(dot[r][h], _mm256_madd_epi16(_mm256_maddubs_epi16(abs_q, signed_x), ones));
        }
      }
    }
    const __m256 dw[2] = {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk))),
                          _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + 16)))};
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const __m256 dx = _mm256_set1_ps(x[r].d[s]);
      for (int h = 0; h < 2; ++h) {
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r][h]), _mm256_mul_ps(dw[h], dx), acc[r][h]);
      }
    }
  }
  store_group<NR>(a, g, r0, o_begin, o_end, acc);
}

}  // namespace

void matmul_packed_q8_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  // Two input rows' accumulators and dot products fill 8 of the 16 registers.
  constexpr int kMaxTileRows = 2;
  for_each_packed_tile<kMaxTileRows>(o_begin, o_end, a.n_rows, [&]<int NR>(int64_t g, int r0) {
    packed_tile<NR>(a, g, r0, o_begin, o_end);
  });
}

}  // namespace strata::kernels::cpu::avx2
