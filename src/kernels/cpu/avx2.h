// The AVX2 + FMA + F16C kernels. Every function declared here may only run on a CPU
// that has those features (kernel_table.cc checks before handing out the table).
#pragma once

#include "kernels/kernel_table.h"

namespace strata::kernels::cpu {

// Constant-initialised, so no AVX2 instruction runs before the CPU check.
extern const KernelTable kAvx2Kernels;

namespace avx2 {
void quantize_q8_row(const float* x, int64_t n_in, int block, std::byte* dst);
void matmul_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
// Per weight family; matmul_rows dispatches on the type.
void matmul_float(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q8_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q4_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q5_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q4_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q5_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q6_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void rmsnorm(const float* x, const float* weight, int n, float eps, float* out);
void silu_mul(float* gate, const float* up, int n);
void store_kv(const float* x, int n, DType type, void* dst);
void load_kv(const void* src, int n, DType type, float* out);
void attention(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
               int n_kv_heads);
int argmax(const float* x, int n);
}  // namespace avx2

}  // namespace strata::kernels::cpu
