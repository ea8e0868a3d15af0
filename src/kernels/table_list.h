// Test support: every kernel table this CPU can run (scalar always, AVX2, AVX2 + AVX-VNNI and
// AVX-512 when present).
#pragma once

#include <string>
#include <vector>

#include "kernels/cpu/avx2_vnni.h"
#include "kernels/kernel_table.h"

namespace strata::kernels::testing {

inline std::vector<const KernelTable*> runnable_tables() {
  std::vector<const KernelTable*> tables = {&reference_table()};
  if (avx2_table() != nullptr) tables.push_back(avx2_table());
  if (avx2_vnni_table() != nullptr) tables.push_back(avx2_vnni_table());
  if (avx512_table() != nullptr) tables.push_back(avx512_table());
  return tables;
}

}  // namespace strata::kernels::testing
