#include "model/weight_binder.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "tensor/i2s.h"

namespace strata {

std::string shape_string(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

kernels::WeightMatrix WeightBinder::matrix(const std::string& name, int64_t n_in, int64_t n_out) {
  kernels::WeightMatrix m;
  const GgufTensor* t = find(name, {static_cast<uint64_t>(n_in), static_cast<uint64_t>(n_out)}, true);
  if (t == nullptr) return m;
  return typed_matrix(*t, name, n_in, n_out);
}

kernels::WeightMatrix WeightBinder::i2s_matrix(const GgufTensor& t, const std::string& name, int64_t n_in,
                                               int64_t n_out) {
  const auto n = static_cast<uint64_t>(n_in) * static_cast<uint64_t>(n_out);
  if (n != t.n_elements || n_in % 256 != 0) {
    fail(Status::Unsupported(gguf_.path() + ": tensor " + name + " (I2_S) is read as TQ2_0, which needs whole " +
                             "tensors with rows of a multiple of 256 values; its rows have " + std::to_string(n_in)));
    return {};
  }
  const size_t row_bytes = *dtype_row_bytes(DType::kTQ2_0, static_cast<uint64_t>(n_in));
  AlignedBuffer& out = w_->converted.emplace_back(row_bytes * static_cast<size_t>(n_out));
  if (Status s = i2s_to_tq2_0(reinterpret_cast<const std::byte*>(t.data), n, out.data()); !s.ok()) {
    fail(Status::Unsupported(gguf_.path() + ": tensor " + name + ": " + s.message()));
    return {};
  }
  kernels::WeightMatrix m;
  m.type = DType::kTQ2_0;
  m.data = out.data();
  m.n_in = n_in;
  m.n_out = n_out;
  m.row_bytes = row_bytes;
  return m;
}

kernels::WeightMatrix WeightBinder::typed_matrix(const GgufTensor& tensor, const std::string& name, int64_t n_in,
                                                 int64_t n_out) {
  kernels::WeightMatrix m;
  const GgufTensor* t = &tensor;
  if (t->type == DType::kI2_S) return i2s_matrix(*t, name, n_in, n_out);
  if (!kernels::matmul_supports(t->type)) {
    fail(Status::Unsupported(gguf_.path() + ": tensor " + name + " has type " + std::string(dtype_name(t->type)) +
                             ", which this build cannot multiply (F32, F16, BF16, Q8_0, Q4_0, Q5_0, Q4_1, Q5_1, Q2_K, "
                             "Q3_K, Q4_K, Q5_K, Q6_K, IQ4_NL, IQ4_XS, IQ3_S, IQ3_XXS, IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S, "
                             "IQ1_M, MXFP4, TQ1_0, TQ2_0; I2_S read as TQ2_0)"));
    return m;
  }
  std::optional<size_t> row_bytes = dtype_row_bytes(t->type, static_cast<uint64_t>(n_in));
  if (!row_bytes) {
    fail(Status::Corrupt(gguf_.path() + ": tensor " + name + ": width " + std::to_string(n_in) +
                         " is not a whole number of " + std::string(dtype_name(t->type)) + " blocks"));
    return m;
  }
  m.type = t->type;
  m.data = t->data;
  m.n_in = n_in;
  m.n_out = n_out;
  m.row_bytes = *row_bytes;
  return m;
}

const float* WeightBinder::rope_factors(const std::string& name, int64_t n_pairs, int64_t padded_pairs) {
  if (!status_.ok()) return nullptr;
  const GgufTensor* t = gguf_.find_tensor(name);
  if (t == nullptr) return nullptr;
  const std::string what = gguf_.path() + ": tensor " + name;
  if (t->type != DType::kF32) {
    fail(Status::Unsupported(what + " has type " + std::string(dtype_name(t->type)) + ", expected " +
                             std::string(dtype_name(DType::kF32))));
    return nullptr;
  }
  bool padded = t->dims.size() == 1 && t->n_elements > static_cast<uint64_t>(n_pairs) &&
                t->n_elements == static_cast<uint64_t>(padded_pairs);
  for (uint64_t i = static_cast<uint64_t>(n_pairs); padded && i < t->n_elements; ++i) {
    float factor = 0.0f;
    std::memcpy(&factor, t->data + i * sizeof(float), sizeof(float));
    padded = factor == 1.0f;
  }
  if ((t->n_elements != static_cast<uint64_t>(n_pairs) && !padded) || t->dims.size() != 1) {
    fail(Status::Corrupt(what + " has shape " + shape_string(t->dims) + " (" + std::to_string(t->n_elements) +
                         " factors), expected [" + std::to_string(n_pairs) + "] (one per rotated pair, n_rot / 2)"));
    return nullptr;
  }
  auto copy = std::make_unique<float[]>(static_cast<size_t>(n_pairs));
  std::memcpy(copy.get(), t->data, sizeof(float) * static_cast<size_t>(n_pairs));
  for (int64_t i = 0; i < n_pairs; ++i) {
    if (!(copy[i] > 0.0f) || !std::isfinite(copy[i])) {
      fail(Status::Corrupt(what + ": factor " + std::to_string(i) + " is " + std::to_string(copy[i]) +
                           ", expected a positive finite number"));
      return nullptr;
    }
  }
  w_->owned.push_back(std::move(copy));
  return w_->owned.back().get();
}

std::vector<kernels::WeightMatrix> WeightBinder::experts(const std::string& name, int64_t n_in, int64_t n_out,
                                                         int64_t n_expert) {
  std::vector<kernels::WeightMatrix> out;
  const GgufTensor* t = find(name, {static_cast<uint64_t>(n_in), static_cast<uint64_t>(n_out),
                                    static_cast<uint64_t>(n_expert)}, true);
  if (t == nullptr) return out;
  kernels::WeightMatrix m = typed_matrix(*t, name, n_in, n_out);
  if (!status_.ok()) return out;
  const size_t expert_bytes = static_cast<size_t>(n_out) * m.row_bytes;
  for (int64_t e = 0; e < n_expert; ++e) {
    out.push_back(m);
    out.back().data = t->data + static_cast<size_t>(e) * expert_bytes;
  }
  return out;
}

kernels::WeightMatrix WeightBinder::rows(const kernels::WeightMatrix& m, int64_t first_row, int64_t n_rows) {
  kernels::WeightMatrix part = m;
  if (m.data == nullptr) return part;
  part.data = static_cast<const std::byte*>(m.data) + static_cast<size_t>(first_row) * m.row_bytes;
  part.n_out = n_rows;
  return part;
}

kernels::WeightMatrix WeightBinder::row_vector(const std::string& name, int64_t n) {
  const GgufTensor* t = find(name, {static_cast<uint64_t>(n)}, true);
  if (t == nullptr) return {};
  return typed_matrix(*t, name, n, 1);
}

std::vector<float> WeightBinder::decoded(const std::string& name, const std::vector<uint64_t>& dims, bool required) {
  const GgufTensor* t = find(name, dims, required);
  if (t == nullptr) return {};
  kernels::WeightMatrix m = typed_matrix(*t, name, static_cast<int64_t>(dims[0]),
                                         static_cast<int64_t>(t->n_elements / dims[0]));
  if (!status_.ok()) return {};
  std::vector<float> out(t->n_elements);
  for (int64_t r = 0; r < m.n_out; ++r) kernels::dequantize_row(m, r, out.data() + r * m.n_in);
  return out;
}

float* WeightBinder::owned(size_t n) {
  w_->owned.push_back(std::make_unique<float[]>(n));
  return w_->owned.back().get();
}

const float* WeightBinder::vectors(const std::string& name, int64_t n, int64_t n_rows, bool required) {
  std::vector<uint64_t> dims = {static_cast<uint64_t>(n)};
  if (n_rows > 0) dims.push_back(static_cast<uint64_t>(n_rows));
  const GgufTensor* t = find(name, dims, required);
  if (t == nullptr) return nullptr;
  std::optional<size_t> row_bytes = dtype_row_bytes(t->type, static_cast<uint64_t>(n));
  if (!kernels::matmul_supports(t->type) || !row_bytes) {
    fail(Status::Unsupported(gguf_.path() + ": tensor " + name + " has unsupported type " +
                             std::string(dtype_name(t->type))));
    return nullptr;
  }
  const int64_t rows = n_rows > 0 ? n_rows : 1;
  auto copy = std::make_unique<float[]>(static_cast<size_t>(n * rows));
  kernels::WeightMatrix m{t->type, t->data, rows, n, *row_bytes};
  for (int64_t r = 0; r < rows; ++r) kernels::dequantize_row(m, r, copy.get() + r * n);
  w_->owned.push_back(std::move(copy));
  return w_->owned.back().get();
}

void WeightBinder::fail(Status s) {
  if (status_.ok()) status_ = std::move(s);
}

const GgufTensor* WeightBinder::find(const std::string& name, const std::vector<uint64_t>& dims, bool required) {
  if (!status_.ok()) return nullptr;
  const GgufTensor* t = gguf_.find_tensor(name);
  if (t == nullptr) {
    if (required) fail(Status::NotFound(gguf_.path() + ": missing tensor " + name));
    return nullptr;
  }
  if (t->dims != dims) {
    fail(Status::Corrupt(gguf_.path() + ": tensor " + name + " has shape " + shape_string(t->dims) + ", expected " +
                         shape_string(dims)));
    return nullptr;
  }
  return t;
}

}  // namespace strata
