// WeightBinder: binds the tensors of one GGUF file to ModelWeights' views and copies, checking
// each tensor's shape and type and remembering the first error, so the binding code
// (model_weights.cc) reads as a flat list of tensors instead of a ladder of early returns.
// Private to src/model. Not thread-safe; one binder per load.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_file.h"
#include "kernels/kernels.h"
#include "model/model_weights.h"

namespace strata {

// "[a, b, c]": a tensor's dims as an error message shows them.
std::string shape_string(const std::vector<uint64_t>& dims);

class WeightBinder {
 public:
  WeightBinder(const GgufFile& gguf, ModelWeights* w) : gguf_(gguf), w_(w) {}

  const Status& status() const { return status_; }
  const std::string& path() const { return gguf_.path(); }
  bool has(const std::string& name) const { return gguf_.find_tensor(name) != nullptr; }
  const GgufTensor* find_tensor(const std::string& name) const { return gguf_.find_tensor(name); }

  // A matrix stored as dims [n_in, n_out].
  kernels::WeightMatrix matrix(const std::string& name, int64_t n_in, int64_t n_out);

  // t (already found with the right shape) as a matrix of n_out rows of n_in, type checked.
  kernels::WeightMatrix typed_matrix(const GgufTensor& tensor, const std::string& name, int64_t n_in, int64_t n_out);

  // Rope frequency factors, one per rotated pair: optional, F32 only (as llama.cpp reads
  // them), each positive and finite since the kernel divides angles by them. Copied so the
  // kernel reads aligned floats whatever the file's alignment.
  // padded_pairs > n_pairs: the tensor may hold 1s after its n_pairs factors, up to padded_pairs.
  const float* rope_factors(const std::string& name, int64_t n_pairs, int64_t padded_pairs = 0);

  // The n_expert slices of a 3-D expert tensor stored as dims [n_in, n_out, n_expert].
  std::vector<kernels::WeightMatrix> experts(const std::string& name, int64_t n_in, int64_t n_out, int64_t n_expert);

  // Rows [first_row, first_row + n_rows) of a matrix: a view of its own.
  static kernels::WeightMatrix rows(const kernels::WeightMatrix& m, int64_t first_row, int64_t n_rows);

  // A 1-D tensor of n weights used as a matrix of one output row (a per-row gate).
  kernels::WeightMatrix row_vector(const std::string& name, int64_t n);

  // Every row of a tensor of exactly these dims (rows of dims[0]), dequantized to F32; empty
  // when absent and optional, or on an error.
  std::vector<float> decoded(const std::string& name, const std::vector<uint64_t>& dims, bool required);

  // An F32 buffer of n floats owned by the weights.
  float* owned(size_t n);

  // A 1-D tensor of n floats, copied to F32. Optional tensors give nullptr when absent.
  const float* vector(const std::string& name, int64_t n, bool required) { return vectors(name, n, 0, required); }

  // n_rows > 0: a 2-D tensor of n_rows rows of n floats (dims [n, n_rows]), copied to F32 row
  // after row; 0: a 1-D tensor of n.
  const float* vectors(const std::string& name, int64_t n, int64_t n_rows, bool required);

  // Records the first error (the others are its consequences).
  void fail(Status s);

 private:
  // An I2_S tensor (whole, dims [n_in, n_out]) converted to TQ2_0 in a buffer the weights own.
  kernels::WeightMatrix i2s_matrix(const GgufTensor& t, const std::string& name, int64_t n_in, int64_t n_out);

  // The tensor, checked to have exactly these dims; nullptr (and, when required or misshapen, the
  // error recorded) otherwise, or once an error is recorded.
  const GgufTensor* find(const std::string& name, const std::vector<uint64_t>& dims, bool required);

  const GgufFile& gguf_;
  ModelWeights* w_;
  Status status_;
};

}  // namespace strata
