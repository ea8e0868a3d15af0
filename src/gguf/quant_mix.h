// The quantisation mix of a GGUF model, for `strata gguf-info`: how many matrices (tensors
// of two or more dims) each type holds, labelled with the llama.cpp file type the file says
// it is (general.file_type), or with its most common matrix type when it does not say.
// Pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gguf/gguf_file.h"

namespace strata {

struct QuantMix {
  std::string label;                                // "Q3_K_M" or, without general.file_type, "Q4_K-like"
  std::vector<std::pair<DType, size_t>> matrices;   // matrices per type: most first, ties by type id
  size_t n_vectors = 0;                             // 1-D tensors (norms, biases), outside the mix
};

QuantMix quant_mix(const GgufFile& file);

// "Q3_K_M: 128 x q3_K, 64 x q5_K, 2 x q6_K (+ 65 vectors)"
std::string format_quant_mix(const QuantMix& mix);

}  // namespace strata
