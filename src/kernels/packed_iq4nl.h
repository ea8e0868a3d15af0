// The packed IQ4_NL layout: an IQ4_NL weight matrix rearranged like Q4_0's (packed_q4_0.h),
// so that one 64-byte load, an and and a shift give the 4-bit codes of 16 output rows by
// 2 x 4 inputs, and one byte shuffle per nibble half turns them into levels. Same size as
// IQ4_NL (18 bytes per row and block).
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows (d
// 0: whatever their codes, they add exactly nothing). Group g holds, for each 32-input block
// s in order, kPackedIQ4NLBlockBytes bytes:
//   offset  0: the 16 rows' d (fp16, row 0 first)
//   offset 32: 4 code lines of 64 bytes; line c, byte 4 * i + k holds, for row i, the code
//              of input 4c + k in its low nibble and of input 16 + 4c + k in its high nibble
//              (IQ4_NL's own bytes qs[4c + k]).
// The AVX2 kernel reads the same layout as two 8-row halves of each 64-byte line.
//
// Arithmetic: exactly that of the unpacked IQ4_NL kernels (cpu/avx2_matmul_q32.cc), so a
// matrix gives the same bits packed or not. Per output row and activation row
// (make_q8_row_layout(n_in, 32)), 8 float lanes from 0; block after block, lane k (0..7)
// takes the exact int32 dot of inputs 4k .. 4k + 3 (level(code) * x), then
//   lane_k = fma(float(dot_k), d_w * d_x, lane_k)
// and y = ((lane0 + lane4) + (lane2 + lane6)) + ((lane1 + lane5) + (lane3 + lane7)).
// Lanes 0-3 are the low nibbles of lines 0-3, lanes 4-7 their high nibbles.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"
#include "kernels/packed_q4_0.h"

namespace strata::kernels {

// IQ4_NL's block has Q4_0's bytes (an fp16 d, then 16 bytes of nibble pairs); only what a code
// means differs. So the packed bytes are packed Q4_0's (pack_iq4_nl() is pack_q4_0()).
constexpr size_t kPackedIQ4NLCodesOffset = kPackedQ40CodesOffset;
constexpr size_t kPackedIQ4NLBlockBytes = kPackedQ40BlockBytes;

// Bytes of the packed form of an n_out x n_in IQ4_NL matrix (n_in a multiple of 32).
size_t packed_iq4_nl_bytes(int64_t n_out, int64_t n_in);

// Writes w (IQ4_NL) in the packed layout to dst (packed_iq4_nl_bytes() bytes).
void pack_iq4_nl(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracle of the packed IQ4_NL kernels: y for output rows [o_begin, o_end) from
// args.w's packed bytes (args.w->packed) and the Q8 activation rows (block 32).
void matmul_packed_iq4_nl_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
