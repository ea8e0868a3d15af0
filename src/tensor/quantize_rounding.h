// Rounding steps shared by the scalar round-to-nearest encoders (quantize_k.cc,
// quantize_k23.cc, quantize_iq4.cc). Stateless, header-only; one copy instead of a
// file-local one in each encoder, so the files can also be compiled as one unity batch.
#pragma once

#include <algorithm>
#include <cmath>

namespace strata {

// x rounded to the nearest integer (halves away from zero), clamped to lo..hi.
inline int round_clamped(float x, int lo, int hi) { return std::clamp(static_cast<int>(std::lround(x)), lo, hi); }

// Index of the element of largest magnitude among x[0..n) (the first on ties).
inline int largest_magnitude_index(const float* x, int n) {
  int e = 0;
  for (int i = 1; i < n; ++i) {
    if (std::fabs(x[i]) > std::fabs(x[e])) e = i;
  }
  return e;
}

}  // namespace strata
