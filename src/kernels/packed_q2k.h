// The packed Q2_K layout: a Q2_K weight matrix rearranged so that one 64-byte line, shifted
// and masked, gives the VNNI operand (unsigned 2-bit codes) for 16 output rows by 4 inputs,
// with each row's scale-and-min bytes grouped by row. Exactly Q2_K's size (1344 bytes per 16
// rows and super-block).
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows
// (d, dmin, scales, mins and codes all 0: they add exactly nothing). Group g holds, for each
// 256-input super-block s in order, kPackedQ2KBlockBytes bytes:
//   offset   0: the 16 rows' d (fp16, row 0 first)
//   offset  32: the 16 rows' dmin (fp16)
//   offset  64: byte 32 * q + 2 * i + e = the file's scales byte of sub-block 2q + e (inputs
//               16(2q+e)..16(2q+e)+15) of row i: the 4-bit scale in its low nibble, the
//               4-bit min in its high nibble; widened to int16 they pair up per row for one
//               multiply-add per 2 sub-blocks
//   offset 320: 16 code lines; line 8h + t, byte 4 * i + k holds, for row i, in bits 2c,
//               2c + 1 the code of input 128h + 32c + 4t + k (c = 0..3): the file's
//               qs[32h + 4t + k]
// Input 128h + 32c + 4t + k lies in sub-block 8h + 2c + t / 4. The file's value is
// d * scale * code - dmin * min. The AVX2 kernel reads the same layout as two 8-row halves
// of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernels, hence the same bits), per
// output row and activation row (make_q8_row_layout(n_in, 256)), super-block after
// super-block, acc starting at 0:
//   dots = sum_k scale_k * (sum over sub-block k of code * x)   exactly in int32
//   mins = sum_k min_k * (sum over sub-block k of x)             exactly in int32
//   acc = fma(float(dots), d_w * d_x, acc);  acc = fma(-float(mins), dmin_w * d_x, acc)
// and y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_groups.h"

namespace strata::kernels {

constexpr size_t kPackedQ2KScalesOffset = 64;
constexpr size_t kPackedQ2KCodesOffset = kPackedQ2KScalesOffset + 8 * 32;
constexpr size_t kPackedQ2KBlockBytes = kPackedQ2KCodesOffset + 16 * 64;

// Bytes of the packed form of an n_out x n_in Q2_K matrix (n_in a multiple of 256).
size_t packed_q2_k_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q2_K) in the packed layout to dst (packed_q2_k_bytes() bytes).
void pack_q2_k(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed Q2_K kernels: y for output rows [o_begin, o_end) from args.w's
// packed bytes (args.w->packed) and the Q8 activation rows (block 256).
void matmul_packed_q2_k_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
