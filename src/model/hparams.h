// Hparams: the hyper-parameters of a dense transformer, read from GGUF metadata
// ("<arch>.block_count", ...). The architecture is data: llama, qwen2 and qwen3 differ only
// in these fields and in which tensors exist (biases, QK-norm, tied output).
#pragma once

#include <string>

#include "base/status.h"
#include "gguf/gguf_file.h"

namespace strata {

struct Hparams {
  std::string arch;        // "llama", "qwen2", "qwen3"
  int n_vocab = 0;
  int n_ctx_train = 0;
  int n_embd = 0;
  int n_layer = 0;
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;        // n_embd / n_head unless <arch>.attention.key_length says otherwise
  int n_ff = 0;
  int n_rot = 0;
  float rms_eps = 1e-5f;
  float rope_freq_base = 10000.0f;
  float rope_freq_scale = 1.0f;   // 1 / rope.scaling.factor for linear scaling
  bool rope_neox = false;         // qwen2/qwen3: NeoX layout; llama: adjacent pairs
  int rope_yarn_orig_ctx = 0;     // > 0 when rope.scaling.type == yarn
  float rope_yarn_factor = 1.0f;
  float rope_yarn_attn_factor = 1.0f;  // rope.scaling.attn_factor
  bool qk_norm = false;           // qwen3
  bool qkv_bias = false;          // qwen2
  bool tied_embeddings = false;   // no output.weight: reuse token_embd.weight
};

// Reads and validates hparams; errors name the missing or inconsistent key.
Result<Hparams> read_hparams(const GgufFile& gguf);

}  // namespace strata
