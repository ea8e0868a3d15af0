#include "sampling/ngram_drafter.h"

#include <algorithm>

namespace strata {

namespace {

// The start of the most recent occurrence of the last n tokens that ends before the suffix
// itself does (so at least one token follows it); -1 when there is none.
int64_t latest_occurrence(std::span<const int32_t> tokens, int n) {
  const int64_t len = static_cast<int64_t>(tokens.size());
  const int32_t* suffix = tokens.data() + (len - n);
  for (int64_t start = len - n - 1; start >= 0; --start) {
    if (std::equal(suffix, suffix + n, tokens.data() + start)) return start;
  }
  return -1;
}

}  // namespace

int ngram_draft(std::span<const int32_t> tokens, const NgramDraftOptions& options, std::span<int32_t> out) {
  const int64_t len = static_cast<int64_t>(tokens.size());
  if (out.empty() || options.n_min < 1) return 0;
  for (int n = std::min<int64_t>(options.n_max, len - 1); n >= options.n_min; --n) {
    const int64_t start = latest_occurrence(tokens, n);
    if (start < 0) continue;
    const int64_t from = start + n;
    const int64_t count = std::min<int64_t>(static_cast<int64_t>(out.size()), len - from);
    std::copy(tokens.begin() + from, tokens.begin() + from + count, out.begin());
    return static_cast<int>(count);
  }
  return 0;
}

}  // namespace strata
