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

// Asks for every cache line of the block that starts ahead_bytes past blk.
static inline void prefetch_block(const std::byte* blk, size_t block_bytes, int64_t ahead_bytes) {
  for (size_t off = 0; off < block_bytes; off += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(blk) + ahead_bytes + off, _MM_HINT_T0);
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
