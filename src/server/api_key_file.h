// Reading API keys from a file (`strata serve --api-key-file`, or $STRATA_API_KEY_FILE), so a key
// can come from a mounted secret (Kubernetes Secret volume, Docker/Podman secret) instead of the
// command line or the environment, where `ps` and `inspect` would show it.
//
// Format: one key per line; surrounding spaces, tabs and a trailing "\r" are trimmed; blank lines
// are skipped (several lines: several accepted keys, e.g. while rotating). Stateless; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace strata::server {

// A key file is small; anything larger is a wrong path (a model, a log), refused unread.
inline constexpr size_t kMaxApiKeyFileBytes = 64 * 1024;

// The keys in `path`. Errors name the path: unreadable, larger than kMaxApiKeyFileBytes, or
// holding no key.
Result<std::vector<std::string>> read_api_key_file(const std::string& path);

}  // namespace strata::server
