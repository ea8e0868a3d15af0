// The packed Q6_K layout: a Q6_K weight matrix rearranged so that 64-byte loads, masks
// and shifts give the VNNI operands for 16 output rows by 4 inputs, with the int8 scales
// already grouped by row. Exactly Q6_K's size (3360 bytes per 16 rows and super-block).
//
// Rows are taken kPackedGroupRows (16, packed_q8.h) at a time; the last group is padded
// with zero rows (d, scales and codes all 0: they add exactly nothing). Group g holds,
// for each 256-input super-block s in order, kPackedQ6KBlockBytes bytes:
//   offset    0: the 16 rows' d (fp16, row 0 first)
//   offset   32: scales, byte 32 * q + 2 * i + e = int8 scale of sub-block 2q + e (inputs
//                16(2q+e)..16(2q+e)+15) of row i, so that widened to int16 they pair up
//                per row for one multiply-add per 2 sub-blocks
//   offset  288: 32 lines of the codes' low 4 bits; line 8p + t, byte 4 * i + k holds, for
//                row i, input 64p + 4t + k in its low nibble and input 64p + 32 + 4t + k
//                in its high nibble (the codes are Q6_K's unsigned 0..63, offset 32)
//   offset 2336: 16 lines of the codes' top 2 bits; line 4p + v, byte 4 * i + k holds,
//                for row i, in bits 0-1 / 2-3 / 4-5 / 6-7 those of the low-nibble and
//                high-nibble codes of line 8p + 2v, then of line 8p + 2v + 1, at byte 4i + k.
// The AVX2 kernel reads the same layout as two 8-row halves of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernel, hence the same bits),
// per output row and activation row (make_q8_row_layout(n_in, 256)), super-block after
// super-block, acc starting at 0:
//   total = sum_k scale_k * (sum over sub-block k of code * x)
//           - 32 * sum_k scale_k * (sum over sub-block k of x)    exactly in int32
//   acc = fma(float(total), d_w * d_x, acc)
// and y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_q8.h"

namespace strata::kernels {

constexpr size_t kPackedQ6KScalesOffset = 32;
constexpr size_t kPackedQ6KLowOffset = 288;
constexpr size_t kPackedQ6KHighOffset = kPackedQ6KLowOffset + 32 * 64;
constexpr size_t kPackedQ6KBlockBytes = kPackedQ6KHighOffset + 16 * 64;

// Bytes of the packed form of an n_out x n_in Q6_K matrix (n_in a multiple of 256).
size_t packed_q6_k_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q6_K) in the packed layout to dst (packed_q6_k_bytes() bytes).
void pack_q6_k(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed Q6_K kernels: y for output rows [o_begin, o_end) from
// args.w's packed bytes (args.w->packed) and the Q8 activation rows (block 256).
void matmul_packed_q6_k_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
