// AVX2 + AVX-VNNI matmul over the packed Q8_0 layout (packed_q8.h): the AVX2 kernel's tiles
// (avx2_packed_q8.cc: a 64-byte chunk is two 256-bit halves of 8 output rows, two
// accumulators per input row), with the integer dot of a half taken by one VEX vpdpbusd on
// the stored unsigned codes q + 128 instead of abs, sign, maddubs, madd and add. The
// accumulator starts at -128 times the block's activation sum, so after the block it holds
// sum q * x exactly in int32 (|sum (q + 128) x| <= 32 * 255 * 127): the oracle's integer.
// The float steps are the AVX2 kernel's, in order (reference::matmul_packed_q8_0_rows): the
// bits equal the oracle's and the other tables', for any tile and batch.
//
// Compiled with -mavxvnni; runs only after avx2_vnni_table() has found AVX-VNNI.
#include <immintrin.h>

#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/cpu/avx2_vnni.h"
#include "kernels/packed_q8.h"

namespace strata::kernels::cpu::avx2vnni {

namespace {

struct PackedQ8Vnni : avx2::Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedGroupBlockBytes;
  // As far ahead as the AVX2 kernel (avx2_packed_q8.cc): single-row decode is a DRAM stream.
  static constexpr int64_t kPrefetchBytes = 16 * kPackedGroupBlockBytes;
  // A tile keeps 8 int32 dot chains live across the block (two per row; the float
  // accumulators wait in memory): 8 of the 16 registers, leaving the code half and a broadcast.
  static constexpr int kMaxTileRows = 4;

  // One dot chain per (input row, half), even for one or two rows. Splitting a row's chunks
  // over 4 / NR chains (to keep 8 vpdpbusd in flight) made the kernel faster in cache but
  // slower on the DRAM stream of decode: BM_MatmulHot q8_0 256x2048 rows:1, 6.5 us against
  // 7.7 with one chain (AVX2 kernel: 10.7), but one-thread 1.1B decode step, rows:1, 51.2 ms
  // CPU time against 46.6 (AVX2 kernel: 47.3); medians of 5 runs alternating, loaded AMD
  // Zen 5, the same run. That split was why this kernel once lost to the AVX2 one at one and
  // two rows; how a faster block slows the stream (the prefetches 16 blocks ahead meeting
  // the demand loads sooner?) is unmeasured: this machine exposes no PMU counters to perf.
  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    __m256i dot[NR][2];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m256i offset = _mm256_set1_epi32(-128 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
      dot[r][0] = dot[r][1] = offset;
    }
#pragma GCC unroll 8
    for (int c = 0; c < 8; ++c) {
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256i codes = avx2::half_line(blk + 32 + 64 * c, h);
#pragma GCC unroll 8
        for (int r = 0; r < NR; ++r) {
          dot[r][h] = _mm256_dpbusd_avx_epi32(dot[r][h], codes, avx2::broadcast4(x[r].q + s * kQK + 4 * c));
        }
      }
    }
    const __m256 dw[2] = {avx2::fp16x8(blk), avx2::fp16x8(blk + 16)};
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m256 dx = _mm256_set1_ps(x[r].d[s]);
      for (int h = 0; h < 2; ++h) {
        acc[r][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot[r][h]), _mm256_mul_ps(dw[h], dx), acc[r][h]);
      }
    }
  }
};

}  // namespace

void matmul_packed_q8_0(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ8Vnni>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx2vnni
