// The walk every packed layout shares (packed_q8.h, packed_q4_0.h, packed_q4k.h, packed_q6k.h): rows in
// groups of kPackedGroupRows, each group a run of fixed-size blocks, one per block of inputs.
// The layouts differ only in what one row's block becomes and how one block is multiplied;
// these templates do the rest. Header-only, `static` (see quant_blocks.h on mixed-ISA files).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/kernel_table.h"

namespace strata::kernels {

constexpr int kPackedGroupRows = 16;

static inline int64_t packed_n_groups(int64_t n_out) { return (n_out + kPackedGroupRows - 1) / kPackedGroupRows; }

// Bytes of a packed n_out x n_in matrix whose blocks cover block_elems inputs each.
static inline size_t packed_size(int64_t n_out, int64_t n_in, int64_t block_elems, size_t block_bytes) {
  return static_cast<size_t>(packed_n_groups(n_out)) * static_cast<size_t>(n_in / block_elems) * block_bytes;
}

// Writes w packed to dst: every group block starts zeroed, then pack_row(src, i, out) fills
// lane i from the row's source block src (of src_block_bytes in the file's layout), or gets
// src == nullptr for a padding row past n_out.
template <class PackRow>
static void pack_groups(const WeightMatrix& w, int64_t block_elems, size_t block_bytes, size_t src_block_bytes,
                 std::byte* dst, PackRow&& pack_row) {
  const int64_t n_blocks = w.n_in / block_elems;
  for (int64_t g = 0; g < packed_n_groups(w.n_out); ++g) {
    for (int64_t s = 0; s < n_blocks; ++s) {
      std::byte* out = dst + (g * n_blocks + s) * block_bytes;
      std::memset(out, 0, block_bytes);
      for (int i = 0; i < kPackedGroupRows; ++i) {
        const int64_t o = g * kPackedGroupRows + i;
        const std::byte* src = o < w.n_out ? static_cast<const std::byte*>(w.data) + o * w.row_bytes +
                                                 s * static_cast<int64_t>(src_block_bytes)
                                           : nullptr;
        pack_row(src, i, out);
      }
    }
  }
}

// The scalar oracles' loop: y[r][o] = acc after acc = step(block, lane, x, s, acc) over the
// blocks s in order, from acc = 0, for output rows [o_begin, o_end) of args.w->packed.
template <class Step>
static void packed_oracle_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end, int64_t block_elems,
                        size_t block_bytes, Step&& step) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / block_elems;
  const auto* packed = static_cast<const std::byte*>(w.packed);
  for (int r = 0; r < a.n_rows; ++r) {
    const Q8Row x = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
    for (int64_t o = o_begin; o < o_end; ++o) {
      const int64_t g = o / kPackedGroupRows;
      const int i = static_cast<int>(o % kPackedGroupRows);
      float acc = 0.0f;
      for (int64_t s = 0; s < n_blocks; ++s) acc = step(packed + (g * n_blocks + s) * block_bytes, i, x, s, acc);
      a.y[static_cast<int64_t>(r) * w.n_out + o] = acc;
    }
  }
}

// The oracles' float step for the layouts whose super-block is 16 sub-blocks of 16 unsigned
// codes with an int8 scale each (packed Q6_K, offset 32; packed Q3_K, offset 4): one row (lane
// i) against one activation super-block, exact in int32 (sum over k of scale_k * (dot_k -
// offset * sum16_k)), then one fma with the row's fp16 d (the group's first 32 bytes) times xd.
// Scales sit at scales[32 * (k / 2) + 2 * i + k % 2]; code(e) is the row's code of input e.
template <class Code>
static float scaled_sub_blocks_step(const std::byte* blk, int i, const int8_t* scales, int offset, Code&& code,
                                    const int8_t* xq, float xd, const int16_t* sum16, float acc) {
  uint16_t d_bits;
  std::memcpy(&d_bits, blk + 2 * i, 2);
  int32_t dots = 0, offsets = 0;
  for (int k = 0; k < 16; ++k) {
    int32_t dot = 0;
    for (int e = 16 * k; e < 16 * k + 16; ++e) dot += code(e) * xq[e];
    const int scale = scales[32 * (k / 2) + 2 * i + k % 2];
    dots += scale * dot;
    offsets += scale * sum16[k];
  }
  return std::fma(static_cast<float>(dots - offset * offsets), fp16_to_fp32(d_bits) * xd, acc);
}

}  // namespace strata::kernels
