// Encoding GGUF metadata values and strings into a byte string (little-endian), the
// inverse of gguf_value_reader.h. Stateless functions.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "base/status.h"
#include "gguf/gguf_value.h"

namespace strata {

template <typename T>
void append_pod(std::string* out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out->append(bytes, sizeof(T));
}

// u64 length then the bytes.
void append_gguf_string(std::string* out, std::string_view s);

// Appends the payload of value (not its type id). Fails if an array item's type differs
// from the array's declared element type.
Status append_gguf_value(std::string* out, const GgufValue& value, std::string_view key);

}  // namespace strata
