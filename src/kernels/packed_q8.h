// The packed Q8_0 layout: a Q8_0 weight matrix rearranged so that one 512-bit VNNI
// instruction multiplies 16 output rows by 4 inputs. Same numbers, same size as Q8_0.
//
// Rows are taken 16 at a time (a "group"; the last group is padded with zero rows). Group g
// holds, for each 32-input block s in order, kPackedGroupBlockBytes bytes:
//   16 fp16 scales, row 0 first (32 bytes), then
//   8 chunks of 64 bytes; chunk c holds inputs 4c..4c+3 of the block for rows 0..15,
//   row by row, each code stored as q + 128 (unsigned, as VNNI's first operand wants).
// A group's blocks are contiguous, so one group streams as one run of memory. The AVX2
// kernel reads the same layout as two 8-row halves of each 64-byte chunk.
//
// Arithmetic (the same in the scalar reference and the SIMD kernel, hence the same bits):
// per block, dot = sum (q + 128) * x - 128 * sum x exactly in int32, then
// acc = fma(float(dot), d_w * d_x, acc), block after block; y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_groups.h"

namespace strata::kernels {

constexpr size_t kPackedGroupBlockBytes = 16 * 2 + 16 * 32;

// Bytes of the packed form of an n_out x n_in Q8_0 matrix (n_in a multiple of 32).
size_t packed_q8_0_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q8_0) in the packed layout to dst (packed_q8_0_bytes() bytes).
void pack_q8_0(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed kernels: y for output rows [o_begin, o_end) from args.w's
// packed bytes (args.w->packed) and the Q8 activation rows.
void matmul_packed_q8_0_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
