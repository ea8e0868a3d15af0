#include "gguf/gguf_cursor.h"

namespace strata {

namespace {

std::string where(const std::string& name, size_t offset, std::string_view what) {
  std::string msg = name;
  msg += ": offset ";
  msg += std::to_string(offset);
  msg += ": ";
  msg += what;
  return msg;
}

}  // namespace

Status GgufCursor::read_string(std::string* out, std::string_view what) {
  size_t start = pos_;
  uint64_t n_bytes = 0;
  STRATA_RETURN_IF_ERROR(read(&n_bytes, what));
  if (n_bytes > remaining()) {
    return corrupt(start, std::string(what) + ": string length " + std::to_string(n_bytes) +
                              " exceeds the " + std::to_string(remaining()) + " bytes left in the file");
  }
  out->assign(reinterpret_cast<const char*>(data_ + pos_), static_cast<size_t>(n_bytes));
  pos_ += static_cast<size_t>(n_bytes);
  return Status::Ok();
}

Status GgufCursor::corrupt(size_t offset, std::string_view what) const {
  return Status::Corrupt(where(name_, offset, what));
}

Status GgufCursor::unsupported(size_t offset, std::string_view what) const {
  return Status::Unsupported(where(name_, offset, what));
}

Status GgufCursor::truncated(size_t n_bytes, std::string_view what) const {
  return corrupt(pos_, "truncated: need " + std::to_string(n_bytes) + " bytes for " + std::string(what) +
                           ", " + std::to_string(remaining()) + " left");
}

}  // namespace strata
