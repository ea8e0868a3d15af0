// Test support for the packed weight layouts (packed_layouts.h lists them: packed_q8.h, packed_q4_0.h, ...):
// one description per format, a test matrix with its packed form attached, and the scalar
// table with the format's oracle plugged in. Header-only; tests only.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/avx2_vnni.h"
#include "kernels/kernel_table.h"
#include "kernels/packed_layouts.h"
#include "kernels/packed_q4_0.h"
#include "kernels/packed_q5_0.h"
#include "kernels/packed_q4k.h"
#include "kernels/packed_q6k.h"
#include "kernels/packed_q8.h"
#include "kernels/test_weights.h"

namespace strata::kernels::testing {

// One packed layout of the registry (packed_layouts.h), as the tests use it.
struct PackedFormat {
  std::string name;  // "Q8_0", "Q4_K", ...: the type's name in capitals
  DType type;
  size_t (*bytes)(int64_t n_out, int64_t n_in);
  void (*pack)(const WeightMatrix& w, std::byte* dst);
  PackedRowsFn oracle;
  int64_t block;  // inputs per block: shapes must use multiples of it
  PackedRowsFn KernelTable::*kernel;

  // The slot of `table` that reads this format.
  PackedRowsFn& slot(KernelTable& table) const { return table.*kernel; }
  // The scalar table, reading this format with its oracle.
  KernelTable oracle_table() const {
    KernelTable t = reference_table();
    slot(t) = oracle;
    return t;
  }
};

// The SIMD tables this CPU runs that read format f packed (all read every layout).
inline std::vector<const KernelTable*> packed_simd_tables(const PackedFormat& f) {
  std::vector<const KernelTable*> out;
  for (const KernelTable* t : {avx2_table(), avx2_vnni_table(), avx512_table()}) {
    if (t != nullptr && (*t).*(f.kernel) != nullptr) out.push_back(t);
  }
  return out;
}

inline std::vector<PackedFormat> packed_formats() {
  std::vector<PackedFormat> out;
  for (const PackedLayout& l : packed_layouts()) {
    std::string name(dtype_name(l.type));
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.push_back({name, l.type, l.bytes, l.pack, l.oracle, l.block_inputs, l.kernel});
  }
  return out;
}

inline PackedFormat packed_format(DType type) {
  for (const PackedFormat& f : packed_formats()) {
    if (f.type == type) return f;
  }
  return packed_formats()[0];
}

// A random matrix of the format's type with its packed form attached (`packed`).
struct PackedWeights {
  TestWeights plain;
  std::vector<std::byte> bytes;
  WeightMatrix packed;

  PackedWeights(const PackedFormat& f, int64_t n_out, int64_t n_in, uint32_t seed) : plain(f.type, n_out, n_in, seed) {
    bytes.resize(f.bytes(n_out, n_in));
    f.pack(plain.matrix(), bytes.data());
    packed = plain.matrix();
    packed.packed = bytes.data();
  }
};

// n_rows rows of n_in inputs that quantise to codes at +-127: even rows all 1, odd rows -1
// with some 0.5 (the largest integer sums, for extreme-value tests).
inline std::vector<float> extreme_inputs(int n_rows, int64_t n_in) {
  std::vector<float> x(static_cast<size_t>(n_rows * n_in));
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = (i / static_cast<size_t>(n_in)) % 2 == 0 ? 1.0f : (i % 7 == 0 ? 0.5f : -1.0f);
  }
  return x;
}

// y of `table` and of the format's oracle for the same packed matrix and inputs, one thread.
struct OracleRuns {
  std::vector<float> got, want;
};
inline OracleRuns run_against_oracle(const KernelTable& table, const PackedFormat& f, const WeightMatrix& packed,
                                     const std::vector<float>& x, int n_rows) {
  ThreadPool pool(1);
  AlignedBuffer scratch;
  OracleRuns runs{std::vector<float>(static_cast<size_t>(n_rows * packed.n_out)),
                  std::vector<float>(static_cast<size_t>(n_rows * packed.n_out))};
  matmul_with_table(table, packed, x.data(), n_rows, runs.got.data(), scratch, pool);
  matmul_with_table(f.oracle_table(), packed, x.data(), n_rows, runs.want.data(), scratch, pool);
  return runs;
}

}  // namespace strata::kernels::testing
