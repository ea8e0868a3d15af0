// What the single-input-row i-quant kernels share (avx2_matmul_iq_row.cc for AVX2,
// avx512_matmul_iq_vbmi.cc for AVX-512 VBMI): the loop over weight rows and super-blocks,
// prefetching, and the float step that turns a super-block's int32 lanes into the row's
// accumulator exactly as the tiled kernels of avx2_matmul_iq.cc do.
//
// Everything here has internal linkage (anonymous namespace): the header is compiled with
// different instruction sets, and a merged copy could run on a CPU without them.
// A kernel K provides: using Block; static constexpr int kFactorInverse (the format's
// power-of-two factor f = 1 / kFactorInverse); __m256i sum(const Block&, const int8_t* x)
// const, the 8 int32 lanes sum over sub-blocks j of scale_j * (elements 4k..4k+3 of j) * x;
// where the block has no fp16 field d, static float block_d(const Block&).
#pragma once

#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/cpu/packed_tile_walk.h"
#include "kernels/kernel_table.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels::cpu::STRATA_SIMD {
namespace {

template <class T>
[[gnu::always_inline]] inline T load_as(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Bytes ahead of the current super-block that a row asks the memory system for (as the
// tiled kernels' kPrefetchBytes).
constexpr int64_t kRowPrefetchBytes = 512;

// The super-block's fp16 scale d_w: the block's d, or what K::block_d reads where the format
// keeps it elsewhere (IQ1_M spreads it over its scales).
template <class K>
[[gnu::always_inline]] inline float block_scale(const typename K::Block& blk) {
  if constexpr (requires { K::block_d(blk); }) {
    return K::block_d(blk);
  } else {
    return load_fp16(&blk.d);
  }
}

// acc + the super-block's int32 lanes times (d_w * f) * d_x: the tiled kernels' float step.
template <class K>
[[gnu::always_inline]] inline __m256 scale_add(__m256 acc, __m256i sum, const typename K::Block& blk, float d_x) {
  const float d_w = block_scale<K>(blk) * (1.0f / K::kFactorInverse);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_set1_ps(d_w * d_x), acc);
}

// Weight rows [o_begin, o_end) against the single input row of a; k decodes super-blocks.
template <class K>
void matmul_single_row(const K& k, const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  using Block = typename K::Block;
  const Q8Row in = q8_row(a.xq, a.xq_layout);
  const int64_t n_steps = a.w->n_in / kQKK;
  for (int64_t o = o_begin; o < o_end; ++o) {
    const auto* row = reinterpret_cast<const Block*>(static_cast<const std::byte*>(a.w->data) + o * a.w->row_bytes);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t s = 0; s < n_steps; ++s) {
      prefetch_block(reinterpret_cast<const std::byte*>(row + s), sizeof(Block), kRowPrefetchBytes);
      acc = scale_add<K>(acc, k.sum(row[s], in.q + s * kQKK), row[s], in.d[s]);
    }
    a.y[o] = hsum(acc);
  }
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD
