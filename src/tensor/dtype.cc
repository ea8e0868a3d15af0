#include "tensor/dtype.h"

#include <array>
#include <cctype>
#include <limits>

namespace strata {

namespace {

// Block layouts are facts of the GGUF format (see docs/gguf.md for the field breakdown).
constexpr std::array kTypes = {
    DTypeInfo{DType::kF32, "f32", 1, 4},         DTypeInfo{DType::kF16, "f16", 1, 2},
    DTypeInfo{DType::kQ4_0, "q4_0", 32, 18},     DTypeInfo{DType::kQ4_1, "q4_1", 32, 20},
    DTypeInfo{DType::kQ5_0, "q5_0", 32, 22},     DTypeInfo{DType::kQ5_1, "q5_1", 32, 24},
    DTypeInfo{DType::kQ8_0, "q8_0", 32, 34},     DTypeInfo{DType::kQ8_1, "q8_1", 32, 36},
    DTypeInfo{DType::kQ2_K, "q2_K", 256, 84},    DTypeInfo{DType::kQ3_K, "q3_K", 256, 110},
    DTypeInfo{DType::kQ4_K, "q4_K", 256, 144},   DTypeInfo{DType::kQ5_K, "q5_K", 256, 176},
    DTypeInfo{DType::kQ6_K, "q6_K", 256, 210},   DTypeInfo{DType::kQ8_K, "q8_K", 256, 292},
    DTypeInfo{DType::kIQ2_XXS, "iq2_xxs", 256, 66}, DTypeInfo{DType::kIQ2_XS, "iq2_xs", 256, 74},
    DTypeInfo{DType::kIQ3_XXS, "iq3_xxs", 256, 98}, DTypeInfo{DType::kIQ1_S, "iq1_s", 256, 50},
    DTypeInfo{DType::kIQ4_NL, "iq4_nl", 32, 18}, DTypeInfo{DType::kIQ3_S, "iq3_s", 256, 110},
    DTypeInfo{DType::kIQ2_S, "iq2_s", 256, 82},  DTypeInfo{DType::kIQ4_XS, "iq4_xs", 256, 136},
    DTypeInfo{DType::kI8, "i8", 1, 1},           DTypeInfo{DType::kI16, "i16", 1, 2},
    DTypeInfo{DType::kI32, "i32", 1, 4},         DTypeInfo{DType::kI64, "i64", 1, 8},
    DTypeInfo{DType::kF64, "f64", 1, 8},         DTypeInfo{DType::kIQ1_M, "iq1_m", 256, 56},
    DTypeInfo{DType::kBF16, "bf16", 1, 2},       DTypeInfo{DType::kTQ1_0, "tq1_0", 256, 54},
    DTypeInfo{DType::kTQ2_0, "tq2_0", 256, 66},  DTypeInfo{DType::kMXFP4, "mxfp4", 32, 17},
    DTypeInfo{DType::kI2_S, "i2_s", 4, 1},
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

}  // namespace

std::optional<DTypeInfo> dtype_info(uint32_t gguf_type_id) {
  for (const auto& t : kTypes) {
    if (static_cast<uint32_t>(t.type) == gguf_type_id) return t;
  }
  return std::nullopt;
}

const DTypeInfo& dtype_info(DType type) {
  for (const auto& t : kTypes) {
    if (t.type == type) return t;
  }
  return kTypes[0];  // unreachable for a valid enum value
}

std::string_view dtype_name(DType type) { return dtype_info(type).name; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& t : kTypes) {
    if (iequals(t.name, name)) return t.type;
  }
  return std::nullopt;
}

std::optional<size_t> dtype_row_bytes(DType type, uint64_t n_elements) {
  const DTypeInfo& info = dtype_info(type);
  if (n_elements % info.block_size != 0) return std::nullopt;
  uint64_t n_blocks = n_elements / info.block_size;
  if (n_blocks > std::numeric_limits<size_t>::max() / info.block_bytes) return std::nullopt;
  return static_cast<size_t>(n_blocks * info.block_bytes);
}

std::optional<size_t> dtype_tensor_bytes(DType type, uint64_t n_elements) {
  std::optional<size_t> bytes = dtype_row_bytes(type, n_elements);
  if (bytes && type == DType::kI2_S) *bytes += 32;
  return bytes;
}

}  // namespace strata
