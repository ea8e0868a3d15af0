// The packed Q5_0 layout: Q4_0's packed layout (packed_q4_0.h) plus one 64-byte line of fifth
// bits per block, arranged so that a shift and an and put each bit beside its nibble. Same
// size as Q5_0 (16 x 22 bytes per group block). Q5_0 appears in released K-quant files as the
// fallback for matrices whose width is not a multiple of 256 (the 1408-wide expert down
// projections of Qwen1.5-MoE and DeepSeek-V2-Lite), so MoE decode streams it.
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows
// (scale 0: they add exactly nothing). Group g holds, for each 32-input block s in order,
// kPackedQ50BlockBytes bytes:
//   offset  0: the 16 rows' d (fp16, row 0 first)
//   offset 32: the fifth-bit line; byte 4 * i + k holds, for row i, bit 2c = the fifth bit of
//              input 4c + k and bit 2c + 1 = that of input 16 + 4c + k, for c = 0..3
//   offset 96: 4 code lines of 64 bytes exactly as Q4_0's (line c, byte 4 * i + k: low
//              nibbles of inputs 4c + k and 16 + 4c + k)
// Codes are unsigned 0..31 with offset 16.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernels, hence the same bits), per
// output row and activation row (make_q8_row_layout(n_in, 32)), block after block, acc
// starting at 0: dot = sum (code - 16) * x exactly in int32, acc = fma(float(dot), d_w * d_x,
// acc); y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_groups.h"

namespace strata::kernels {

constexpr size_t kPackedQ50HighOffset = 32;
constexpr size_t kPackedQ50CodesOffset = 96;
constexpr size_t kPackedQ50BlockBytes = kPackedQ50CodesOffset + 4 * 64;

// Bytes of the packed form of an n_out x n_in Q5_0 matrix (n_in a multiple of 32).
size_t packed_q5_0_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q5_0) in the packed layout to dst (packed_q5_0_bytes() bytes).
void pack_q5_0(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed Q5_0 kernels: y for output rows [o_begin, o_end) from args.w's
// packed bytes (args.w->packed) and the Q8 activation rows (block 32).
void matmul_packed_q5_0_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
