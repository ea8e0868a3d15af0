// What the packed AVX-512 kernels share (avx512_packed_*.cc) beyond the tile walk of
// packed_tile_walk.h: the masked store of a tile's accumulators. `static inline` templates
// only, so nothing here can leak into baseline code.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/kernel_table.h"
#include "kernels/cpu/packed_tile_walk.h"
#include "kernels/packed_q8.h"

namespace strata::kernels::cpu::avx512 {

// The 4 bytes at p in every int32 lane (4 activation codes for VNNI's signed operand, or 2
// int16 sums).
static inline __m512i broadcast4(const void* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return _mm512_set1_epi32(four);
}

// Writes lane i of acc[r] to y[(r0 + r) * n_out + 16 g + i] for the outputs in [o_begin, o_end).
template <int NR>
static inline void store_group(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end,
                               const __m512* acc) {
  const int64_t first = g * kPackedGroupRows;
  uint32_t mask = 0;
  for (int i = 0; i < kPackedGroupRows; ++i) {
    if (first + i >= o_begin && first + i < o_end) mask |= 1u << i;
  }
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    float* y = a.y + static_cast<int64_t>(r0 + r) * a.w->n_out + first;
    _mm512_mask_storeu_ps(y, static_cast<__mmask16>(mask), acc[r]);
  }
}

// The accumulator and the store of an AVX-512 packed kernel (see packed_matmul()): one
// 512-bit register holds a group's 16 rows. In an unnamed namespace: a member template of a
// struct with external linkage is a weak symbol wherever it is not inlined (clang -O1 left
// store<8> out of line), which the linker may merge across objects; here each object keeps its own.
namespace {
struct Avx512PackedKernel {
  using Acc = __m512;
  template <int NR>
  static void store(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end, const Acc* acc) {
    store_group<NR>(a, g, r0, o_begin, o_end, acc);
  }
};
}  // namespace

}  // namespace strata::kernels::cpu::avx512
