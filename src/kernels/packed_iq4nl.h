// The packed IQ4_NL and MXFP4 layouts: an IQ4_NL or MXFP4 weight matrix rearranged like Q4_0's
// (packed_q4_0.h), so that one 64-byte load, an and and a shift give the 4-bit codes of 16
// output rows by 2 x 4 inputs, and one byte shuffle per nibble half turns them into levels.
// The two types differ only in their 16 levels (tensor/iq_grids.h, tensor/mxfp4.h) and in
// their scales: IQ4_NL's fp16 d, MXFP4's 2^(e - 128) (mxfp4_scale()), which is packed as a
// bf16 (a power of two, the subnormal 2^-128 and 2^-127 included, is exactly the top half of
// its float bits). Both packed forms are the size of IQ4_NL (18 bytes per row and block; MXFP4's
// file has 17).
//
// Rows are taken kPackedGroupRows (16) at a time; the last group is padded with zero rows
// (scale 0: whatever their codes, they add exactly nothing). Group g holds, for each 32-input
// block s in order, kPackedIQ4NLBlockBytes (= kPackedMXFP4BlockBytes) bytes:
//   offset  0: the 16 rows' scales, row 0 first: IQ4_NL's d (fp16), MXFP4's scale (bf16)
//   offset 32: 4 code lines of 64 bytes; line c, byte 4 * i + k holds, for row i, the code
//              of input 4c + k in its low nibble and of input 16 + 4c + k in its high nibble
//              (the block's own bytes qs[4c + k]).
// The AVX2 kernels read the same layouts as two 8-row halves of each 64-byte line.
//
// Arithmetic (the same in the scalar oracle and the SIMD kernels, hence the same bits; that of
// packed Q4_0 with levels for codes), per output row and activation row (make_q8_row_layout(n_in,
// 32)), block after block, acc starting at 0: dot = sum level(code) * x exactly in int32, acc =
// fma(float(dot), d_w * d_x, acc) with d_w the row's scale as a float; y = acc. (The unpacked
// kernels sum a block in 8 float lanes of 4 inputs, so a matrix's bits differ packed and not, as
// Q4_0's do. Up to 2026-12-04 the packed layouts kept those lanes: 8 conversions and fused
// multiply-adds per block and row instead of one, and the AVX2 kernel ran at Q4_0's half speed.)
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
// MXFP4's packed bytes are the same but for the scales' format (bf16 instead of fp16).
constexpr size_t kPackedMXFP4CodesOffset = kPackedIQ4NLCodesOffset;
constexpr size_t kPackedMXFP4BlockBytes = kPackedIQ4NLBlockBytes;

// Bytes of the packed form of an n_out x n_in IQ4_NL or MXFP4 matrix (n_in a multiple of 32).
size_t packed_iq4_nl_bytes(int64_t n_out, int64_t n_in);
size_t packed_mxfp4_bytes(int64_t n_out, int64_t n_in);

// Writes w (IQ4_NL, MXFP4) in its packed layout to dst (packed_*_bytes() bytes).
void pack_iq4_nl(const WeightMatrix& w, std::byte* dst);
void pack_mxfp4(const WeightMatrix& w, std::byte* dst);

namespace reference {
// Scalar oracles of the packed IQ4_NL and MXFP4 kernels: y for output rows [o_begin, o_end)
// from args.w's packed bytes (args.w->packed) and the Q8 activation rows (block 32).
void matmul_packed_iq4_nl_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_mxfp4_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace reference

}  // namespace strata::kernels
