// CPU kernels for the forward pass. Pure functions over caller-owned memory; no state, no
// allocation (scratch comes from the caller). Safe to call from several threads on
// disjoint outputs.
//
// THE BATCH-INVARIANCE CONTRACT. For every kernel here, the bits of one output row depend
// only on that row's inputs (and the weights): never on how many other rows are in the
// call, the row's index, the thread count or the work split. Reductions run in a fixed
// order that depends only on the reduction length. This is what makes batched serving
// exact (a request gives the same logits alone or beside seven others).
//
// Dispatch: each kernel has a scalar reference in reference/ and SIMD versions in cpu/;
// the implementation is chosen once per process at run time from the CPU's features
// (AVX-512 with VNNI, else AVX2 + FMA + F16C, else scalar; STRATA_KERNELS=avx2 or =scalar
// in the environment caps the choice). SIMD and scalar are tested against each other; the
// batch-invariance property holds within one implementation, i.e. within one process.
//
// Numerics: quantised weights multiply 8-bit quantised inputs (one float scale per 32
// inputs, round-to-nearest-even), exactly in integers per block, then accumulate in
// float. Float weights (F32/F16/BF16) multiply the float inputs directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "base/aligned_buffer.h"
#include "base/status.h"
#include "base/thread_pool.h"
#include "tensor/dtype.h"

