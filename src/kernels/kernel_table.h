// KernelTable: the set of kernel implementations for one instruction set, and the
// choice of table for this CPU.
//
// Tables are immutable constants; active_table() picks one on first use from the CPU's
// features and returns the same table for the life of the process (a function-local
// static const, so there is no mutable global state). Tests reach every table that the
// CPU can run through reference_table() / avx2_table() / avx512_table() to compare them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/kernels.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

// Everything one matmul chunk needs. x is n_rows rows of n_in floats (read by the float
// weight types); xq is n_rows quantised activation rows of xq_layout.row_bytes() bytes
// each (read by the quantised types).
struct MatmulArgs {
  const WeightMatrix* w = nullptr;
  const float* x = nullptr;
  const std::byte* xq = nullptr;
  Q8RowLayout xq_layout;
  int n_rows = 0;
  float* y = nullptr;
};

struct KernelTable {
  const char* name;
  // Quantises n_in floats (a multiple of block, 32 or 256) into one activation row of
  // make_q8_row_layout(n_in, block).
  void (*quantize_q8_row)(const float* x, int64_t n_in, int block, std::byte* dst);
  // Computes y for output rows [o_begin, o_end) and all n_rows inputs.
  void (*matmul_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same from args.w->packed (packed_q8.h layout, Q8_0 only); nullptr when this table
  // has no packed path, and then it packs nothing.
  void (*matmul_packed_q8_0_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for Q4_0 (packed_q4_0.h layout); nullptr when this table has none.
  void (*matmul_packed_q4_0_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for Q5_0 (packed_q5_0.h layout); nullptr when this table has none.
  void (*matmul_packed_q5_0_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for Q4_K and Q5_K (packed_q4k.h layouts) and Q6_K (packed_q6k.h); nullptr when
  // this table has none.
  void (*matmul_packed_q4_k_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  void (*matmul_packed_q5_k_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  void (*matmul_packed_q6_k_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for IQ4_XS (packed_iq4xs.h); nullptr when this table has none.
  void (*matmul_packed_iq4_xs_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for IQ4_NL and MXFP4 (packed_iq4nl.h); nullptr when this table has none.
  void (*matmul_packed_iq4_nl_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  void (*matmul_packed_mxfp4_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for Q3_K (packed_q3k.h); nullptr when this table has none.
  void (*matmul_packed_q3_k_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  // The same for Q2_K (packed_q2k.h); nullptr when this table has none.
  void (*matmul_packed_q2_k_rows)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);
  void (*rmsnorm)(const float* x, const float* weight, int n, float eps, float* out);
  void (*silu_mul)(float* gate, const float* up, int n);
  void (*gelu_mul)(float* gate, const float* up, int n);
  void (*swiglu_oai)(float* gate, const float* up, int n);
  void (*store_kv)(const float* x, int n, DType type, void* dst);
  void (*load_kv)(const void* src, int n, DType type, float* out);
  // attention_kv_heads() for the kv heads [first_kv_head, first_kv_head + n_kv_heads).
  void (*attention)(const AttentionArgs& a, const float* q, float* out, float* scratch,
                    int first_kv_head, int n_kv_heads);
  int (*argmax)(const float* x, int n);
  void (*delta_rule)(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                     float scale, int dk, int dv, float* out);
  void (*ssm_scan)(float* state, const float* x, const float* B, const float* C, float decay, float dt, int n, int p,
                   float* out);
  void (*delta_rule_keys)(float* state, const float* q, const float* k, const float* v, const float* decay,
                          float beta, float scale, int dk, int dv, float* out);
  void (*kda_decay)(const float* f, const float* bias, float rate, float bound, int n, float* decay);
  void (*kda_softplus_decay)(const float* f, const float* bias, float rate, int n, float* decay);
  void (*sigmoid_mul)(float* gate, const float* up, int n);
};

// Bytes of one K/V head of head_dim elements in type (F32, F16 or Q8_0). Defined in
// baseline code so the SIMD files need no std::optional (see quant_blocks.h on why they
// avoid inline library code).
size_t kv_head_bytes(DType type, int head_dim);

// kernels::matmul() with an explicit table (the public one passes active_table()).
void matmul_with_table(const KernelTable& table, const WeightMatrix& w, const float* x, int n_rows, float* y,
                       AlignedBuffer& scratch, ThreadPool& pool);

const KernelTable& reference_table();
// nullptr when this CPU lacks AVX2 + FMA + F16C.
const KernelTable* avx2_table();
// nullptr when this CPU also lacks AVX-512 F/BW/VL/DQ + VNNI. Gives the same bits as the
// AVX2 table for every kernel (same float operations; see cpu/avx2.h).
const KernelTable* avx512_table();
// The table every public kernel uses: the fastest one this CPU supports.
const KernelTable& active_table();

// Keys the SIMD tables' decode attention path (cpu/avx2_attention_decode.cc) scores in one
// window of whole K/V blocks (one block when a block is larger); attention_scratch_floats()
// sizes its buffers for this many.
inline constexpr int kAttentionDecodeWindowKeys = 64;
// Kv heads (of 3-8 query heads each) that the decode path walks over the keys together, each
// with its queries replicated over the lanes and 8 running output rows in scratch:
// attention_scratch_floats() sizes for min(n_head_kv, this) of them. 8 covers Llama-3,
// Mixtral and TinyLlama-shaped rows whole.
inline constexpr int kAttentionDecodeMaxHeads = 8;
// Keys the SIMD tables' prompt tile (cpu/avx2_attention.cc) takes per window: as many whole
// K/V blocks as fit (at least one), scored together, their values folded in one pass.
inline constexpr int kAttentionTileWindowKeys = 64;

}  // namespace strata::kernels
