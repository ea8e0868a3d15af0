// The 16 IQ4_NL / IQ4_XS levels as a byte-shuffle table for the AVX2 files.
//
// The values are read element by element at compile time, which does not odr-use the table
// (tensor/iq_grids.h), so these SIMD objects define no copy of it (isa_isolation_test.cc).
// static inline for the reason given in quant_blocks.h.
#pragma once

#include <immintrin.h>

#include "tensor/iq_grids.h"

namespace strata::kernels::cpu {

// The levels in bytes 0-15 of both 128-bit halves: _mm256_shuffle_epi8(iq4_levels(), codes)
// turns 4-bit codes into signed levels.
static inline __m256i iq4_levels() {
  using iq::kIq4nlValues;
  return _mm256_setr_epi8(kIq4nlValues[0], kIq4nlValues[1], kIq4nlValues[2], kIq4nlValues[3], kIq4nlValues[4],
                          kIq4nlValues[5], kIq4nlValues[6], kIq4nlValues[7], kIq4nlValues[8], kIq4nlValues[9],
                          kIq4nlValues[10], kIq4nlValues[11], kIq4nlValues[12], kIq4nlValues[13], kIq4nlValues[14],
                          kIq4nlValues[15], kIq4nlValues[0], kIq4nlValues[1], kIq4nlValues[2], kIq4nlValues[3],
                          kIq4nlValues[4], kIq4nlValues[5], kIq4nlValues[6], kIq4nlValues[7], kIq4nlValues[8],
                          kIq4nlValues[9], kIq4nlValues[10], kIq4nlValues[11], kIq4nlValues[12], kIq4nlValues[13],
                          kIq4nlValues[14], kIq4nlValues[15]);
}

}  // namespace strata::kernels::cpu
