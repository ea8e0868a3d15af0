// The packed Q3_K layout: a Q3_K weight matrix rearranged so that one 64-byte line of low
// bits and one of high bits, shifted, masked and or-ed, give the VNNI operand (unsigned
// 3-bit codes) for 16 output rows by 4 inputs, with the 6-bit scales decoded at pack time
// into int8 (sc - 32) grouped by row. 1824 bytes per 16 rows and super-block where the file
// takes 1760 (the decoded scales cost 3.6%).
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows
// (d, scales and codes all 0: they add exactly nothing). Group g holds, for each 256-input
// super-block s in order, kPackedQ3KBlockBytes bytes:
//   offset    0: the 16 rows' d (fp16, row 0 first)
//   offset   32: scales, byte 32 * q + 2 * i + e = int8 scale (sc - 32) of sub-block 2q + e
//                (inputs 16(2q+e)..16(2q+e)+15) of row i, so that widened to int16 they pair
//                up per row for one multiply-add per 2 sub-blocks
//   offset  288: 16 lines of the codes' low 2 bits; line 8h + t, byte 4 * i + k holds, for
//                row i, in bits 2c, 2c + 1 those of input 128h + 32c + 4t + k (c = 0..3):
//                the file's qs[32h + 4t + k]
//   offset 1312: 8 lines of the codes' high bits; line t, byte 4 * i + k holds, for row i, in
//                bit m the high bit of input 32m + 4t + k (m = 0..7): the file's hmask[4t + k]
// Input 128h + 32c + 4t + k lies in sub-block 8h + 2c + t / 4. Codes are unsigned 0..7
// (low2 + 4 * high bit), offset 4: the file's value is d * (sc - 32) * (code - 4).
// The AVX2 kernel reads the same layout as two 8-row halves of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernels, hence the same bits), per
// output row and activation row (make_q8_row_layout(n_in, 256)), super-block after
// super-block, acc starting at 0:
//   total = sum_k scale_k * (sum over sub-block k of code * x)
//           - 4 * sum_k scale_k * (sum over sub-block k of x)      exactly in int32
//   acc = fma(float(total), d_w * d_x, acc)
// and y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_groups.h"

namespace strata::kernels {

constexpr size_t kPackedQ3KScalesOffset = 32;
constexpr size_t kPackedQ3KLowOffset = kPackedQ3KScalesOffset + 8 * 32;
constexpr size_t kPackedQ3KHighOffset = kPackedQ3KLowOffset + 16 * 64;
constexpr size_t kPackedQ3KBlockBytes = kPackedQ3KHighOffset + 8 * 64;

// Bytes of the packed form of an n_out x n_in Q3_K matrix (n_in a multiple of 256).
size_t packed_q3_k_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q3_K) in the packed layout to dst (packed_q3_k_bytes() bytes).
void pack_q3_k(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed Q3_K kernels: y for output rows [o_begin, o_end) from args.w's
// packed bytes (args.w->packed) and the Q8 activation rows (block 256).
void matmul_packed_q3_k_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
