#include "gguf/gguf_split.h"

#include <cstdio>

namespace strata {

namespace {

constexpr std::string_view kSuffix = ".gguf";
constexpr size_t kDigits = 5;

// Parses exactly kDigits decimal digits.
std::optional<int> parse_digits(std::string_view s) {
  if (s.size() != kDigits) return std::nullopt;
  int v = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return std::nullopt;
    v = v * 10 + (ch - '0');
  }
  return v;
}

}  // namespace

std::optional<GgufSplitName> parse_split_path(std::string_view path) {
  // "-NNNNN-of-MMMMM.gguf"
  constexpr size_t kTail = 1 + kDigits + 4 + kDigits;
  if (path.size() < kTail + kSuffix.size() || !path.ends_with(kSuffix)) return std::nullopt;
  std::string_view stem = path.substr(0, path.size() - kSuffix.size());
  std::string_view tail = stem.substr(stem.size() - kTail);
  if (tail[0] != '-' || tail.substr(1 + kDigits, 4) != "-of-") return std::nullopt;
  auto part = parse_digits(tail.substr(1, kDigits));
  auto total = parse_digits(tail.substr(1 + kDigits + 4));
  if (!part || !total || *part < 1 || *part > *total) return std::nullopt;
  return GgufSplitName{std::string(stem.substr(0, stem.size() - kTail)), *part, *total};
}

std::string split_path(std::string_view prefix, int part_no, int n_parts) {
  char tail[32];
  std::snprintf(tail, sizeof(tail), "-%05d-of-%05d.gguf", part_no, n_parts);
  return std::string(prefix) + tail;
}

}  // namespace strata