namespace strata::kernels {

// A weight matrix of n_out rows by n_in columns as stored in GGUF (dims[0] = n_in):
// row o holds the n_in weights producing output o, encoded in `type`.
struct WeightMatrix {
  DType type = DType::kF32;
  const void* data = nullptr;
  int64_t n_out = 0;
  int64_t n_in = 0;
  size_t row_bytes = 0;
  // Optional: the same matrix in the active kernels' packed layout (pack_matrix()), owned by
  // whoever set it. matmul() reads it instead of `data` when set; dequantize_row() never does.
  const void* packed = nullptr;
};

// The SIMD kernel tables (AVX2, AVX-512 VNNI) read some matrices faster in a layout of their
// own (packed_q8.h: Q8_0, packed_q4_0.h: Q4_0, packed_q5_0.h: Q5_0, packed_q4k.h: Q4_K and Q5_K, packed_q6k.h:
// Q6_K). packed_matrix_bytes() is
// the size of w's packed form for the active table, 0 when it has none for w (matmul then
// reads w.data). pack_matrix() writes it. Packing changes the order of float operations, not
// their inputs: results stay batch-invariant.
size_t packed_matrix_bytes(const WeightMatrix& w);
void pack_matrix(const WeightMatrix& w, std::byte* dst);

// Types matmul supports: F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_1, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K,
// Q6_K, IQ4_NL, IQ4_XS, IQ3_S, IQ3_XXS, IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, IQ1_M, MXFP4, TQ1_0, TQ2_0,
// all with SIMD kernels (matmul_has_simd_kernel() tells whether a type has them).
bool matmul_supports(DType type);
// True when the SIMD tables (AVX2, AVX-512) have a matmul kernel of their own for type;
// false for the types they run on the scalar reference rows.
bool matmul_has_simd_kernel(DType type);

// Ok when matmul() and dequantize_row() can use w: a supported type, a positive shape,
// n_in a whole number of blocks (and of 32 for quantised types), row_bytes consistent,
// data non-null. Call it once when binding weights; the error names what is wrong.
Status check_weight_matrix(const WeightMatrix& w);

// Bytes of scratch matmul() needs for n_rows inputs of width n_in against a `type` matrix
// (quantised copies of the inputs). Callers size a buffer once for their largest batch.
size_t matmul_scratch_bytes(DType type, int64_t n_in, int n_rows);

// y[r * n_out + o] = sum_i W[o][i] * x[r * n_in + i] for r < n_rows, o < W.n_out.
// Work is split over output rows only (never over the reduction), across pool.
// For quantised weights each input row is first quantised to 8 bits per block of 32 (in
// scratch) and the dot products run on integers per block. scratch is grown if it is
// smaller than matmul_scratch_bytes() (size it up front to keep the hot path allocation
// free). A matrix that fails check_weight_matrix() yields NaN outputs.
void matmul(const WeightMatrix& w, const float* x, int n_rows, float* y, AlignedBuffer& scratch,
            ThreadPool& pool);

// One product of a batch for matmul_many(): y = W x over n_rows rows, as matmul() computes it.
struct MatmulJob {
  const WeightMatrix* w = nullptr;
  const float* x = nullptr;
  int n_rows = 0;
  float* y = nullptr;
};
// The most jobs one matmul_many() call takes (two per expert of the largest MoE layers).
constexpr int kMaxMatmulJobs = 1024;
// Bytes of scratch matmul_many() needs for these jobs (their quantised inputs, end to end).
size_t matmul_many_scratch_bytes(std::span<const MatmulJob> jobs);
// Every job, each with the bits matmul() gives it, but all jobs' output rows spread over the
// pool in one pass: the experts of a mixture-of-experts layer (many small products) cost one
// thread wake-up instead of one each. Consecutive jobs with the same x, n_rows and input
// quantisation share one quantised copy of x. At most kMaxMatmulJobs jobs (more: the extra
// jobs' outputs are NaN). scratch is grown like matmul()'s.
void matmul_many(std::span<const MatmulJob> jobs, AlignedBuffer& scratch, ThreadPool& pool);

// out = x / sqrt(mean(x^2) + eps) * weight, for one row of n floats.
void rmsnorm(const float* x, const float* weight, int n, float eps, float* out);
// out = (x - mean(x)) / sqrt(var(x) + eps) * weight (Cohere's layer norm, no bias), for one row
// of n floats; out may alias x. Scalar on every table: a norm per row and layer costs little.
void layernorm(const float* x, const float* weight, int n, float eps, float* out);

// Rotary position embedding in place on n_heads heads of head_dim floats at position pos.
// neox=false rotates adjacent pairs (x[2i], x[2i+1]); neox=true rotates (x[i], x[i + d/2]).
// Only the first n_rot dims of each head rotate. freq_scale < 1 compresses positions
// (linear scaling); the YaRN fields follow the GGUF rope.scaling.* metadata.
// freq_factors (Llama 3.1's rope_freqs.weight) divide pair i's angle by freq_factors[i]
// before linear/YaRN scaling, as llama.cpp does; all ones gives bit-identical output to none.
struct RopeParams {
  int head_dim = 0;
  int n_rot = 0;
  bool neox = false;
  float freq_base = 10000.0f;
  float freq_scale = 1.0f;
  const float* freq_factors = nullptr;  // n_rot / 2 positive factors, or nullptr for none; not owned
  // n_rot / 2 flags, or nullptr: a flagged pair rotates as at position 0 whatever pos (M-RoPE
  // sectors of a position component text leaves at 0; Hparams::rope_pos0_pairs); not owned.
  const uint8_t* pos0_pairs = nullptr;
  // YaRN (0 = off): original training context and ramp.
  int yarn_orig_ctx = 0;
  float yarn_ext_factor = 0.0f;
  float yarn_attn_factor = 1.0f;
  float yarn_beta_fast = 32.0f;
  float yarn_beta_slow = 1.0f;
};
void rope(float* x, int n_heads, int pos, const RopeParams& p);

// One position of the gated delta rule (Qwen3.5's linear attention) on one value head. state is
// dv rows of dk floats (row i maps keys to value i); q and k are dk floats, v is dv floats:
//   state = decay * state;  state += (beta * (v - state k)) k^T;  out = scale * (state q)
// with out dv floats. Each table sums a row's products in an order fixed by dk alone (the
// reference over j in order, the SIMD tables in 8-float lanes: cpu/avx2_delta_rule.cc), so a
// row's bits depend only on its inputs and the table (never on the other rows, other heads,
// rows of a batch or threads).
void delta_rule(float* state, const float* q, const float* k, const float* v, float decay, float beta,
                float scale, int dk, int dv, float* out);

// The most keys (dk) delta_rule_keys takes: the SIMD tables keep a decayed copy of k on the stack.
// The model's bound on a recurrent head (kMaxSsmHeadDim, model/hparams.h) is checked against it.
inline constexpr int kMaxDeltaRuleKeys = 512;

// delta_rule with one decay per key (Kimi Delta Attention: Ling 3.0's recurrent layers): decay is
// dk floats and key j of every row decays by decay[j],
//   state = state diag(decay);  state += (beta * (v - state k)) k^T;  out = scale * (state q).
// The same summation orders and contract as delta_rule (cpu/avx2_delta_rule.cc): a row's bits
// depend only on that row, q, k, decay, v[i] and the scalars. dk is at most kMaxDeltaRuleKeys;
// past it every table writes NaN to out and leaves state as it was.
void delta_rule_keys(float* state, const float* q, const float* k, const float* v, const float* decay, float beta,
                     float scale, int dk, int dv, float* out);

// Kimi Delta Attention's decays for n keys: decay[j] = exp(bound * sigmoid(rate * (f[j] + bias[j])))
// with sigmoid(x) = 1 / (1 + e^-x), bound * sigmoid(x) formed as bound / (1 + e^-x). Each element
// depends only on its own inputs and the scalars, never on its index or n. The SIMD tables' e^x
// is exp_ps (cpu/avx2_common.h), which clamps its argument to [-87, 88], so |bound| <= 87. The
// error is a few ulp plus y = bound * sigmoid(x)'s rounding times |y| (e^y's condition number,
// the same for every table: about 9 ulp at bound -5; kda_gates_test.cc states the bound).
void kda_decay(const float* f, const float* bias, float rate, float bound, int n, float* decay);

// Kimi Linear's decays for n keys: decay[j] = exp(rate * softplus(f[j] + bias[j])), softplus(x) =
// log1p(e^x), x itself past 20 (where log1p(e^x) rounds to x; the model's ssm_softplus). rate is
// -exp(A_log). Each element depends only on its own inputs and rate, never on its index or n. The
// SIMD tables form log1p(e^x) as log(w) e^x / (w - 1), w = 1 + e^x, with exp_ps and log_ps
// (cpu/avx2_common.h): within about 6 ulp of the softplus for x >= -87 (below, exp_ps's clamp
// gives e^-87 for e^x); then e^y, y = rate * softplus, adds a few ulp plus y's rounding times |y|,
// and for y below -87 gives e^-87 (under 1.7e-38) where std::exp gives less (kda_gates_test.cc
// states the bound).
void kda_softplus_decay(const float* f, const float* bias, float rate, int n, float* decay);

// One position of a Mamba-2 head (Granite 4.0-H's and Nemotron-H's recurrent layers). state is p
// rows of n floats (row i holds value i's state over the n state dims); x is p floats, B and C are
// n floats:
//   state[i] = decay * state[i] + (dt * x[i]) * B;  out[i] = state[i] . C
// Each table sums a row's products in an order fixed by n alone (the reference over j in order,
// the SIMD tables in 8-float lanes: cpu/avx2_ssm_scan.cc), so a row's bits depend only on its
// inputs and the table (never on the other rows, heads, rows of a batch or threads).
void ssm_scan(float* state, const float* x, const float* B, const float* C, float decay, float dt, int n, int p,
              float* out);

// gate[i] = silu(gate[i]) * up[i].
void silu_mul(float* gate, const float* up, int n);
// gate[i] = sigmoid(gate[i]) * up[i], formed as up[i] / (1 + e^-gate[i]) (Kimi Delta Attention's
// output gate). Each element depends only on its own inputs, never on its index or n.
void sigmoid_mul(float* gate, const float* up, int n);
// gate[i] = gelu(gate[i]) * up[i], GELU in its tanh form (Gemma's "gelu_pytorch_tanh"):
// gelu(g) = g / 2 * (1 + tanh(sqrt(2 / pi) * (g + 0.044715 g^3))).
void gelu_mul(float* gate, const float* up, int n);
// gpt-oss's clamped SwiGLU: with g = min(gate[i], 7) and u = clamp(up[i], -7, 7),
// gate[i] = g * sigmoid(1.702 g) * (u + 1).
void swiglu_oai(float* gate, const float* up, int n);
// Step 3.5's clamped SwiGLU (limit > 0): gate[i] = min(silu(gate[i]), limit) *
// clamp(up[i], -limit, limit). Scalar on every table (only its few clamped layers take it).
void silu_mul_clamped(float* gate, const float* up, int n, float limit);

// Row `row` of an embedding table (any matmul type), dequantised to n_in floats.
// Bit-identical to the GGUF reference dequantisation. Writes nothing for a bad row/type.
void dequantize_row(const WeightMatrix& w, int64_t row, float* out);

// Converts n floats to K/V storage type (F32, F16, Q8_0) and back. n is a multiple of 32 for Q8_0.
// Q8_0 stores d = amax / 127 per block and round-to-nearest-even codes.
// kv_type_supported() says whether (type, n) is valid; invalid stores write nothing and
// invalid loads write NaN.
bool kv_type_supported(DType type, int n);
void store_kv(const float* x, int n, DType type, void* dst);
void load_kv(const void* src, int n, DType type, float* out);

// One query row attending over one sequence's cached keys and values.
//
// The cache is paged: block b holds block_tokens consecutive positions; block_k[b] points
// at the first key of block b for this layer, with consecutive tokens token_stride bytes
// apart, and the n_head_kv heads of one token contiguous (head_dim elements each, in
// kv_type). Likewise block_v. Attends over positions [0, n_tokens).
// Online softmax over whole key blocks in position order, so the result depends only
// on the sequence's own keys/values and not on the cache layout of other sequences.
// q: n_head * head_dim floats; out: n_head * head_dim floats. GQA: query head h reads
// kv head h / (n_head / n_head_kv). scratch must hold attention_scratch_floats(...) floats.
//
// A tile of rows: n_rows query rows of the same sequence (a prompt chunk) share one call, so
// the SIMD kernels read each K/V block once for all of them. Row i's queries are at
// q + i * row_stride_floats (likewise out) and it attends over [0, row_tokens[i]); n_tokens
// is at least every row_tokens[i] (the block tables cover it). A row's output bits are the
// same whatever its tile-mates (each row's float operations are those of the row alone;
// attention_oracle.h spells them out for the SIMD tables).
//
// A single row (n_rows == 1) may start past position 0 (a sliding window): it attends over
// [first_token, its token count). The blocks stay the cache's: blocks wholly before
// first_token are skipped, and in the block holding it the keys before it. (The SIMD tables run
// such a row on their decode path; a shape that path does not take, more than 8 query heads
// per kv head or a head size not a whole number of its vectors, runs on the scalar reference.)
struct AttentionArgs {
  const void* const* block_k = nullptr;
  const void* const* block_v = nullptr;
  int block_tokens = 16;
  size_t token_stride_bytes = 0;
  int n_tokens = 0;
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;
  DType kv_type = DType::kF16;
  float scale = 0.0f;  // usually 1/sqrt(head_dim)
  int n_rows = 1;
  const int* row_tokens = nullptr;  // n_rows counts, not owned; nullptr: every row attends over n_tokens
  size_t row_stride_floats = 0;     // 0: n_head * head_dim
  int first_token = 0;              // > 0 only when n_rows == 1: the row's first key
  // Attention sinks (gpt-oss): n_head logits, one per query head, each a key of value zero
  // that every row of that head attends to: exp(sink - max) joins the softmax's sum and
  // nothing its output. Not owned; nullptr: no sinks.
  const float* sinks = nullptr;
  // > 0: every score (after scale) becomes softcap * tanh(score / softcap) before the softmax
  // (Gemma 2's attention logit soft-capping; kernels/softcap.h). 0: none.
  float softcap = 0.0f;
};
// Ok when a describes a valid problem (heads divide, head_dim fits kv_type, ...).
// attention() does nothing for invalid arguments, so check once per model.
Status check_attention_args(const AttentionArgs& a);
size_t attention_scratch_floats(const AttentionArgs& a);
void attention(const AttentionArgs& a, const float* q, float* out, float* scratch);
// The same for the query heads of kv heads [first_kv_head, first_kv_head + n_kv_heads)
// only, so one row's heads can be spread over threads (each with its own scratch).
// Each head's output bits are the same as from attention().
void attention_kv_heads(const AttentionArgs& a, const float* q, float* out, float* scratch, int first_kv_head,
                        int n_kv_heads);

// Index of the largest value (lowest index on ties; NaNs never win; -1 when n <= 0).
int argmax(const float* x, int n);

// Name of the kernel table chosen on this CPU (or capped by STRATA_KERNELS): "avx512", "avx2vnni",
// "avx2" or "scalar".
const char* active_isa();

}  // namespace strata::kernels
