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

struct PackedQ8 : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedGroupBlockBytes;
  // 16 blocks (8.7 KB) ahead, about as far as the Q4_K kernel reaches: 4 blocks (2.2 KB)
  // covered less than one DRAM latency of a thread's stream, and single-row decode waited
  // on memory (CPU time per token on one thread, 1.1B file, AMD EPYC Zen 5: 36-40 ms at 4,
  // 33-36 ms at 16, same run).
  static constexpr int64_t kPrefetchBytes = 16 * kPackedGroupBlockBytes;
  // One half (8 rows) of the group at a time, so per tile row one dot product stays live
  // across the half's 8 lines (the float accumulators wait in memory): eight rows take 8 of
  // the 16 registers beside the line, its |q|, an activation broadcast and a product. Each
  // line's xor and abs then serve eight rows instead of four (the AVX2 sign trick costs four
  // instructions per row and line; those two are the only shared ones).
  static constexpr int kMaxTileRows = 8;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m256i top_bit = _mm256_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      __m256i dot[NR];
      const int8_t* xq[NR];
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        dot[r] = _mm256_setzero_si256();
        // Hidden from GCC, which would otherwise keep the first half's 64 activation
        // broadcasts for the second and spill them (a store per broadcast).
        xq[r] = x[r].q + s * kQK;
        asm volatile("" : "+r"(xq[r]));
      }
#pragma GCC unroll 8
      for (int c = 0; c < 8; ++c) {
        const __m256i q = _mm256_xor_si256(half_line(blk + 32 + 64 * c, h), top_bit);
        const __m256i abs_q = _mm256_abs_epi8(q);
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          dot[r] = dot_add(dot[r], abs_q, _mm256_sign_epi8(broadcast4(xq[r] + 4 * c), q));
          keep_chain(dot[r]);
        }
      }
      const __m256 dw = fp16x8(blk + 16 * h);
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const __m256 dx = _mm256_set1_ps(x[r].d[s]);
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r]), _mm256_mul_ps(dw, dx), acc[r][h]);
      }
    }
  }
};

}  // namespace

void matmul_packed_q8_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ8>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx2
