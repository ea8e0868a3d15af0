// The packed Q4_K and Q5_K layouts: a Q4_K (Q5_K) weight matrix rearranged so that one
// 64-byte load, an and and a shift (and for Q5_K an or of the 5th bits) give the VNNI
// operands for 16 output rows by 2 x 4 inputs, with the 6-bit scales and mins already
// unpacked. Q4_K: 2368 bytes per 16 rows and super-block where the file takes 2304 (the
// unpacked scales and mins cost 2.8%); Q5_K: 2880 where the file takes 2816 (2.3%).
//
// Rows are taken kPackedGroupRows (16, packed_q8.h) at a time; the last group is padded
// with zero rows (d, dmin, scales, mins and codes all 0: they add exactly nothing).
// Group g holds, for each 256-input super-block s in order, kPackedQ4KBlockBytes bytes:
//   offset   0: the 16 rows' d (fp16, row 0 first)
//   offset  32: the 16 rows' dmin (fp16)
//   offset  64: scales, byte 16 * j + i = 6-bit scale of sub-block j (inputs 32j..32j+31) of row i
//   offset 192: mins, byte 32 * p + 2 * i + e = 6-bit min of sub-block 2p + e of row i, so
//               that widened to int16 they pair up per row for one multiply-add per 2 sub-blocks
//   offset 320: 32 code lines of 64 bytes; line 8p + t, byte 4 * i + k holds, for row i,
//               the code of input 64p + 4t + k (sub-block 2p) in its low nibble and of
//               input 64p + 32 + 4t + k (sub-block 2p + 1) in its high nibble.
//   Q5_K only, offset 2368: 8 lines of the codes' 5th bits; line 2p + v, byte 4 * i + k holds
//               in bits 2u and 2u + 1 the 5th bits of the low- and high-nibble codes of
//               code line 8p + 4v + u at byte 4 * i + k (u = 0..3).
// A group's super-blocks are contiguous, so one group streams as one run of memory. The
// AVX2 kernel reads the same layout as two 8-row halves of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernel, hence the same bits),
// per output row and activation row (make_q8_row_layout(n_in, 256)), super-block after
// super-block, acc starting at 0:
//   dots = sum_j scale_j * (sum over sub-block j of code * x)   exactly in int32 (code 0..15,
//                                                                Q5_K 0..31)
//   mins = sum_j min_j * (sum over sub-block j of x)             exactly in int32
//   acc = fma(float(dots), d_w * d_x, acc);  acc = fma(-float(mins), dmin_w * d_x, acc)
// and y = acc.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_q8.h"

namespace strata::kernels {

constexpr size_t kPackedQ4KScalesOffset = 64;
constexpr size_t kPackedQ4KMinsOffset = 192;
constexpr size_t kPackedQ4KCodesOffset = 320;
constexpr size_t kPackedQ4KBlockBytes = kPackedQ4KCodesOffset + 32 * 64;
constexpr size_t kPackedQ5KHighOffset = kPackedQ4KBlockBytes;
constexpr size_t kPackedQ5KBlockBytes = kPackedQ5KHighOffset + 8 * 64;

// Bytes of the packed form of an n_out x n_in Q4_K matrix (n_in a multiple of 256).
size_t packed_q4_k_bytes(int64_t n_out, int64_t n_in);

// Writes w (Q4_K) in the packed layout to dst (packed_q4_k_bytes() bytes).
void pack_q4_k(const WeightMatrix& w, std::byte* dst);

// The same for Q5_K.
size_t packed_q5_k_bytes(int64_t n_out, int64_t n_in);
void pack_q5_k(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed Q4_K kernels: y for output rows [o_begin, o_end) from
// args.w's packed bytes (args.w->packed) and the Q8 activation rows (block 256).
void matmul_packed_q4_k_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// The same for Q5_K.
void matmul_packed_q5_k_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
