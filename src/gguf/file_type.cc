#include "gguf/file_type.h"

namespace strata {

namespace {

struct FileType {
  uint32_t id;
  std::string_view name;
  DType main;
};

constexpr FileType kFileTypes[] = {
    {0, "F32", DType::kF32},         {1, "F16", DType::kF16},         {2, "Q4_0", DType::kQ4_0},
    {3, "Q4_1", DType::kQ4_1},       {7, "Q8_0", DType::kQ8_0},       {8, "Q5_0", DType::kQ5_0},
    {9, "Q5_1", DType::kQ5_1},       {10, "Q2_K", DType::kQ2_K},      {11, "Q3_K_S", DType::kQ3_K},
    {12, "Q3_K_M", DType::kQ3_K},    {13, "Q3_K_L", DType::kQ3_K},    {14, "Q4_K_S", DType::kQ4_K},
    {15, "Q4_K_M", DType::kQ4_K},    {16, "Q5_K_S", DType::kQ5_K},    {17, "Q5_K_M", DType::kQ5_K},
    {18, "Q6_K", DType::kQ6_K},      {19, "IQ2_XXS", DType::kIQ2_XXS}, {20, "IQ2_XS", DType::kIQ2_XS},
    {21, "Q2_K_S", DType::kQ2_K},    {22, "IQ3_XS", DType::kIQ3_S},   {23, "IQ3_XXS", DType::kIQ3_XXS},
    {24, "IQ1_S", DType::kIQ1_S},    {25, "IQ4_NL", DType::kIQ4_NL},  {26, "IQ3_S", DType::kIQ3_S},
    {27, "IQ3_M", DType::kIQ3_S},    {28, "IQ2_S", DType::kIQ2_S},    {29, "IQ2_M", DType::kIQ2_S},
    {30, "IQ4_XS", DType::kIQ4_XS},  {31, "IQ1_M", DType::kIQ1_M},    {32, "BF16", DType::kBF16},
    {36, "TQ1_0", DType::kTQ1_0},    {37, "TQ2_0", DType::kTQ2_0},    {38, "MXFP4_MOE", DType::kMXFP4},
};

const FileType* find(uint32_t id) {
  for (const auto& f : kFileTypes) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

}  // namespace

std::string_view file_type_name(uint32_t file_type) {
  const FileType* f = find(file_type);
  return f ? f->name : "unknown";
}

std::optional<DType> file_type_main_dtype(uint32_t file_type) {
  const FileType* f = find(file_type);
  if (f == nullptr) return std::nullopt;
  return f->main;
}

std::optional<uint32_t> file_type_for(DType type, bool medium_mix) {
  switch (type) {
    case DType::kQ4_K: return medium_mix ? 15u : 14u;
    case DType::kQ5_K: return medium_mix ? 17u : 16u;
    case DType::kQ3_K: return medium_mix ? 12u : 11u;
    default: break;
  }
  for (const auto& f : kFileTypes) {
    if (f.main == type) return f.id;
  }
  return std::nullopt;
}

}  // namespace strata
