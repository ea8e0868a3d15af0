// The registry of packed weight layouts: for each weight type that has one, its size, its
// packing, the KernelTable slot of the kernels that read it, and the scalar oracle that
// defines their arithmetic. kernels.cc dispatches through it and the tests iterate it, so a
// new layout is added here once. Constant data; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "kernels/kernel_table.h"

namespace strata::kernels {

using PackedRowsFn = void (*)(const MatmulArgs& args, int64_t o_begin, int64_t o_end);

struct PackedLayout {
  DType type;
  int64_t block_inputs;                                // shapes use multiples of it
  size_t (*bytes)(int64_t n_out, int64_t n_in);        // of the packed form
  void (*pack)(const WeightMatrix& w, std::byte* dst);
  PackedRowsFn KernelTable::*kernel;                   // the table's kernel (nullptr: none)
  PackedRowsFn oracle;                                 // reference::matmul_packed_*_rows
};

// Every packed layout, in a fixed order.
std::span<const PackedLayout> packed_layouts();
// The layout of `type`; nullptr when the type has none.
const PackedLayout* packed_layout(DType type);

}  // namespace strata::kernels
