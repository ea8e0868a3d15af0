// The float64 reference's arithmetic (reference_forward.cc, reference_mla.cc,
// reference_delta_net.cc): decoding tensors to doubles, RMS-norm, matrix-vector products. Test
// support; plain loops.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "tensor/quantize.h"

namespace strata::testing::reference_ops {

using Vec = std::vector<double>;

// Decodes a whole tensor (all rows) into doubles; empty when absent and optional.
inline Status decode(const GgufFile& gguf, const std::string& name, bool required, Vec* out) {
  const GgufTensor* t = gguf.find_tensor(name);
  if (t == nullptr) {
    return required ? Status::NotFound("reference: missing tensor " + name) : Status::Ok();
  }
  std::vector<float> f(t->n_elements);
  const size_t n_in = t->dims[0];
  const size_t row_bytes = *dtype_row_bytes(t->type, n_in);
  for (size_t r = 0; r < t->n_elements / n_in; ++r) {
    STRATA_RETURN_IF_ERROR(dequantize_row(t->type, t->data + r * row_bytes, f.data() + r * n_in, n_in));
  }
  out->assign(f.begin(), f.end());
  return Status::Ok();
}

inline Vec rmsnorm(const double* x, const Vec& w, int n, double eps) {
  double ss = 0;
  for (int i = 0; i < n; ++i) ss += x[i] * x[i];
  const double scale = 1.0 / std::sqrt(ss / n + eps);
  Vec out(n);
  for (int i = 0; i < n; ++i) out[i] = x[i] * scale * w[i];
  return out;
}

// Cohere's layer norm: (x - mean) / sqrt(variance + eps) * w.
inline Vec layernorm(const double* x, const Vec& w, int n, double eps) {
  double mean = 0;
  for (int i = 0; i < n; ++i) mean += x[i];
  mean /= n;
  double var = 0;
  for (int i = 0; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
  const double scale = 1.0 / std::sqrt(var / n + eps);
  Vec out(n);
  for (int i = 0; i < n; ++i) out[i] = (x[i] - mean) * scale * w[i];
  return out;
}

inline Vec matvec(const Vec& m, const Vec& x) {
  const size_t n_in = x.size();
  Vec y(m.size() / n_in, 0.0);
  for (size_t o = 0; o < y.size(); ++o) {
    for (size_t i = 0; i < n_in; ++i) y[o] += m[o * n_in + i] * x[i];
  }
  return y;
}

inline void add(Vec& x, const Vec& y) {
  for (size_t i = 0; i < x.size(); ++i) x[i] += y[i];
}

}  // namespace strata::testing::reference_ops
