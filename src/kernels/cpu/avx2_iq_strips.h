// Strip kernels for the lattice i-quants (avx2_iq_lattice.h policies) on many input rows: a
// prompt chunk or a large decode batch. The tiled kernels decode a weight super-block for
// every 4 input rows, and the grid lookups cost far more than the multiply-adds; here a strip
// of a few weight rows is decoded once, whole, onto the stack (int8 weights, their int16
// scale vectors, per-lane bias terms, the float scale), and every input row of a block of
// rows then runs through plain int8 multiply-adds over it.
//
// Activation codes x (int8, |x| <= 127) enter maddubs as its unsigned operand x + 128
// (x ^ 0x80) against the signed weights: no per-row sign work. Each int32 lane then holds
// its sum plus 128 * sum_j scale_j * (the lane's four weights of sub-block j); the decoded
// step keeps minus that term (computed with the same maddubs and madd on codes of 128) and
// every lane sum starts from it, so the lanes come out as the exact integers of the tiled
// kernels (lane k: sum over sub-blocks j of scale_j * elements 4k..4k+3 of j times x;
// integer sums are exact, so their grouping is free). The float step per super-block is the
// tiled kernels' and the oracle's (matmul_simd_oracle_test.cc): acc + float(lanes) *
// ((d_w * f) * d_x), then hsum. So a row's bits do not depend on its tile, its block or
// the strip's height, and equal the single-row and tiled kernels'.
//
// The AVX-512 build runs the sub-blocks in pairs on 512-bit vectors (lanes 0-7 even
// sub-blocks, 8-15 odd ones, added before the float step) with VNNI's vpdpwssd in place of
// madd + add, and the float step for two input rows per vector. Where the CPU has VBMI,
// avx512_matmul_iq_vbmi.cc fills the strips with its byte-permute decoders (the same bytes).
// Internal linkage only (see avx2_iq_lattice.h).
#pragma once

#if defined(STRATA_KERNELS_AVX512)
// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>

#include "kernels/cpu/avx2_iq_lattice.h"
#include "kernels/cpu/avx512_row_pairs.h"

namespace strata::kernels::cpu::STRATA_SIMD {
namespace {

// One weight row's super-block, decoded.
struct alignas(64) DecodedStep {
  int8_t w[kQKK];          // signed weights, element order
  int16_t scale[8][16];    // sub-block j: the int16 scale of each element pair (madd's operand)
  int32_t neg_bias[8];     // minus 128 * the lanes' scaled weight sums (see the header)
  float d;                 // d_w * f
};

// The decoded strip lives on the stack: this many super-blocks (72 KiB), so weight rows of up
// to 32768 inputs fit one at a time, and kStripRows at once for n_in up to kStripSteps /
// kStripRows super-blocks (AVX-512 8192, AVX2 16384).
constexpr int64_t kStripSteps = 128;
#if defined(STRATA_KERNELS_AVX512)
constexpr int kStripRows = 4;
constexpr int kStripTileRows = 4;
#else
constexpr int kStripRows = 2;
constexpr int kStripTileRows = 4;
#endif

// Input rows one decoded strip serves before the next strip is decoded: about this many
// bytes of activation codes, so they stay in L2 while a range's strips go by.
constexpr int64_t kRowBlockBytes = 384 * 1024;

template <class K>
[[gnu::always_inline]] inline void decode_step(const typename K::BlockType& b, DecodedStep& out) {
  const __m256i codes128 = _mm256_set1_epi8(static_cast<char>(0x80));
  __m256i bias = _mm256_setzero_si256();
  SubBlock sb[8];
  K::sub_blocks(b, sb);
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.w + 32 * j), sb[j].w);
    _mm256_store_si256(reinterpret_cast<__m256i*>(out.scale[j]), sb[j].scale);
    bias = _mm256_add_epi32(bias, _mm256_madd_epi16(_mm256_maddubs_epi16(codes128, sb[j].w), sb[j].scale));
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(out.neg_bias), _mm256_sub_epi32(_mm256_setzero_si256(), bias));
  out.d = K::block_d(b) * (1.0f / K::kFactorInv);
}

// A strip decoder: decode_rows(a, o, n, n_steps, strip) writes weight rows [o, o + n), row
// i's steps at strip + i * n_steps. This one runs tile policy K's sub-block decoder; the
// AVX-512 VBMI kernels have their own (avx512_matmul_iq_vbmi.cc), same bytes.
template <class K>
struct PolicyStripDecoder {
  void decode_rows(const MatmulArgs& a, int64_t o, int n, int64_t n_steps, DecodedStep* strip) const {
    using Block = typename K::BlockType;
    for (int i = 0; i < n; ++i) {
      const auto* row = reinterpret_cast<const Block*>(static_cast<const std::byte*>(a.w->data) + (o + i) * a.w->row_bytes);
      for (int64_t s = 0; s < n_steps; ++s) decode_step<K>(row[s], strip[i * n_steps + s]);
    }
  }
};

