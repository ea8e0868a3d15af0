// GgufWriter: writes a GGUF v3 file: metadata, tensor table, aligned tensor data.
//
// Tensor data is produced on demand while writing (a callback per tensor), so a multi-GB
// model is written without holding it in memory. Not thread-safe; one writer per file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "gguf/gguf_value.h"
#include "tensor/dtype.h"

namespace strata {

class GgufWriter {
 public:
  // fill(dst) must write exactly n_bytes (the size of the tensor in its type) into dst.
  using FillFn = std::function<void(uint8_t* dst)>;

  void set(std::string key, GgufValue value);  // replaces an existing key
  void erase(const std::string& key);          // no-op when the key is absent
  // dims[0] innermost. Fails at write() if the element count is not whole blocks of type.
  void add_tensor(std::string name, DType type, std::vector<uint64_t> dims, FillFn fill);
  // Convenience: copies bytes now (small tensors in tests).
  void add_tensor_bytes(std::string name, DType type, std::vector<uint64_t> dims, std::vector<uint8_t> bytes);
  void set_alignment(uint32_t alignment);  // default 32; also written as general.alignment if != 32

  // Writes to path.tmp then renames, so a crash never leaves a half-written model at path.
  Status write(const std::string& path) const;

 private:
  // Validates tensors and alignment; fills n_bytes per tensor.
  Status plan(std::vector<size_t>* n_bytes) const;
  // Header, metadata and tensor table (without the padding before the data section).
  Status encode_header(const std::vector<size_t>& n_bytes, std::string* out) const;
  Status write_contents(FILE* f, const std::string& path, const std::string& header,
                        const std::vector<size_t>& n_bytes) const;

  struct PendingTensor {
    std::string name;
    DType type;
    std::vector<uint64_t> dims;
    FillFn fill;
  };
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<PendingTensor> tensors_;
  uint32_t alignment_ = 32;
  std::vector<std::string> bad_tensor_bytes_;  // add_tensor_bytes() calls whose size was wrong
};

}  // namespace strata
