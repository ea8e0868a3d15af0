#include "server/auth.h"

#include <utility>

namespace strata::server {

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Walk all of a whatever b holds; reading b modulo its size keeps the loop length fixed.
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  if (b.empty()) return a.empty();
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i]) ^ static_cast<unsigned char>(b[i % b.size()]);
  }
  return diff == 0;
}

namespace {

// The auth scheme name is case-insensitive (RFC 9110), so "bearer KEY" works too.
bool has_bearer_scheme(std::string_view authorization) {
  constexpr std::string_view kBearer = "bearer ";
  if (authorization.size() <= kBearer.size()) return false;
  for (size_t i = 0; i < kBearer.size(); ++i) {
    char c = authorization[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kBearer[i]) return false;
  }
  return true;
}

}  // namespace

ApiKeyAuth::ApiKeyAuth(std::vector<std::string> keys) {
  for (auto& k : keys) {
    if (!k.empty()) keys_.push_back(std::move(k));
  }
}

bool ApiKeyAuth::matches_any(std::string_view candidate) const {
  if (candidate.empty()) return false;
  bool found = false;
  // No early exit: which key matched must not show in the timing either.
  for (const auto& key : keys_) found |= constant_time_equal(candidate, key);
  return found;
}

bool ApiKeyAuth::allows(std::string_view authorization, std::string_view x_api_key) const {
  if (!enabled()) return true;
  std::string_view bearer;
  if (has_bearer_scheme(authorization)) bearer = authorization.substr(7);
  const bool bearer_ok = matches_any(bearer);
  const bool header_ok = matches_any(x_api_key);
  return bearer_ok || header_ok;
}

}  // namespace strata::server
