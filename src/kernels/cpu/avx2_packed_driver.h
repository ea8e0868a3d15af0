// What the packed AVX2 kernels share (avx2_packed_*.cc) beyond the tile walk of
// packed_tile_walk.h. A 16-row group's 64-byte lines are two 256-bit halves of 8 rows, so
// a tile keeps two accumulators per input row (h = 0: rows 0-7, h = 1: rows 8-15):
// Avx2PackedKernel is the base of every AVX2 kernel given to packed_matmul(). `static
// inline` functions and templates only, so nothing here can leak into baseline code.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/cpu/packed_tile_walk.h"
#include "kernels/kernel_table.h"

// The namespace a packed kernel source defines its entry points in: avx2vnni when the source
// is compiled a second time for the AVX2 + AVX-VNNI table (STRATA_KERNELS_AVX2_VNNI, see
// avx2_vnni.h), else avx2.
#if defined(STRATA_KERNELS_AVX2_VNNI)
#include "kernels/cpu/avx2_vnni.h"
#define STRATA_AVX2_PACKED_NS avx2vnni
#else
#define STRATA_AVX2_PACKED_NS avx2
#endif

namespace strata::kernels::cpu::avx2 {

// The 4 bytes at p in every int32 lane (4 activation codes, or 2 int16 sums).
static inline __m256i broadcast4(const void* p) {
  int32_t four;
  std::memcpy(&four, p, sizeof four);
  return _mm256_set1_epi32(four);
}

// The 8 fp16 values at p (one half's d or dmin) as floats.
static inline __m256 fp16x8(const std::byte* p) {
  return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// The 32 bytes of half h of the 64-byte line at p.
static inline __m256i half_line(const std::byte* p, int h) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * h));
}

// Adds the exact int32 dot of unsigned codes u and signed activations x (4 per int32 lane)
// to acc. maddubs saturates int16 pairs, so callers keep |u * x| pairs under 2^15.
static inline __m256i dot_add(__m256i acc, __m256i u, __m256i x) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(u, x), _mm256_set1_epi16(1)));
}

// The activation sums of a super-block's sub-blocks 2p and 2p + 1 (32 inputs each) as the
// int16 pair of pairs[p], p = 0..3, from its 16 sums per 16 inputs: one pairwise add puts
// sub-block j's sum in int16 lane j (at most 4064 in magnitude: int16 holds it), so int32
// lane p is the pair, ready for one multiply-add against 8 rows' int16 pairs (mins, scales).
// (The scalar loop this replaced took ~10% of a Q4_K prefill tile's time.)
static inline void sub_block_sum_pairs(const int16_t* sum16, int32_t* pairs) {
  const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sum16));
  const __m128i second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(sum16 + 8));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(pairs), _mm_hadd_epi16(first, second));
}

// Q2_K / Q3_K: scale e (0 or 1) of each sub-block pair, held as int16 pairs (one per int32
// lane), in both int16 halves of its lane: one madd of a row's int16 pair sums against it
// is scale_k * dot_k.
static inline __m256i scale_of_pair(__m256i pairs, int e) {
  const __m256i pick_lo = _mm256_setr_epi8(0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13,
                                           0, 1, 0, 1, 4, 5, 4, 5, 8, 9, 8, 9, 12, 13, 12, 13);
  const __m256i pick = e == 0 ? pick_lo : _mm256_add_epi8(pick_lo, _mm256_set1_epi8(2));
  return _mm256_shuffle_epi8(pairs, pick);
}

// Q2_K / Q3_K with AVX-VNNI: scale e of each sub-block pair in the low int16 of its lane and 0
// in the high one, so one vpdpwssd (or madd) of a row's int32 dots, each under 2^15 in
// magnitude, against it is scale_k * dot_k.
static inline __m256i low_scale_of_pair(__m256i pairs, int e) {
  return e == 0 ? _mm256_blend_epi16(pairs, _mm256_setzero_si256(), 0xaa) : _mm256_srli_epi32(pairs, 16);
}

// Q2_K / Q3_K: the activation pointers of a tile's super-block (codes, sums per 16 inputs)
// and its scales, taken once per block so every load in the kernel is base plus constant.
template <int NR>
struct TileInputs {
  const int8_t* q[NR];
  const int16_t* sum16[NR];
  float d[NR];
};

// The tile rows' TileInputs at super-block s.
template <int NR>
static inline TileInputs<NR> super_block_inputs(const Q8Row* x, int64_t s) {
  TileInputs<NR> in;
#pragma GCC unroll 8
  for (int r = 0; r < NR; ++r) {
    in.q[r] = x[r].q + s * kQKK;
    in.sum16[r] = x[r].sum16 + s * 16;
    in.d[r] = x[r].d[s];
  }
  return in;
}

// An empty asm that claims to change v, so GCC cannot re-associate an accumulation chain
// through it. Without it GCC turns a tile's chains of integer adds into trees that need
// every product of a block live at once, and spills them (200+ stack accesses per block).
static inline void keep_chain(__m256i& v) { asm("" : "+x"(v)); }

// Writes acc[r][h] lane i to y[(r0 + r) * n_out + 16 g + 8 h + i] for the outputs in
// [o_begin, o_end) (a task's range may end inside the last, padded group).
template <int NR>
static inline void store_group(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end,
                               const __m256 (*acc)[2]) {
  const int64_t first = g * kPackedGroupRows;
  const bool whole = first >= o_begin && first + kPackedGroupRows <= o_end;
  for (int r = 0; r < NR; ++r) {
    float* y = a.y + static_cast<int64_t>(r0 + r) * a.w->n_out + first;
    if (whole) {
      _mm256_storeu_ps(y, acc[r][0]);
      _mm256_storeu_ps(y + 8, acc[r][1]);
      continue;
    }
    alignas(32) float lanes[kPackedGroupRows];
    _mm256_store_ps(lanes, acc[r][0]);
    _mm256_store_ps(lanes + 8, acc[r][1]);
    for (int i = 0; i < kPackedGroupRows; ++i) {
      if (first + i >= o_begin && first + i < o_end) y[i] = lanes[i];
    }
  }
}

// The accumulators and the store of an AVX2 packed kernel (see packed_matmul()). In an unnamed
// namespace, as Avx512PackedKernel (avx512_packed_driver.h): its store<NR> must never be a weak symbol.
namespace {
struct Avx2PackedKernel {
  using Acc = __m256[2];
  template <int NR>
  static void store(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end, const Acc* acc) {
    store_group<NR>(a, g, r0, o_begin, o_end, acc);
  }
};
}  // namespace

}  // namespace strata::kernels::cpu::avx2
