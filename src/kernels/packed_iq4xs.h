// The packed IQ4_XS layout: an IQ4_XS weight matrix rearranged like Q4_K's (packed_q4k.h) so
// that one 64-byte load, an and and a shift give the 4-bit codes of 16 output rows by 2 x 4
// inputs, and one byte shuffle per nibble half turns them into levels, with the 6-bit
// scales already unpacked (minus 32, as int8). 2208 bytes per 16 rows and super-block where
// the file takes 2176 (1.5% more).
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows (d
// and scales 0: whatever their codes, they add exactly nothing).
// Group g holds, for each 256-input super-block s in order, kPackedIQ4XSBlockBytes bytes:
//   offset   0: the 16 rows' d (fp16, row 0 first)
//   offset  32: scales, byte 32 * p + 2 * i + e = ls - 32 (int8, -32..31) of sub-block 2p + e
//               (inputs 32(2p+e) .. +31) of row i, so that widened to int16 they pair up per row
//   offset 160: 32 code lines of 64 bytes; line 8p + t, byte 4 * i + k holds, for row i,
//               the code of input 64p + 4t + k (sub-block 2p) in its low nibble and of
//               input 64p + 32 + 4t + k (sub-block 2p + 1) in its high nibble.
// The AVX2 kernel reads the same layout as two 8-row halves of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernels, hence the same bits), per
// output row and activation row (make_q8_row_layout(n_in, 256)), super-block after
// super-block, acc starting at 0:
//   dots = sum_j (ls_j - 32) * (sum over sub-block j of level(code) * x)   exactly in int32
//   acc = fma(float(dots), d_w * d_x, acc)
// and y = acc. (How a kernel reaches the integer is its own business: the AVX-512 kernel
// multiplies level + 128, unsigned, and subtracts 128 * the activation sums.)
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"

namespace strata::kernels {

constexpr size_t kPackedIQ4XSScalesOffset = 32;
constexpr size_t kPackedIQ4XSCodesOffset = 160;
constexpr size_t kPackedIQ4XSBlockBytes = kPackedIQ4XSCodesOffset + 32 * 64;

// Bytes of the packed form of an n_out x n_in IQ4_XS matrix (n_in a multiple of 256).
size_t packed_iq4_xs_bytes(int64_t n_out, int64_t n_in);

// Writes w (IQ4_XS) in the packed layout to dst (packed_iq4_xs_bytes() bytes).
void pack_iq4_xs(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed IQ4_XS kernels: y for output rows [o_begin, o_end) from
// args.w's packed bytes (args.w->packed) and the Q8 activation rows (block 256).
void matmul_packed_iq4_xs_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
