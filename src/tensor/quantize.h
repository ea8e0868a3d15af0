// Encoding float rows into GGUF tensor types and decoding them back (scalar reference code).
//
// quantize_row / dequantize_row handle F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_K, Q5_K, Q6_K,
// Q4_1, Q5_1, Q2_K, Q3_K, IQ4_NL, IQ4_XS, MXFP4, the lattice i-quants IQ3_S, IQ3_XXS,
// IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S and IQ1_M, and the ternary TQ1_0 and TQ2_0 in the exact
// on-disk block layouts
// (block_layouts.h; the decoders are checked in gguf/quant_reference_test.cc, MXFP4's, which
// has no reference file there, against its definition in quantize_mxfp4_test.cc). The
// decoders follow the float evaluation order of the GGUF tools ((d * sc) * q - dmin * m), so
// other decoders that do the same match them bit for bit; kernels use them as their reference.
//
// The encoders round to nearest on the type's grid (no iterative error search, no
// importance matrix): good enough for generated models and tests, and fast. Those of Q4_1,
// Q5_1, Q2_K, Q3_K, IQ4_NL and IQ4_XS give each block's extreme element the extreme code, so
// a decoded row encodes again to the same values; so does MXFP4's, whose scale choice and
// rounding are ggml's reference quantizer's, and so do TQ1_0's and TQ2_0's, which write the
// bytes of ggml's reference quantizers (quantize_ternary.cc). The lattice i-quants take, per group, the
// nearest grid entry (quantize_iq_lattice*.cc); their first call builds constant search
// tables (under a second). Stateless otherwise; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"
#include "tensor/dtype.h"

namespace strata {

bool can_quantize(DType type);
bool can_dequantize(DType type);

// n elements (a multiple of the type's block size) from src into dst, which holds
// dtype_row_bytes(type, n) bytes.
Status quantize_row(DType type, const float* src, void* dst, size_t n);
Status dequantize_row(DType type, const void* src, float* dst, size_t n);

// Per-type entry points; n must be a multiple of the block size (unchecked).
void quantize_row_f16(const float* src, void* dst, size_t n);
void quantize_row_bf16(const float* src, void* dst, size_t n);
void quantize_row_q8_0(const float* src, void* dst, size_t n);
void quantize_row_q4_0(const float* src, void* dst, size_t n);
void quantize_row_q5_0(const float* src, void* dst, size_t n);
void quantize_row_q4_k(const float* src, void* dst, size_t n);
void quantize_row_q5_k(const float* src, void* dst, size_t n);
void quantize_row_q6_k(const float* src, void* dst, size_t n);
void quantize_row_q4_1(const float* src, void* dst, size_t n);
void quantize_row_q5_1(const float* src, void* dst, size_t n);
void quantize_row_q2_k(const float* src, void* dst, size_t n);
void quantize_row_q3_k(const float* src, void* dst, size_t n);
void quantize_row_iq4_nl(const float* src, void* dst, size_t n);
void quantize_row_iq4_xs(const float* src, void* dst, size_t n);
void quantize_row_mxfp4(const float* src, void* dst, size_t n);
void quantize_row_iq3_s(const float* src, void* dst, size_t n);
void quantize_row_iq3_xxs(const float* src, void* dst, size_t n);
void quantize_row_iq2_xxs(const float* src, void* dst, size_t n);
void quantize_row_iq2_xs(const float* src, void* dst, size_t n);
void quantize_row_iq2_s(const float* src, void* dst, size_t n);
void quantize_row_iq1_s(const float* src, void* dst, size_t n);
void quantize_row_iq1_m(const float* src, void* dst, size_t n);
void quantize_row_tq1_0(const float* src, void* dst, size_t n);
void quantize_row_tq2_0(const float* src, void* dst, size_t n);

void dequantize_row_f16(const void* src, float* dst, size_t n);
void dequantize_row_bf16(const void* src, float* dst, size_t n);
void dequantize_row_q8_0(const void* src, float* dst, size_t n);
void dequantize_row_q4_0(const void* src, float* dst, size_t n);
void dequantize_row_q5_0(const void* src, float* dst, size_t n);
void dequantize_row_q4_k(const void* src, float* dst, size_t n);
void dequantize_row_q5_k(const void* src, float* dst, size_t n);
void dequantize_row_q6_k(const void* src, float* dst, size_t n);
void dequantize_row_q4_1(const void* src, float* dst, size_t n);
void dequantize_row_q5_1(const void* src, float* dst, size_t n);
void dequantize_row_q2_k(const void* src, float* dst, size_t n);
void dequantize_row_q3_k(const void* src, float* dst, size_t n);
void dequantize_row_iq4_nl(const void* src, float* dst, size_t n);
void dequantize_row_iq4_xs(const void* src, float* dst, size_t n);
void dequantize_row_mxfp4(const void* src, float* dst, size_t n);
void dequantize_row_iq3_s(const void* src, float* dst, size_t n);
void dequantize_row_iq3_xxs(const void* src, float* dst, size_t n);
void dequantize_row_iq2_xxs(const void* src, float* dst, size_t n);
void dequantize_row_iq2_xs(const void* src, float* dst, size_t n);
void dequantize_row_iq2_s(const void* src, float* dst, size_t n);
void dequantize_row_iq1_s(const void* src, float* dst, size_t n);
void dequantize_row_iq1_m(const void* src, float* dst, size_t n);
void dequantize_row_tq1_0(const void* src, float* dst, size_t n);
void dequantize_row_tq2_0(const void* src, float* dst, size_t n);

}  // namespace strata