// Input rows [r0, r0 + NR) of the quantized activations.
template <int NR>
[[gnu::always_inline]] inline void load_input_rows(const MatmulArgs& a, int r0, Q8Row (&in)[NR]) {
#pragma GCC unroll 4
  for (int r = 0; r < NR; ++r) in[r] = q8_row(a.xq + static_cast<size_t>(r0 + r) * a.xq_layout.row_bytes, a.xq_layout);
}

// Step s of a tile: the strip's decoded step of each of its NW weight rows (row i's steps at
// strip + i * n_steps) and the activation codes of each input row.
template <int NW, int NR>
[[gnu::always_inline]] inline void step_operands(const DecodedStep* strip, int64_t n_steps, int64_t s,
                                                 const Q8Row (&in)[NR], const DecodedStep* (&w)[NW],
                                                 const int8_t* (&x)[NR]) {
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) w[i] = strip + i * n_steps + s;
#pragma GCC unroll 4
  for (int r = 0; r < NR; ++r) x[r] = in[r].q + s * kQKK;
}

#if defined(STRATA_KERNELS_AVX512)
// The super-block's int32 sums of weight step w against activation codes x, per (weight
// row, input row) pair: lanes 0-7 the even sub-blocks' part of the tiled kernels' lanes,
// 8-15 the odd ones'.
template <int NW, int NR>
[[gnu::always_inline]] inline void step_sums(const DecodedStep* const (&w)[NW], const int8_t* const (&x)[NR],
                                             __m512i (&sum)[NW][NR]) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
    const __m512i start = _mm512_zextsi256_si512(_mm256_load_si256(reinterpret_cast<const __m256i*>(w[i]->neg_bias)));
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) sum[i][r] = start;
  }
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p) {
    __m512i wv[NW], sv[NW];  // held in registers across the input rows
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      wv[i] = _mm512_load_si512(w[i]->w + 64 * p);
      sv[i] = _mm512_load_si512(w[i]->scale[2 * p]);
    }
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const __m512i xu = _mm512_xor_si512(_mm512_loadu_si512(x[r] + 64 * p), flip);
#pragma GCC unroll 4
      for (int i = 0; i < NW; ++i) sum[i][r] = _mm512_dpwssd_epi32(sum[i][r], _mm512_maddubs_epi16(xu, wv[i]), sv[i]);
    }
  }
}

// Weight rows [o, o + NW) (decoded in strip) against input rows [r0, r0 + NR). The float
// step runs on two input rows at once (lanes 0-7 row 2q, 8-15 row 2q + 1); each lane sees
// the operations of the 8-lane step.
template <int NW, int NR>
[[gnu::always_inline]] inline void strip_tile(const MatmulArgs& a, const DecodedStep* strip, int64_t n_steps,
                                              int64_t o, int r0) {
  constexpr int NQ = (NR + 1) / 2;
  Q8Row in[NR];
  load_input_rows<NR>(a, r0, in);
  __m512 acc[NW][NQ];
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int q = 0; q < NQ; ++q) acc[i][q] = _mm512_setzero_ps();
  }
  for (int64_t s = 0; s < n_steps; ++s) {
    const DecodedStep* w[NW];
    const int8_t* x[NR];
    step_operands<NW, NR>(strip, n_steps, s, in, w, x);
    __m512i sum[NW][NR];
    step_sums<NW, NR>(w, x, sum);
    __m512 d_x[NQ];
#pragma GCC unroll 4
    for (int q = 0; q < NQ; ++q) {
      const float hi = 2 * q + 1 < NR ? in[2 * q + 1].d[s] : 0.0f;
      d_x[q] = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_set1_ps(in[2 * q].d[s])), _mm256_set1_ps(hi), 1);
    }
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      const __m512 d_w = _mm512_set1_ps(w[i]->d);
#pragma GCC unroll 4
      for (int q = 0; q < NQ; ++q) {
        const __m512i lo = sum[i][2 * q];
        const __m512i hi = 2 * q + 1 < NR ? sum[i][2 * q + 1] : _mm512_setzero_si512();
        acc[i][q] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(row_pair_lanes(lo, hi)), _mm512_mul_ps(d_w, d_x[q]), acc[i][q]);
      }
    }
  }
  store_row_pairs<NW, NR>(a, acc, o, r0);
}
#else
// An empty asm on each step of a lane sum: without it GCC re-associates the chains into
// trees and spills every madd product of a super-block to the stack.
[[gnu::always_inline]] inline void hold_chain(__m256i& v) { asm("" : "+x"(v)); }

