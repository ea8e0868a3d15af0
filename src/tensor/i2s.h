// Microsoft BitNet's I2_S tensors (GGUF type id 36, as bitnet.cpp writes them and ik_llama.cpp
// reads them), read as TQ2_0, which holds the same ternary values exactly.
//
// An I2_S tensor is one stream of 2-bit codes for all its elements, then one float scale (the
// tensor's bytes end with it, padded to 32 bytes: dtype_tensor_bytes). The codes go in blocks of
// 128 elements in 32 bytes: element 32 g + j of a block is bits 7-6 (g = 0) down to 1-0 (g = 3)
// of the block's byte j, and code c stands for (c - 1) * scale. A TQ2_0 block of 256 elements is
// the same 2-bit codes over two such halves with the bit pairs in the other order (element
// 32 l + j of a half at bits 2l of byte j) and the scale as fp16. Stateless; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/status.h"

namespace strata {

// Writes the TQ2_0 blocks of an I2_S tensor of n_elements (a multiple of 256) read from src
// (dtype_tensor_bytes(kI2_S, n_elements) bytes) to dst (n_elements / 256 * 66 bytes). Fails,
// writing nothing useful, when n_elements is not a multiple of 256 or the scale is not finite or
// not exactly an fp16 value (TQ2_0 could not hold it without rounding).
Status i2s_to_tq2_0(const std::byte* src, uint64_t n_elements, std::byte* dst);

}  // namespace strata
