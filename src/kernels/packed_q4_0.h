// The packed Q4_0 layout: a Q4_0 weight matrix rearranged so that one 64-byte load, an and
// and a shift give the VNNI operands for 16 output rows by 2 x 4 inputs. Same size as Q4_0.
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows
// (scale 0: they add exactly nothing). Group g holds, for each 32-input block s in order,
// kPackedQ40BlockBytes bytes:
//   offset  0: the 16 rows' d (fp16, row 0 first)
//   offset 32: 4 code lines of 64 bytes; line c, byte 4 * i + k holds, for row i, the code
//              of input 4c + k in its low nibble and of input 16 + 4c + k in its high nibble
//              (Q4_0's own bytes qs[4c + k]; codes are unsigned 0..15, offset 8).
// A group's blocks are contiguous, so one group streams as one run of memory. The AVX2
// kernel reads the same layout as two 8-row halves of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernels, hence the same bits), per
// output row and activation row (make_q8_row_layout(n_in, 32)), block after block, acc
// starting at 0: dot = sum (code - 8) * x exactly in int32, acc = fma(float(dot), d_w * d_x,
// acc); y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_groups.h"

namespace strata::kernels {

constexpr size_t kPackedQ40CodesOffset = 32;
constexpr size_t kPackedQ40BlockBytes = kPackedQ40CodesOffset + 4 * 64;

// Bytes of the packed form of an n_out x n_in Q4_0 matrix (n_in a multiple of 32).
size_t packed_q4_0_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q4_0) in the packed layout to dst (packed_q4_0_bytes() bytes).
void pack_q4_0(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed Q4_0 kernels: y for output rows [o_begin, o_end) from args.w's
// packed bytes (args.w->packed) and the Q8 activation rows (block 32).
void matmul_packed_q4_0_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