// The super-block's int32 lanes of weight step w against activation codes x, per (weight
// row, input row) pair.
template <int NW, int NR>
[[gnu::always_inline]] inline void step_lanes(const DecodedStep* const (&w)[NW], const int8_t* const (&x)[NR],
                                              __m256i (&lanes)[NW][NR]) {
  const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
    const __m256i start = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[i]->neg_bias));
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) lanes[i][r] = start;
  }
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) {
    __m256i wv[NW], sv[NW];  // held in registers across the input rows
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      wv[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[i]->w + 32 * j));
      sv[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(w[i]->scale[j]));
    }
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) {
      const __m256i xu = _mm256_xor_si256(load_256(x[r] + 32 * j), flip);
#pragma GCC unroll 4
      for (int i = 0; i < NW; ++i) {
        lanes[i][r] = _mm256_add_epi32(lanes[i][r], _mm256_madd_epi16(_mm256_maddubs_epi16(xu, wv[i]), sv[i]));
        hold_chain(lanes[i][r]);
      }
    }
  }
}

// Weight rows [o, o + NW) (decoded in strip) against input rows [r0, r0 + NR).
template <int NW, int NR>
[[gnu::always_inline]] inline void strip_tile(const MatmulArgs& a, const DecodedStep* strip, int64_t n_steps,
                                              int64_t o, int r0) {
  Q8Row in[NR];
  load_input_rows<NR>(a, r0, in);
  __m256 acc[NW][NR];
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) acc[i][r] = _mm256_setzero_ps();
  }
  for (int64_t s = 0; s < n_steps; ++s) {
    const DecodedStep* w[NW];
    const int8_t* x[NR];
    step_operands<NW, NR>(strip, n_steps, s, in, w, x);
    __m256i lanes[NW][NR];
    step_lanes<NW, NR>(w, x, lanes);
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      const __m256 d_w = _mm256_set1_ps(w[i]->d);
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        const __m256 d = _mm256_mul_ps(d_w, _mm256_set1_ps(in[r].d[s]));
        acc[i][r] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(lanes[i][r]), d, acc[i][r]);
      }
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) a.y[static_cast<int64_t>(r0 + r) * a.w->n_out + o + i] = hsum(acc[i][r]);
  }
}
#endif

// Weight rows [o, o + NW), decoded in strip, against input rows [r_begin, r_end).
template <int NW>
void strip_rows(const MatmulArgs& a, const DecodedStep* strip, int64_t n_steps, int64_t o, int r_begin, int r_end) {
  constexpr int NR = kStripTileRows;
  int r = r_begin;
  for (; r + NR <= r_end; r += NR) strip_tile<NW, NR>(a, strip, n_steps, o, r);
  switch (r_end - r) {
    case 3: strip_tile<NW, 3>(a, strip, n_steps, o, r); break;
    case 2: strip_tile<NW, 2>(a, strip, n_steps, o, r); break;
    case 1: strip_tile<NW, 1>(a, strip, n_steps, o, r); break;
    default: break;
  }
}

// True when matmul_rows_strips() can take w (its rows fit the stack strip one at a time).
inline bool strips_fit(const WeightMatrix& w) { return w.n_in / kQKK <= kStripSteps; }

// Output rows [o_begin, o_end) for all input rows: per block of input rows, each strip of
// kStripRows weight rows (fewer where n_in is large or at the range's end) is decoded once
// by decoder and serves the whole block. Requires strips_fit(*a.w).
template <class Decoder>
void matmul_rows_strips_with(const MatmulArgs& a, int64_t o_begin, int64_t o_end, const Decoder& decoder) {
  const int64_t n_steps = a.w->n_in / kQKK;
  alignas(64) DecodedStep strip[kStripSteps];
  const bool wide = kStripRows * n_steps <= kStripSteps;
  const int64_t block_cap = std::max<int64_t>(kStripTileRows, kRowBlockBytes / a.w->n_in);
  const int64_t n_blocks = (a.n_rows + block_cap - 1) / block_cap;
  const int block_rows = static_cast<int>((a.n_rows + n_blocks - 1) / n_blocks);
  for (int r_begin = 0; r_begin < a.n_rows; r_begin += block_rows) {
    const int r_end = std::min(a.n_rows, r_begin + block_rows);
    int64_t o = o_begin;
    if (wide) {
      for (; o + kStripRows <= o_end; o += kStripRows) {
        decoder.decode_rows(a, o, kStripRows, n_steps, strip);
        strip_rows<kStripRows>(a, strip, n_steps, o, r_begin, r_end);
      }
    }
    for (; o < o_end; ++o) {
      decoder.decode_rows(a, o, 1, n_steps, strip);
      strip_rows<1>(a, strip, n_steps, o, r_begin, r_end);
    }
  }
}

template <class K>
void matmul_rows_strips(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  matmul_rows_strips_with(a, o_begin, o_end, PolicyStripDecoder<K>{});
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD
