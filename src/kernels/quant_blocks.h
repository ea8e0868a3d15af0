// The block layouts the kernels read (the GGUF weight blocks come from
// tensor/block_layouts.h), the K-quant scale unpacking, and the layout of the Q8
// activation rows that matmul builds from its float inputs. Pure data; no state.
//
// The helpers here are `static inline` on purpose: this header is included by files
// compiled with AVX2 flags and by files compiled for baseline x86-64, and an ordinary
// inline function would be emitted in both and merged by the linker, possibly keeping
// the AVX2 copy for baseline callers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tensor/block_layouts.h"
#include "tensor/dtype.h"

namespace strata::kernels {

constexpr int kQK = kBlock32;    // elements per Q8_0 / Q4_0 / Q5_0 block and per activation block
constexpr int kQKK = kBlock256;  // elements per K-quant super-block

using strata::BlockQ4_0;
using strata::BlockQ4_K;
using strata::BlockQ5_0;
using strata::BlockQ5_K;
using strata::BlockQ6_K;
using strata::BlockQ8_0;

// Scale and min (both 6-bit) of sub-block j in [0, 8) of a Q4_K / Q5_K super-block.
static inline void k_scale_min(const uint8_t* scales, int j, uint8_t* sc, uint8_t* m) {
  if (j < 4) {
    *sc = scales[j] & 63;
    *m = scales[j + 4] & 63;
  } else {
    *sc = static_cast<uint8_t>((scales[j + 4] & 0x0f) | ((scales[j - 4] >> 6) << 4));
    *m = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
  }
}

// One input row quantised for integer dot products against block-quantised weights.
// Per block of `block` inputs (32 for the 32-element weight types: Q8_0, Q4_0, Q5_0, Q4_1,
// Q5_1, IQ4_NL; 256, one super-block, for the K-quants, the 256-element i-quants and TQ1_0 /
// TQ2_0 so the sub-block products can be summed as integers):
// scale d (float) and int8 codes q with x ~= d * q, q in [-127, 127]; plus the sums of q
// over each 16 inputs (for codes with an offset, e.g. Q4_0's q - 8, and the K-quant mins).
// Memory (structure of arrays, each part 32-byte aligned): q[n_in], d[n_in/block], sum16[n_in/16].
// Built by make_q8_row_layout() (kernel_table.cc); plain fields so SIMD files only read them.
struct Q8RowLayout {
  int64_t n_in = 0;  // a multiple of block
  int block = kQK;
  size_t d_offset = 0;
  size_t sum_offset = 0;
  size_t row_bytes = 0;
};
Q8RowLayout make_q8_row_layout(int64_t n_in, int block);
// The activation block size matmul uses for a quantised weight type.
int q8_block_for(DType weight_type);

// Read-only view of one quantised activation row.
struct Q8Row {
  const int8_t* q;
  const float* d;
  const int16_t* sum16;
};

static inline Q8Row q8_row(const std::byte* base, const Q8RowLayout& layout) {
  return Q8Row{reinterpret_cast<const int8_t*>(base),
               reinterpret_cast<const float*>(base + layout.d_offset),
               reinterpret_cast<const int16_t*>(base + layout.sum_offset)};
}

}  // namespace strata::kernels
