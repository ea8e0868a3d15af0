// Scalar reference kernels: plain C++, written to be obviously right rather than fast.
// They run on any x86-64 (the fallback table) and are what the SIMD kernels are tested
// against. Stateless; thread-safe on disjoint outputs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernel_table.h"

namespace strata::kernels::reference {

// n elements of a row stored in `type` (n a multiple of the block size) to floats.
// Returns false for a type it cannot decode.
bool dequantize(DType type, const void* src, int64_t n, float* out);

void quantize_q8_row(const float* x, int64_t n_in, int block, std::byte* dst);
void matmul_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end);

void rmsnorm(const float* x, const float* weight, int n, float eps, float* out);
void layernorm(const float* x, const float* weight, int n, float eps, float* out);
void silu_mul(float* gate, const float* up, int n);
void silu_mul_clamped(float* gate, const float* up, int n, float limit);
void gelu_mul(float* gate, const float* up, int n);
void swiglu_oai(float* gate, const float* up, int n);
void rope(float* x, int n_heads, int pos, const RopeParams& p);
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

void store_kv(const float* x, int n, DType type, void* dst);
void load_kv(const void* src, int n, DType type, float* out);
void attention(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
               int n_kv_heads);

}  // namespace strata::kernels::reference
