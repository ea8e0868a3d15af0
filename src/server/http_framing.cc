#include "server/http_framing.h"

#include <limits>

namespace strata::server {

std::optional<uint64_t> parse_content_length(std::string_view value) {
  if (value.empty()) return std::nullopt;
  uint64_t n = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (n > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
  }
  return n;
}

bool BodyFraming::body_read(uint64_t consumed_bytes) const {
  if (!trusted) return false;
  const uint64_t read_bytes = consumed_bytes - head_end_bytes;
  // httplib reads a chunked body whole or not at all.
  if (chunked) return read_bytes > 0;
  return read_bytes >= length_bytes;
}

BodyFraming body_framing(const httplib::Request& req, uint64_t head_end_bytes) {
  BodyFraming framing;
  framing.head_end_bytes = head_end_bytes;
  framing.chunked = req.get_header_value("Transfer-Encoding") == "chunked";
  if (req.has_header("Content-Length")) {
    std::optional<uint64_t> length = parse_content_length(req.get_header_value("Content-Length"));
    framing.trusted = length.has_value();
    framing.length_bytes = length.value_or(0);
  }
  return framing;
}

}  // namespace strata::server
