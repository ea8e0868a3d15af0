// Where in a JSON body parsing stopped, as a field path ("temperature", "messages[0].content"),
// for error messages about values nlohmann rejects after the syntax is fine (a number too large
// for a double). Parsing fails there as an exception that carries only a byte offset.
//
// Stateless free function; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace strata::server {

struct JsonErrorSite {
  std::string path;     // "" when parsing stopped outside any member or element
  size_t byte = 0;      // offset of the failing token's first byte
  std::string token;    // the failing token as read (e.g. "1e309")
};

// Where parsing body stopped: the path of the value being read, its offset and token.
JsonErrorSite json_error_site(std::string_view body);

}  // namespace strata::server
