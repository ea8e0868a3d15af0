// Reading one GGUF metadata value (scalar, string or possibly nested array) from a cursor.
//
// Arrays are bounded by the bytes left in the file before anything is reserved, so a
// hostile count (2^60 items) fails cleanly instead of allocating. Nesting is limited to
// kMaxArrayDepth levels so a crafted file cannot exhaust the stack. Stateless functions.
#pragma once

#include <string_view>

#include "base/status.h"
#include "gguf/gguf_cursor.h"
#include "gguf/gguf_value.h"

namespace strata {

inline constexpr int kMaxArrayDepth = 8;

// Reads a u32 type id and checks that the format defines it. key names the value in errors.
Status read_gguf_type(GgufCursor& cursor, std::string_view key, GgufType* out);

// Reads the payload of a value of the given type (the type id itself is already read).
Status read_gguf_value(GgufCursor& cursor, GgufType type, std::string_view key, int depth, GgufValue* out);

}  // namespace strata
