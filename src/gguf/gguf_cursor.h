// GgufCursor: bounds-checked little-endian reads over a byte range it does not own.
//
// Every failed read returns a Status whose message names the source, the byte offset and
// what was being read, so a truncated or hostile file never causes an out-of-bounds read.
// Not thread-safe (it has a position); cheap to create one per parse.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"

namespace strata {

static_assert(std::endian::native == std::endian::little, "GGUF is read as little-endian");

class GgufCursor {
 public:
  GgufCursor(const uint8_t* data, size_t size, std::string_view name)
      : data_(data), size_(size), name_(name) {}

  size_t offset() const { return pos_; }
  size_t size() const { return size_; }
  size_t remaining() const { return size_ - pos_; }
  const std::string& name() const { return name_; }

  template <typename T>
  Status read(T* out, std::string_view what) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (remaining() < sizeof(T)) return truncated(sizeof(T), what);
    std::memcpy(out, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return Status::Ok();
  }

  // A GGUF string: u64 length then that many bytes (not NUL-terminated).
  Status read_string(std::string* out, std::string_view what);

  // "NAME: offset N: what"
  Status corrupt(size_t offset, std::string_view what) const;
  Status unsupported(size_t offset, std::string_view what) const;

 private:
  Status truncated(size_t n_bytes, std::string_view what) const;

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  std::string name_;
};

}  // namespace strata
