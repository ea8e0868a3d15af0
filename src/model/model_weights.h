// ModelWeights: the tensors of a loaded model, bound by name and checked against Hparams.
//
// Matrices are views into the GgufFile's mapping (never copied); the small 1-D tensors
// (norm weights, biases) are converted to F32 copies owned here so the forward pass reads
// plain floats whatever type the file stored them in. Immutable after bind_weights; valid
// while the GgufFile lives.
#pragma once

#include <memory>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/status.h"
#include "gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "model/hparams.h"

namespace strata {

struct LayerWeights {
  const float* attn_norm = nullptr;   // n_embd
  kernels::WeightMatrix wq, wk, wv;   // n_embd -> n_head*head_dim, n_head_kv*head_dim
  const float* bq = nullptr;          // biases (qwen2); nullptr when absent
  const float* bk = nullptr;
  const float* bv = nullptr;
  const float* q_norm = nullptr;      // per-head RMS-norm weights (qwen3), head_dim; nullptr when absent
  const float* k_norm = nullptr;
  kernels::WeightMatrix wo;           // n_head*head_dim -> n_embd
  const float* ffn_norm = nullptr;    // n_embd
  kernels::WeightMatrix w_gate, w_up; // n_embd -> n_ff
  kernels::WeightMatrix w_down;       // n_ff -> n_embd
};

struct ModelWeights {
  kernels::WeightMatrix token_embd;   // n_vocab rows of n_embd
  const float* output_norm = nullptr;
  kernels::WeightMatrix output;       // n_embd -> n_vocab; token_embd when tied
  std::vector<LayerWeights> layers;
  const float* rope_freqs = nullptr;  // n_rot / 2 rope frequency factors (Llama 3.1); nullptr when absent
  size_t total_bytes = 0;             // every tensor of the file
  size_t decode_bytes = 0;            // what one decode step streams: all but the embedding table
                                      // (which only has one row read), unless output reuses it
  std::vector<std::unique_ptr<float[]>> owned;  // F32 copies of the 1-D tensors
  AlignedBuffer packed;  // the matrices the active kernels read in their own layout
};

// Errors name the tensor and what is wrong: missing, wrong shape, unsupported type.
// rope_freqs.weight is optional; when present it must be F32 with n_rot / 2 positive,
// finite factors.
Result<ModelWeights> bind_weights(const GgufFile& gguf, const Hparams& hp);

// Packs every matrix the active kernels read faster in a layout of their own
// (kernels::packed_matrix_bytes), into w.packed, and points the matrices at it. The file's
// pages of a packed matrix leave the resident set, so serving holds one copy of the weights;
// the embedding table keeps its pages (rows are looked up there). Uses every core once.
void pack_weights(const GgufFile& gguf, ModelWeights& w);

}  // namespace strata
