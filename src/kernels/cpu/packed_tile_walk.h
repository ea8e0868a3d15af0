// The loop every packed kernel shares, whatever its layout and instruction set
// (avx2_packed_*.cc, avx512_packed_*.cc): row groups of 16 outputs times tiles of up to
// kMaxTileRows input rows, block after block of the group, with the weights prefetched.
// `static inline` templates and SSE prefetches only, so nothing here can leak wider
// instructions into baseline code.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_groups.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels::cpu {

// Calls tile.template operator()<n>(g, r) for the remaining n (< N + 1) rows.
template <int N, class Tile>
static inline void remainder_tile(int n, Tile& tile, int64_t g, int r) {
  if constexpr (N >= 1) {
    if (n == N) {
      tile.template operator()<N>(g, r);
      return;
    }
    remainder_tile<N - 1>(n, tile, g, r);
  }
}

// Every row group touching [o_begin, o_end) against every input row, kMaxRows rows a tile:
// tile.template operator()<NR>(g, r0) computes group g for input rows [r0, r0 + NR).
template <int kMaxRows, class Tile>
static inline void for_each_packed_tile(int64_t o_begin, int64_t o_end, int n_rows, Tile&& tile) {
  const int64_t g_end = (o_end + kPackedGroupRows - 1) / kPackedGroupRows;
  for (int64_t g = o_begin / kPackedGroupRows; g < g_end; ++g) {
    int r = 0;
    for (; r + kMaxRows <= n_rows; r += kMaxRows) tile.template operator()<kMaxRows>(g, r);
    if (r < n_rows) remainder_tile<kMaxRows - 1>(n_rows - r, tile, g, r);
  }
}

// The Q8 activation rows [r0, r0 + NR) of a tile.
template <int NR>
static inline void tile_inputs(const MatmulArgs& a, int r0, Q8Row* x) {
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) x[r] = q8_row(a.xq + static_cast<size_t>(r0 + r) * a.xq_layout.row_bytes, a.xq_layout);
}

// The largest block prefetched into L1; larger ones go to L2.
inline constexpr size_t kL1PrefetchMaxBytes = 1024;

// Asks for every cache line of the block that starts ahead_bytes past blk. The K-quants' and
// IQ4_XS's blocks (a row group's super-block: 1.3-3.3 KB, 21-53 lines) go to L2: asked into L1
// at once, their lines filled the L1's miss buffers and held up the kernel's own loads. On the
// 2-core Zen 4 (BM_Matmul 2048 x 5632, from DRAM, AVX2 table, least of 3 alternating runs)
// into L2 took 0.40-0.64x the time for Q4_K, Q5_K, Q6_K and Q2_K at 1-2 rows and Q4_K to Q6_K
// at 8, and Q3_K 0.71-0.78x at 1-2 rows; into neither cache (the hardware prefetchers alone)
// 0.53-0.72x. Smaller blocks (Q8_0, Q4_0, Q5_0, IQ4_NL: 5-9 lines) stay in L1: into L2, Q4_0
// took 1.1-1.4x the time at 1-2 rows and Q8_0 moved either way. block_bytes is a constant
// where this is inlined, so one loop remains.
static inline void prefetch_block(const std::byte* blk, size_t block_bytes, int64_t ahead_bytes) {
  const char* ahead = reinterpret_cast<const char*>(blk) + ahead_bytes;
  if (block_bytes > kL1PrefetchMaxBytes) {
    for (size_t off = 0; off < block_bytes; off += 64) _mm_prefetch(ahead + off, _MM_HINT_T1);
  } else {
    for (size_t off = 0; off < block_bytes; off += 64) _mm_prefetch(ahead + off, _MM_HINT_T0);
  }
}

// The whole matmul of one packed kernel K over output rows [o_begin, o_end). K supplies
//   kBlockInputs, kBlockBytes     inputs and bytes of one block of a row group
//   kPrefetchBytes, kMaxTileRows  how far ahead to prefetch; input rows per tile
//   Acc                           one input row's float accumulators for a group's 16 rows
//   template <int NR> static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc)
//                                 adds block s of the group to the NR rows' accumulators
//   template <int NR> static void store(const MatmulArgs&, int64_t g, int r0, int64_t o_begin,
//                                       int64_t o_end, const Acc* acc)
// Every (output row, input row) pair thus sees its blocks in order, whatever the tile.
template <class K>
static inline void packed_matmul(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const int64_t n_blocks = a.w->n_in / K::kBlockInputs;
  for_each_packed_tile<K::kMaxTileRows>(o_begin, o_end, a.n_rows, [&]<int NR>(int64_t g, int r0) {
    const std::byte* group = static_cast<const std::byte*>(a.w->packed) + g * n_blocks * K::kBlockBytes;
    Q8Row x[NR];
    tile_inputs<NR>(a, r0, x);
    typename K::Acc acc[NR]{};
    // Only a group's first tile streams its weights from memory; the later tiles of a prompt
    // find them in cache, where the prefetches only take load slots (perf put ~6% of an AVX2
    // Q8_0 prefill tile's samples on them).
    if (r0 == 0) {
      for (int64_t s = 0; s < n_blocks; ++s) {
        const std::byte* blk = group + s * K::kBlockBytes;
        prefetch_block(blk, K::kBlockBytes, K::kPrefetchBytes);
        K::template block<NR>(blk, x, s, acc);
      }
    } else {
      for (int64_t s = 0; s < n_blocks; ++s) K::template block<NR>(group + s * K::kBlockBytes, x, s, acc);
    }
    K::template store<NR>(a, g, r0, o_begin, o_end, acc);
  });
}

}  // namespace strata::kernels::cpu
