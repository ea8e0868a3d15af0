// Tensor element types as numbered by the GGUF format, with their block layouts.
//
// A quantised type stores elements in blocks of block_size elements taking block_bytes
// bytes; a row of n elements (n a multiple of block_size) takes n / block_size * block_bytes.
// Pure data; no state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace strata {

// Values are the GGUF on-disk type ids (gaps are ids retired by the format).
enum class DType : uint32_t {
  kF32 = 0, kF16 = 1, kQ4_0 = 2, kQ4_1 = 3, kQ5_0 = 6, kQ5_1 = 7, kQ8_0 = 8, kQ8_1 = 9,
  kQ2_K = 10, kQ3_K = 11, kQ4_K = 12, kQ5_K = 13, kQ6_K = 14, kQ8_K = 15,
  kIQ2_XXS = 16, kIQ2_XS = 17, kIQ3_XXS = 18, kIQ1_S = 19, kIQ4_NL = 20, kIQ3_S = 21,
  kIQ2_S = 22, kIQ4_XS = 23, kI8 = 24, kI16 = 25, kI32 = 26, kI64 = 27, kF64 = 28,
  kIQ1_M = 29, kBF16 = 30, kTQ1_0 = 34, kTQ2_0 = 35, kI2_S = 36, kMXFP4 = 39,
};

struct DTypeInfo {
  DType type;
  std::string_view name;  // as llama.cpp / gguf tools print it: "f32", "q4_K", ...
  uint32_t block_size;    // elements per block
  uint32_t block_bytes;   // bytes per block
};

// nullopt for an id the format does not define.
std::optional<DTypeInfo> dtype_info(uint32_t gguf_type_id);
const DTypeInfo& dtype_info(DType type);
std::string_view dtype_name(DType type);
// Case-insensitive: "q8_0", "Q4_K", "f16"...
std::optional<DType> dtype_from_name(std::string_view name);

// Bytes for n_elements of type, or nullopt if n_elements is not a whole number of blocks
// or the result would overflow size_t.
std::optional<size_t> dtype_row_bytes(DType type, uint64_t n_elements);

// Bytes of a whole tensor of n_elements: its rows' bytes, and for I2_S (id 36: Microsoft BitNet's
// ternary codes, 2 bits each, as bitnet.cpp and ik_llama.cpp number it) the one float scale after
// them, padded to 32 bytes. nullopt as dtype_row_bytes.
std::optional<size_t> dtype_tensor_bytes(DType type, uint64_t n_elements);

}  // namespace strata
