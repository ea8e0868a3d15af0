#include "base/status.h"

namespace strata {

const char* code_name(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid argument";
    case Code::kNotFound: return "not found";
    case Code::kIoError: return "I/O error";
    case Code::kCorrupt: return "corrupt";
    case Code::kUnsupported: return "unsupported";
    case Code::kOutOfRange: return "out of range";
    case Code::kResourceExhausted: return "resource exhausted";
    case Code::kCancelled: return "cancelled";
    case Code::kInternal: return "internal";
  }
  return "unknown";
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  return std::string(code_name(code_)) + ": " + message_;
}

}  // namespace strata
