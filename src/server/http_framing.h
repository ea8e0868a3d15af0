// How a request's body is delimited, and whether it was read to its end: a connection may carry
// another request only after the previous body was consumed whole.
//
// Plain values and stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <httplib.h>

namespace strata::server {

// A Content-Length value as RFC 9110 allows it: decimal digits only (no sign, no spaces), and
// small enough for 64 bits. nullopt otherwise.
std::optional<uint64_t> parse_content_length(std::string_view value);

struct BodyFraming {
  bool trusted = true;         // false: a Content-Length that cannot be parsed
  bool chunked = false;        // Transfer-Encoding: chunked
  uint64_t length_bytes = 0;   // Content-Length (0 when absent)
  uint64_t head_end_bytes = 0; // stream offset where the body starts

  // True when the stream, now at consumed_bytes, stands at the start of the next request.
  bool body_read(uint64_t consumed_bytes) const;
};

// The framing of req, whose head ended at stream offset head_end_bytes.
BodyFraming body_framing(const httplib::Request& req, uint64_t head_end_bytes);

}  // namespace strata::server
