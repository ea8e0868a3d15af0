// ModelSpec: the shape of a dense transformer to generate (llama, qwen2 or qwen3), and the
// named presets `strata mkmodel --preset` offers. Plain values; pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace strata {

struct ModelSpec {
  std::string arch = "llama";  // "llama", "qwen2", "qwen3": decides biases, QK-norm, rope layout
  std::string preset;
  int n_vocab = 0;   // from the vocabulary when one is given
  int n_ctx = 0;
  int n_embd = 0;
  int n_layer = 0;
  int n_head = 0;
  int n_head_kv = 0;
  int head_dim = 0;
  int n_ff = 0;
  float rms_eps = 1e-5f;
  float rope_freq_base = 10000.0f;
  bool tied_embeddings = false;  // no output.weight
  bool qk_norm = false;          // qwen3: blk.N.attn_q_norm / attn_k_norm
  bool qkv_bias = false;         // qwen2: blk.N.attn_{q,k,v}.bias
  // llama only: a Llama 3.1-style rope_freqs.weight (rope_factors.h), with the preset's
  // n_ctx standing for the original training context.
  bool rope_freqs = false;
};

std::vector<std::string> model_preset_names();
// The preset's shape for arch; an empty arch takes the preset's own (qwen3 for qwen3-0.6b,
// llama otherwise). The arch sets qk_norm / qkv_bias.
Result<ModelSpec> model_preset(std::string_view arch, std::string_view preset);

}  // namespace strata
