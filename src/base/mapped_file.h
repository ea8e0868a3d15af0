// MappedFile: a read-only memory map of a whole file. Owns the mapping; move-only.
// The bytes stay valid until the MappedFile is destroyed. Safe to read from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "base/status.h"

namespace strata {

class MappedFile {
 public:
  static Result<MappedFile> Open(const std::string& path);

  MappedFile() = default;
  ~MappedFile();
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Tells the OS this process does not need [p, p + n_bytes) of the mapping now (the whole
  // pages inside it leave the resident set). The bytes stay readable: a later read brings
  // them back from the file. For data kept in another form, e.g. packed weights.
  void release_pages(const void* p, size_t n_bytes) const;
  const std::string& path() const { return path_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

}  // namespace strata
