// GgufFile: a parsed, memory-mapped GGUF model file (format versions 2 and 3).
//
// Owns the mapping(s) and the parsed metadata and tensor table. Tensor data is not copied:
// GgufTensor::data points into the mapping and stays valid while the GgufFile lives.
// Immutable after Open/Parse, so safe to read from any number of threads.
//
// Every read is bounds-checked: a malformed file gives a Status (kCorrupt, kUnsupported...)
// whose message names the file, the byte offset and what is wrong; never a crash.
// Split files (NAME-00001-of-0000N.gguf) are opened as one: metadata from the first part,
// tensors from all parts.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"
#include "gguf/gguf_value.h"
#include "tensor/dtype.h"

namespace strata {

struct GgufTensor {
  std::string name;
  DType type = DType::kF32;
  std::vector<uint64_t> dims;  // dims[0] is the innermost (contiguous) dimension, as in GGUF
  uint64_t n_elements = 0;
  uint64_t offset = 0;         // relative to its part's data section
  size_t n_bytes = 0;
  const uint8_t* data = nullptr;
  int part = 0;                // which split part holds the data
  uint64_t file_offset = 0;    // absolute byte offset of the data within its part's file
};

struct GgufPart;

class GgufFile {
 public:
  // Maps and parses path (and its sibling parts when path is a split file's first part).
  static Result<GgufFile> Open(const std::string& path);
  // Parses a buffer that the caller keeps alive (fuzzing, tests). name is used in errors.
  static Result<GgufFile> Parse(const uint8_t* data, size_t size, const std::string& name);

  const std::string& path() const { return path_; }
  uint32_t version() const { return version_; }
  size_t alignment() const { return alignment_; }

  // Metadata in file order.
  const std::vector<std::pair<std::string, GgufValue>>& metadata() const { return metadata_; }
  const GgufValue* find(std::string_view key) const;
  // Typed look-ups: nullopt when the key is missing or of an incompatible type.
  std::optional<uint64_t> get_uint(std::string_view key) const;
  std::optional<double> get_float(std::string_view key) const;
  std::optional<bool> get_bool(std::string_view key) const;
  std::optional<std::string> get_string(std::string_view key) const;
  // The value when it is an array (items: GgufValue::array_size(), *_at(), item()), else nullptr.
  const GgufValue* get_array(std::string_view key) const;

  const std::vector<GgufTensor>& tensors() const { return tensors_; }
  const GgufTensor* find_tensor(std::string_view name) const;

  // Number of files the model was read from (1 unless split).
  int n_parts() const { return n_parts_; }
  // Sum of n_bytes over all tensors.
  uint64_t total_tensor_bytes() const;
  // Drops the whole pages of [p, p + n_bytes) (tensor data of this file) from the resident
  // set; they stay readable (see MappedFile::release_pages). No-op for parsed buffers.
  void release_pages(const void* p, size_t n_bytes) const;

 private:
  // Appends a parsed part's tensors; the first part also supplies version and metadata.
  Status absorb(GgufPart part, const std::string& name);

  std::string path_;
  uint32_t version_ = 0;
  size_t alignment_ = 32;
  std::vector<std::pair<std::string, GgufValue>> metadata_;
  std::vector<GgufTensor> tensors_;
  std::vector<std::shared_ptr<MappedFile>> parts_;
  std::unordered_map<std::string, size_t> tensor_index_;  // name -> index in tensors_
  int n_parts_ = 1;
};

}  // namespace strata
