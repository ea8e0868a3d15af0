// SHA-256 of files and buffers (OpenSSL's implementation), as lowercase hex. Stateless.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace strata {

std::string sha256_hex(const void* data, size_t n_bytes);
// Streams the file; errors name the path.
Result<std::string> sha256_file(const std::string& path);
// 64 hex digits (the form Hugging Face puts in X-Linked-Etag for LFS files).
bool looks_like_sha256(std::string_view s);

}  // namespace strata
