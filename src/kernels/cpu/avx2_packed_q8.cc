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

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q8.h"

namespace strata::kernels::cpu::avx2 {

namespace {

// How far ahead of the block in use a tile asks for weights (a few blocks of 544 bytes).
constexpr int64_t kPrefetchBytes = 4 * kPackedGroupBlockBytes;

// Input rows [r0, r0 + NR) against row group g.
template <int NR>
inline void packed_tile(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / kQK;
  const std::byte* group = static_cast<const std::byte*>(w.packed) + g * n_blocks * kPackedGroupBlockBytes;
  Q8Row x[NR];
  tile_inputs<NR>(a, r0, x);
  const __m256i top_bit = _mm256_set1_epi8(static_cast<char>(0x80));
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
        const __m256i q = _mm256_xor_si256(half_line(blk + 32 + 64 * c, h), top_bit);
        const __m256i abs_q = _mm256_abs_epi8(q);
#pragma GCC unroll 4
        for (int r = 0; r < NR; ++r) {
          dot[r][h] = dot_add(dot[r][h], abs_q, _mm256_sign_epi8(broadcast4(x[r].q + s * kQK + 4 * c), q));
        }
      }
    }
    const __m256 dw[2] = {fp16x8(blk), fp16x8(blk + 16)};
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
