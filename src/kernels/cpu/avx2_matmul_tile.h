// The register-tiled matmul driver shared by the AVX2 weight types.
//
// A tile computes NW weight rows x NR input rows with one 8-lane float accumulator per
// (weight row, input row) pair; each weight block is decoded once per tile and reused for
// all NR inputs. The per-pair work is P::pair(), the same function whatever NW and NR
// are, so every output element sees exactly the same sequence of float operations (and
// bits) in every tile shape: that is what keeps matmul batch-invariant while batches
// still read each weight once per NR rows.
//
// A policy P provides:
//   struct W; struct X;                       decoded weight block / input block
//   static constexpr int64_t kElems;          elements per step
//   static constexpr int kStreamRows;         weight rows per tile for 1-2 inputs (4 or 2)
//   static constexpr int64_t kStepBytes;      weight bytes per step
//   static W load_w(const std::byte* row, int64_t step);
//   static X load_x(const Input& in, int64_t step);   Input = P::Input
//   static __m256 pair(const W&, const X&, __m256 acc);
//   static Input input(const MatmulArgs&, int r);
//   static float finish(__m256 acc, const std::byte* row, const Input& in);
#pragma once

#include "kernels/cpu/avx2_common.h"
#include "kernels/kernel_table.h"

namespace strata::kernels::cpu::STRATA_SIMD {

// How far ahead of the current step a streaming tile (1-2 inputs) asks for its weight
// rows. The hardware prefetchers lose track at 4 KiB page boundaries and with several
// interleaved rows; measured on the 2-core target, 512 bytes ahead lifts single-input
// matmul from ~75% to ~85% of the read-bandwidth roofline (256 and 1024-2048 do worse).
constexpr int64_t kPrefetchBytes = 512;

// One prefetch per cache line of the step kPrefetchBytes ahead, for each weight row.
template <class P, int NW>
static inline void prefetch_ahead(const std::byte* const* rows, int64_t step) {
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
    const char* p = reinterpret_cast<const char*>(rows[i]) + step * P::kStepBytes + kPrefetchBytes;
    for (int64_t off = 0; off < P::kStepBytes; off += 64) _mm_prefetch(p + off, _MM_HINT_T0);
  }
}

template <class P, int NW, int NR>
static inline void matmul_tile(const MatmulArgs& a, int64_t o, int r0) {
  const WeightMatrix& w = *a.w;
  const std::byte* rows[NW];
  for (int i = 0; i < NW; ++i) rows[i] = static_cast<const std::byte*>(w.data) + (o + i) * w.row_bytes;
  typename P::Input in[NR];
  for (int r = 0; r < NR; ++r) in[r] = P::input(a, r0 + r);
  __m256 acc[NW][NR];
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) acc[i][r] = _mm256_setzero_ps();
  }
  const int64_t n_steps = w.n_in / P::kElems;
  for (int64_t s = 0; s < n_steps; ++s) {
    if constexpr (NR <= 2) prefetch_ahead<P, NW>(rows, s);
    typename P::W wb[NW];
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) wb[i] = P::load_w(rows[i], s);
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const typename P::X xb = P::load_x(in[r], s);
#pragma GCC unroll 4
      for (int i = 0; i < NW; ++i) acc[i][r] = P::pair(wb[i], xb, acc[i][r]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) a.y[static_cast<int64_t>(r0 + r) * w.n_out + o + i] = P::finish(acc[i][r], rows[i], in[r]);
  }
}

// All input rows against weight rows [o, o + NW).
template <class P, int NW>
static inline void matmul_weight_rows(const MatmulArgs& a, int64_t o) {
  int r = 0;
  for (; r + 4 <= a.n_rows; r += 4) matmul_tile<P, NW, 4>(a, o, r);
  switch (a.n_rows - r) {
    case 3: matmul_tile<P, NW, 3>(a, o, r); break;
    case 2: matmul_tile<P, NW, 2>(a, o, r); break;
    case 1: matmul_tile<P, NW, 1>(a, o, r); break;
    default: break;
  }
}

// Weight rows per tile for batches of three or more inputs: two fit the 16 vector
// registers of AVX2 next to four inputs' accumulators; AVX-512 has 32 registers.
#if defined(__AVX512VL__)
constexpr int kBatchWeightRows = 4;
#else
constexpr int kBatchWeightRows = 2;
#endif

// Output rows [o_begin, o_end): P::kStreamRows (4 or 2) weight rows per tile for one or
// two inputs (independent accumulation chains while streaming weights), and
// kBatchWeightRows (capped by kStreamRows) for bigger batches.
template <class P>
static inline void matmul_rows_tiled(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  int64_t o = o_begin;
  if (a.n_rows <= 2 || kBatchWeightRows == 4) {
    if constexpr (P::kStreamRows == 4) {
      for (; o + 4 <= o_end; o += 4) matmul_weight_rows<P, 4>(a, o);
    }
  }
  for (; o + 2 <= o_end; o += 2) matmul_weight_rows<P, 2>(a, o);
  for (; o < o_end; ++o) matmul_weight_rows<P, 1>(a, o);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
