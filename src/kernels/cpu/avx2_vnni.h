// The AVX2 + AVX-VNNI table: the AVX2 table (avx2_table.cc) with its packed Q8_0, Q4_0,
// Q5_0, Q4_K, Q5_K, Q6_K, Q3_K, Q2_K, IQ4_NL, MXFP4 and IQ4_XS kernels (all its packed kernels)
// taking the 256-bit VEX vpdpbusd of AVX-VNNI (Intel Alder Lake and later client cores, AMD
// Zen 5), for CPUs that have AVX-VNNI but no AVX-512. On AVX2 alone a Q8_0 dot costs four
// instructions per 32 products and input row (sign, maddubs, madd, add), so decode with 3-4
// sequences is instruction bound; one vpdpbusd does the same work. So do its TQ1_0 and TQ2_0
// matmuls (through matmul_rows). Every other entry is the AVX2 table's, and every kernel gives
// the same bits as the AVX2 table's.
// Constant data and declarations only; the kernels run only after avx2_vnni_table() has
// checked the CPU.
#pragma once

#include <cstdint>

#include "kernels/kernel_table.h"

namespace strata::kernels {

// nullptr when this CPU lacks AVX2 + FMA + F16C (avx2_table()) or AVX-VNNI.
const KernelTable* avx2_vnni_table();

namespace cpu {

// Constant-initialised, so no SIMD instruction runs before the CPU check.
extern const KernelTable kAvx2VnniKernels;

namespace avx2vnni {
// Matmul over the packed_q8.h layout (avx2_vnni_packed_q8.cc).
void matmul_packed_q8_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// Matmul over the packed_q4_0.h and packed_q5_0.h layouts (avx2_packed_q4_0.cc,
// avx2_packed_q5_0.cc built with AVX-VNNI).
void matmul_packed_q4_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q5_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// Matmul over the packed_q4k.h layouts (avx2_packed_q4k.cc built with AVX-VNNI).
void matmul_packed_q4_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q5_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// Matmul over the packed_q6k.h layout (avx2_packed_q6k.cc built with AVX-VNNI).
void matmul_packed_q6_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// Matmul over the packed_q3k.h and packed_q2k.h layouts (avx2_packed_q3k.cc,
// avx2_packed_q2k.cc built with AVX-VNNI).
void matmul_packed_q3_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q2_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// Matmul over the packed_iq4nl.h (IQ4_NL and MXFP4) and packed_iq4xs.h layouts
// (avx2_packed_iq4nl.cc, avx2_packed_iq4xs.cc built with AVX-VNNI).
void matmul_packed_iq4_nl(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_mxfp4(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_iq4_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// The TQ1_0 and TQ2_0 matmuls (avx2_matmul_tq.cc built with AVX-VNNI), and the table's
// matmul_rows: those two types there, the AVX2 table's kernels for every other type.
void matmul_tq1_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_tq2_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
}  // namespace avx2vnni

}  // namespace cpu
}  // namespace strata::kernels
