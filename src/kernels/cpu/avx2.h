// The AVX2 + FMA + F16C kernels. Every function declared here may only run on a CPU
// that has those features (kernel_table.cc checks before handing out the table).
//
// The same sources are compiled twice (see src/kernels/CMakeLists.txt): once for AVX2 into
// namespace avx2, and once with AVX-512 (F, BW, VL) and VNNI into namespace avx512. The
// second build keeps 256-bit vectors and every float operation, so its results are
// bit-identical to the first; what changes is that integer dot products take one VNNI
// instruction instead of two, and 32 vector registers allow larger batch tiles.
#pragma once

#include "kernels/kernel_table.h"

#if defined(STRATA_KERNELS_AVX512)
#define STRATA_SIMD avx512
#else
#define STRATA_SIMD avx2
#endif

namespace strata::kernels::cpu {

// Constant-initialised, so no SIMD instruction runs before the CPU check.
extern const KernelTable kAvx2Kernels;
extern const KernelTable kAvx512Kernels;

namespace STRATA_SIMD {
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
void matmul_q4_1(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q5_1(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q2_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_q3_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq4_nl(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_mxfp4(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq4_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq3_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq3_xxs(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xxs(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq2_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq1_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_iq1_m(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_tq1_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);  // avx2_matmul_tq.cc
void matmul_tq2_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void rmsnorm(const float* x, const float* weight, int n, float eps, float* out);
void silu_mul(float* gate, const float* up, int n);
void gelu_mul(float* gate, const float* up, int n);
void swiglu_oai(float* gate, const float* up, int n);
void store_kv(const float* x, int n, DType type, void* dst);
void load_kv(const void* src, int n, DType type, float* out);
void attention(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
               int n_kv_heads);
int argmax(const float* x, int n);
void delta_rule(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                float scale, int dk, int dv, float* out);
void ssm_scan(float* state, const float* x, const float* B, const float* C, float decay, float dt, int n, int p,
              float* out);
void delta_rule_keys(float* state, const float* q, const float* k, const float* v, const float* decay, float beta,
                     float scale, int dk, int dv, float* out);
void kda_decay(const float* f, const float* bias, float rate, float bound, int n, float* decay);
void kda_softplus_decay(const float* f, const float* bias, float rate, int n, float* decay);
void sigmoid_mul(float* gate, const float* up, int n);
// Matmul over the packed_q8.h, packed_q4_0.h, packed_q5_0.h, packed_q4k.h (Q4_K and Q5_K) and
// packed_q6k.h layouts: avx2_packed_*.cc in the AVX2 build, avx512_packed_*.cc in the
// AVX-512 build.
void matmul_packed_q8_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q4_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q5_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q4_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q5_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_q6_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
void matmul_packed_iq4_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end);  // packed_iq4xs.h
void matmul_packed_iq4_nl(const MatmulArgs& args, int64_t o_begin, int64_t o_end);  // packed_iq4nl.h
void matmul_packed_mxfp4(const MatmulArgs& args, int64_t o_begin, int64_t o_end);   // packed_iq4nl.h
void matmul_packed_q3_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);    // packed_q3k.h
void matmul_packed_q2_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end);    // packed_q2k.h
}  // namespace STRATA_SIMD

}  // namespace strata::kernels::cpu
