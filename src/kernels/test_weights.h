// Test support: random weight matrices in every matmul type, and random inputs.
//
// Quantised blocks get uniformly random codes (every bit pattern of the packed fields is
// valid) and positive scales of a realistic size, so decoders see all code values.
// Owns its storage; not thread-safe; deterministic for a given seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/kernels.h"

namespace strata::kernels::testing {

class TestWeights {
 public:
  TestWeights(DType type, int64_t n_out, int64_t n_in, uint32_t seed);
  const WeightMatrix& matrix() const { return w_; }
  // Row o dequantised with the reference decoder.
  std::vector<float> row_floats(int64_t o) const;

 private:
  std::vector<uint8_t> bytes_;
  WeightMatrix w_;
};

// n floats, normal(0, sigma) with a few larger outliers (as real activations have).
std::vector<float> random_floats(size_t n, uint32_t seed, float sigma = 1.0f);

// Every type matmul supports.
std::vector<DType> matmul_types();

}  // namespace strata::kernels::testing
