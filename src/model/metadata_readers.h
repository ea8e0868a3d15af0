// The GGUF metadata readers of Hparams' parsing (hparams.cc and the per-family readers beside
// it). Private to src/model. Every error names the file and the key, and says what was wanted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"

namespace strata {

// Reads "<arch>.<suffix>" as an int in [min_value, 2^30] (so it fits the forward pass's int
// sizes). missing_ok leaves *out unchanged when the key is absent; a per-layer array is refused.
Status read_int(const GgufFile& gguf, const std::string& arch, std::string_view suffix, bool missing_ok, int min_value,
                int* out);
// read_int with min_value 1.
Status read_count(const GgufFile& gguf, const std::string& arch, std::string_view suffix, bool missing_ok, int* out);
// A finite number, left unchanged when the key is absent.
Status read_real(const GgufFile& gguf, const std::string& key, float* out);
// YaRN's ramp bounds, <arch>.rope.scaling.yarn_beta_fast and _slow (each left unchanged when
// absent): fast must exceed slow, both > 0.
Status read_yarn_betas(const GgufFile& gguf, const std::string& arch, float* beta_fast, float* beta_slow);
// A key llama.cpp requires that must be a positive finite number.
Status read_required_positive(const GgufFile& gguf, const std::string& key, float* out);
bool has_tensor(const GgufFile& gguf, const std::string& name);
// An array key of n_values unsigned counts (a value per layer); NotFound when absent.
Status read_per_layer(const GgufFile& gguf, const std::string& key, int n_values, std::vector<uint64_t>* out);
// A key of counts per layer: an array of n_values, or one count for every layer; NotFound when
// absent.
Status read_counts_per_layer(const GgufFile& gguf, const std::string& key, int n_values, std::vector<uint64_t>* out);
// An array key of n_values finite numbers; NotFound when absent.
Status read_per_layer_reals(const GgufFile& gguf, const std::string& key, int n_values, std::vector<float>* out);
// SwiGLU limits (Step 3.5's, Ling 3.0's) from key: an array over the n_blocks blocks or, with
// scalar_ok, one number for every layer; kept for the first n_layer (the NextN blocks' dropped),
// each finite and >= 0. NotFound when absent.
Status read_swiglu_limits(const GgufFile& gguf, const std::string& key, int n_blocks, int n_layer, bool scalar_ok,
                          std::vector<float>* out);

}  // namespace strata
