// Status and Result<T>: errors as values (no exceptions cross module boundaries).
//
// A Status is either ok or carries a code and a human-readable message that names what
// is wrong (file, offset, field...). Result<T> holds a T or a non-ok Status.
// Both are plain values: copyable, movable, not thread-safe to mutate concurrently.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace strata {

enum class Code {
  kOk = 0,
  kInvalidArgument,   // a caller passed a bad value (flag out of range, bad request field)
  kNotFound,          // a file, key, tensor or model is missing
  kIoError,           // the OS refused a read/write/open
  kCorrupt,           // data on disk or on the wire is malformed
  kUnsupported,       // valid but not handled by this build (unknown dtype, arch)
  kOutOfRange,        // a size or position exceeds a limit (context, queue, body)
  kResourceExhausted, // queue full, K/V pool full
  kCancelled,
  kInternal,
};

const char* code_name(Code code);

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status IoError(std::string m) { return {Code::kIoError, std::move(m)}; }
  static Status Corrupt(std::string m) { return {Code::kCorrupt, std::move(m)}; }
  static Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
  static Status OutOfRange(std::string m) { return {Code::kOutOfRange, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {Code::kResourceExhausted, std::move(m)}; }
  static Status Cancelled(std::string m) { return {Code::kCancelled, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "corrupt: model.gguf: offset 24: tensor count 2^62 overflows"
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}                    // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace strata

#define STRATA_CONCAT_INNER(a, b) a##b
#define STRATA_CONCAT(a, b) STRATA_CONCAT_INNER(a, b)

#define STRATA_RETURN_IF_ERROR(expr)               \
  do {                                             \
    ::strata::Status _st = (expr);                 \
    if (!_st.ok()) return _st;                     \
  } while (0)

#define STRATA_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

#define STRATA_ASSIGN_OR_RETURN(lhs, expr) \
  STRATA_ASSIGN_OR_RETURN_IMPL(STRATA_CONCAT(_res_, __LINE__), lhs, expr)
