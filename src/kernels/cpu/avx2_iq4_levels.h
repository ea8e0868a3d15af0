// The 16 levels of IQ4_NL / IQ4_XS and of MXFP4 as byte-shuffle tables, for the AVX2 files.
//
// The values are read element by element at compile time, which does not odr-use the tables
// (tensor/iq_grids.h, tensor/mxfp4.h), so these SIMD objects define no copy of them
// (isa_isolation_test.cc). static inline for the reason given in quant_blocks.h.
#pragma once

#include <immintrin.h>

#include <cstdint>

#include "tensor/iq_grids.h"
#include "tensor/mxfp4.h"

namespace strata::kernels::cpu {

// kLevels in bytes 0-15 of both 128-bit halves: _mm256_shuffle_epi8(table, codes) turns 4-bit
// codes into signed levels.
template <const int8_t (&kLevels)[16]>
static inline __m256i level_table() {
  return _mm256_setr_epi8(kLevels[0], kLevels[1], kLevels[2], kLevels[3], kLevels[4], kLevels[5], kLevels[6],
                          kLevels[7], kLevels[8], kLevels[9], kLevels[10], kLevels[11], kLevels[12], kLevels[13],
                          kLevels[14], kLevels[15], kLevels[0], kLevels[1], kLevels[2], kLevels[3], kLevels[4],
                          kLevels[5], kLevels[6], kLevels[7], kLevels[8], kLevels[9], kLevels[10], kLevels[11],
                          kLevels[12], kLevels[13], kLevels[14], kLevels[15]);
}

static inline __m256i iq4_levels() { return level_table<iq::kIq4nlValues>(); }
static inline __m256i mxfp4_levels() { return level_table<kMxfp4Values>(); }

}  // namespace strata::kernels::cpu
