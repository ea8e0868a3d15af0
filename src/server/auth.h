// ApiKeyAuth: decides whether a request carries one of the configured API keys.
//
// Owns a copy of the keys. Immutable after construction, so safe to share between HTTP
// threads. Keys are compared in constant time (the time depends only on the length of the
// presented key, never on how many leading bytes match) so a client cannot guess a key
// byte by byte from response times.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata::server {

class ApiKeyAuth {
 public:
  // No keys: every request is allowed.
  explicit ApiKeyAuth(std::vector<std::string> keys);

  bool enabled() const { return !keys_.empty(); }

  // authorization: the Authorization header ("Bearer KEY"), x_api_key: the x-api-key header;
  // either may be empty. True when auth is off or either header holds a configured key.
  bool allows(std::string_view authorization, std::string_view x_api_key) const;

 private:
  bool matches_any(std::string_view candidate) const;

  std::vector<std::string> keys_;
};

// Compares a and b in time that depends only on a.size(). Exposed for tests.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace strata::server
