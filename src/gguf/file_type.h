// general.file_type: the "mostly X" label llama.cpp stores for a model's dominant tensor
// type (LLAMA_FTYPE numbering). Pure functions over a fixed table.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tensor/dtype.h"

namespace strata {

// "Q4_K_M", "F16"...; "unknown" for ids the table lacks.
std::string_view file_type_name(uint32_t file_type);
// The type most matrices have in such a file (Q4_K for Q4_K_M), if the id is known.
std::optional<DType> file_type_main_dtype(uint32_t file_type);
// The id to store for a model whose matrices are mostly `type`; medium_mix picks the
// _M variant of K-quants (Q4_K_M) rather than _S.
std::optional<uint32_t> file_type_for(DType type, bool medium_mix);

}  // namespace strata
