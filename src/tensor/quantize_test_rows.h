// Test helpers the quantizer tests share (quantize_lowbit_test.cc, quantize_iq_lattice_test.cc):
// weight rows shaped like trained matrices, and one row through an encoder or decoder with the
// status checked. Test-only; `inline`, so the files of one unity batch share one definition.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "tensor/dtype.h"
#include "tensor/quantize.h"

namespace strata::quantize_test {

// Gaussian weights with occasional outliers (8x), as trained matrices have.
inline std::vector<float> weights_row(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.0f, 0.02f);
  std::vector<float> x(n);
  for (auto& v : x) v = dist(rng);
  for (size_t i = seed % 61; i < n; i += 61) x[i] *= 8.0f;
  return x;
}

inline std::vector<uint8_t> encode(DType type, const std::vector<float>& x) {
  std::vector<uint8_t> out(*dtype_row_bytes(type, x.size()));
  EXPECT_TRUE(quantize_row(type, x.data(), out.data(), x.size()).ok()) << dtype_name(type);
  return out;
}

inline std::vector<float> decode(DType type, const void* bytes, size_t n) {
  std::vector<float> out(n);
  EXPECT_TRUE(dequantize_row(type, bytes, out.data(), n).ok()) << dtype_name(type);
  return out;
}

inline std::vector<float> decode(DType type, const std::vector<uint8_t>& bytes, size_t n) {
  return decode(type, bytes.data(), n);
}

}  // namespace strata::quantize_test
