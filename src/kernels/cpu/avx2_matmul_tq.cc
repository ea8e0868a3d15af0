// AVX2 matmul for the ternary types TQ1_0 and TQ2_0 against Q8 activations with one scale per
// 256 inputs (make_q8_row_layout(n_in, 256)).
//
// Per super-block and (weight row, input row) pair: the 8 exact int32 lanes of avx2_tq_decode.h
// (codes t + 1 against the activation codes, less the activation sums), then one fused
// multiply-add acc + float(lanes) * (d_w * d_x); the output is hsum(acc). Every path below does
// exactly these operations, so a row's bits depend on nothing but its inputs (the oracle in
// matmul_tq_test.cc writes them out).
//
// One input row (decode) streams the weights 4 rows at a time and decodes each super-block
// once, inside the pair. From kTqStripMinRows input rows a strip of weight rows is decoded once,
// whole, onto the stack as codes, and each block of input rows then runs plain multiply-adds
// over it: TQ1_0's base-3 decode costs several times the multiply-adds, and a tile of input
// rows would pay it once per tile.
#if defined(STRATA_KERNELS_AVX512)
// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as uninitialised once inlined here (as avx2_iq_strips.h notes).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_tq_decode.h"
#include "kernels/cpu/avx512_row_pairs.h"

// Built a third time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI for the AVX2 + AVX-VNNI table
// (avx2_vnni.h): the same code with vpdpbusd in TqDot, its entry points in namespace avx2vnni.
#if defined(STRATA_KERNELS_AVX2_VNNI)
#include "kernels/cpu/avx2_vnni.h"
#define STRATA_TQ_NS avx2vnni
#else
#define STRATA_TQ_NS STRATA_SIMD
#endif

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

// The two formats: the block layout and its decoder (avx2_tq_decode.h).
struct Tq1Format {
  using Block = BlockTQ1_0;
  static void decode(const Block& b, __m256i (&u)[8]) { tq1_codes(b, u); }
};
struct Tq2Format {
  using Block = BlockTQ2_0;
  static void decode(const Block& b, __m256i (&u)[8]) { tq2_codes(b, u); }
};

// Format F's step for one (weight row, input row) pair, in the shape of avx2_matmul_tile.h's
// policies.
template <class F>
struct TqTile {
  using Block = typename F::Block;
  struct Input {
    const int8_t* q;
    const float* d;
    const int16_t* sum16;
  };
  struct X {
    const int8_t* q;
    const int16_t* sum16;
    float d;
  };
  struct W {
    const Block* b;
    float d;
  };
  static constexpr int64_t kStepBytes = sizeof(Block);
  static Input input(const MatmulArgs& a, int r) {
    const Q8Row row = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
    return {row.q, row.d, row.sum16};
  }
  static X load_x(const Input& in, int64_t s) { return {in.q + s * kQKK, in.sum16 + s * 16, in.d[s]}; }
  static W load_w(const std::byte* row, int64_t s) {
    const Block* b = reinterpret_cast<const Block*>(row) + s;
    return {b, load_fp16(&b->d)};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    __m256i u[8];
    F::decode(*w.b, u);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(tq_lanes(u, x.q, x.sum16)), _mm256_set1_ps(w.d * x.d), acc);
  }
};

// Input rows from which the strips take over from the one-row path.
constexpr int kTqStripMinRows = 2;
// The decoded strip on the stack: this many super-blocks of codes (32 KiB), so rows of up to
// 32768 inputs fit one at a time (longer ones take the one-row path, row by row) and
// kTqStripRows at once up to 16384.
constexpr int64_t kTqStripSteps = 128;
constexpr int kTqStripRows = 2;
// Input rows per register tile: AVX2's 16 registers hold 2 x 2 pairs' integer and float
// accumulators beside the operands, AVX-512's 32 hold 2 x 4.
#if defined(__AVX512VL__)
constexpr int kTqTileRows = 4;
#else
constexpr int kTqTileRows = 2;
#endif
// Input rows one decoded strip serves before the next is decoded: about this many bytes of
// activation codes, so they stay in L2 while a range's strips go by.
constexpr int64_t kTqRowBlockBytes = 384 * 1024;

struct alignas(64) TqStrip {
  uint8_t codes[kTqStripSteps][kQKK];
  float d[kTqStripSteps];
};

// How far ahead of the weights it reads a kernel asks for them (about one DRAM latency of a
// thread's stream; a few input rows are still bound by it).
constexpr int64_t kTqAheadBytes = 4096;

// Weight rows [o, o + n) decoded into strip: row i's step s at index i * n_steps + s. The rows
// are read in address order, so each step asks for the bytes kTqAheadBytes on: the next strips'.
template <class F>
void decode_strip(const MatmulArgs& a, int64_t o, int n, int64_t n_steps, TqStrip& strip) {
  constexpr int64_t kStep = sizeof(typename F::Block);
  for (int i = 0; i < n; ++i) {
    const std::byte* row = static_cast<const std::byte*>(a.w->data) + (o + i) * a.w->row_bytes;
    for (int64_t s = 0; s < n_steps; ++s) {
      const char* next = reinterpret_cast<const char*>(row) + s * kStep + kTqAheadBytes;
      _mm_prefetch(next, _MM_HINT_T0);
      _mm_prefetch(next + kStep - 1, _MM_HINT_T0);
      const typename TqTile<F>::W w = TqTile<F>::load_w(row, s);
      __m256i u[8];
      F::decode(*w.b, u);
      uint8_t* out = strip.codes[i * n_steps + s];
#pragma GCC unroll 8
      for (int c = 0; c < 8; ++c) _mm256_store_si256(reinterpret_cast<__m256i*>(out + 32 * c), u[c]);
      strip.d[i * n_steps + s] = w.d;
    }
  }
}

#if defined(STRATA_KERNELS_AVX512)
[[gnu::always_inline]] inline void tq_hold512(__m512i& v) { asm("" : "+v"(v)); }

// The activation sums (madd of sum16, as TqDot subtracts them) and scales of input rows lo and
// hi (hi < 0: none) for super-block s, as the two 256-bit halves of one vector each.
[[gnu::always_inline]] inline void tq_row_pair_terms(const Q8Row* in, int lo, int hi, int64_t s, __m512i* sums,
                                                     __m512* d_x) {
  const __m256i ones = _mm256_set1_epi16(1);
  const __m256i sum_lo = _mm256_madd_epi16(load_256(in[lo].sum16 + s * 16), ones);
  const __m256i sum_hi = hi >= 0 ? _mm256_madd_epi16(load_256(in[hi].sum16 + s * 16), ones) : _mm256_setzero_si256();
  *sums = _mm512_inserti64x4(_mm512_castsi256_si512(sum_lo), sum_hi, 1);
  const float d_hi = hi >= 0 ? in[hi].d[s] : 0.0f;
  *d_x = _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_set1_ps(in[lo].d[s])), _mm256_set1_ps(d_hi), 1);
}

// Weight rows [o, o + NW) (decoded in strip) against input rows [r0, r0 + NR). The AVX-512
// build runs vpdpbusd on two chunks at once (int32 lanes 0-7 the even chunk's, 8-15 the odd
// one's, added before the float step: the same integers) and the float step on two input rows
// per vector (lanes 0-7 row 2q, 8-15 row 2q + 1), each lane with the 8-lane step's operations.
template <int NW, int NR>
[[gnu::always_inline]] inline void tq_strip_tile(const MatmulArgs& a, const TqStrip& strip, int64_t n_steps,
                                                 int64_t o, int r0) {
  constexpr int NQ = (NR + 1) / 2;
  Q8Row in[NR];
#pragma GCC unroll 4
  for (int r = 0; r < NR; ++r) in[r] = q8_row(a.xq + static_cast<size_t>(r0 + r) * a.xq_layout.row_bytes, a.xq_layout);
  __m512 acc[NW][NQ];
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int q = 0; q < NQ; ++q) acc[i][q] = _mm512_setzero_ps();
  }
  for (int64_t s = 0; s < n_steps; ++s) {
    __m512i dot[NW][NR];
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) dot[i][r] = _mm512_setzero_si512();
    }
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      __m512i w[NW];
#pragma GCC unroll 4
      for (int i = 0; i < NW; ++i) {
        w[i] = _mm512_load_si512(strip.codes[i * n_steps + s] + 64 * p);
        tq_hold512(w[i]);
      }
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        __m512i x = _mm512_loadu_si512(in[r].q + s * kQKK + 64 * p);
        tq_hold512(x);
#pragma GCC unroll 4
        for (int i = 0; i < NW; ++i) dot[i][r] = _mm512_dpbusd_epi32(dot[i][r], w[i], x);
      }
    }
    __m512i sums[NQ];
    __m512 d_x[NQ];
#pragma GCC unroll 4
    for (int q = 0; q < NQ; ++q) tq_row_pair_terms(in, 2 * q, 2 * q + 1 < NR ? 2 * q + 1 : -1, s, &sums[q], &d_x[q]);
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      const __m512 d_w = _mm512_set1_ps(strip.d[i * n_steps + s]);
#pragma GCC unroll 4
      for (int q = 0; q < NQ; ++q) {
        const __m512i lo = dot[i][2 * q];
        const __m512i hi = 2 * q + 1 < NR ? dot[i][2 * q + 1] : _mm512_setzero_si512();
        const __m512 total = _mm512_cvtepi32_ps(_mm512_sub_epi32(row_pair_lanes(lo, hi), sums[q]));
        acc[i][q] = _mm512_fmadd_ps(total, _mm512_mul_ps(d_w, d_x[q]), acc[i][q]);
      }
    }
  }
  store_row_pairs<NW, NR>(a, acc, o, r0);
}
#else
// Weight rows [o, o + NW) (decoded in strip) against input rows [r0, r0 + NR).
template <int NW, int NR>
[[gnu::always_inline]] inline void tq_strip_tile(const MatmulArgs& a, const TqStrip& strip, int64_t n_steps,
                                                 int64_t o, int r0) {
  Q8Row in[NR];
#pragma GCC unroll 4
  for (int r = 0; r < NR; ++r) in[r] = q8_row(a.xq + static_cast<size_t>(r0 + r) * a.xq_layout.row_bytes, a.xq_layout);
  __m256 acc[NW][NR];
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
#pragma GCC unroll 4
    for (int r = 0; r < NR; ++r) acc[i][r] = _mm256_setzero_ps();
  }
  for (int64_t s = 0; s < n_steps; ++s) {
    TqDot dot[NW][NR];
    // Each operand is loaded once per chunk and held in a register (the empty asm): else GCC
    // folds the activation load into every multiply and reloads the codes for each one, and
    // the loads bound the tile (62 per super-block of a 2 x 2 AVX2 tile instead of 32).
#pragma GCC unroll 8
    for (int c = 0; c < 8; ++c) {
      __m256i w[NW];
#pragma GCC unroll 4
      for (int i = 0; i < NW; ++i) {
        w[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(strip.codes[i * n_steps + s] + 32 * c));
        tq_hold(w[i]);
      }
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        __m256i x = load_256(in[r].q + s * kQKK + 32 * c);
        tq_hold(x);
#pragma GCC unroll 4
        for (int i = 0; i < NW; ++i) dot[i][r].add(w[i], x);
      }
    }
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      const float d_w = strip.d[i * n_steps + s];
#pragma GCC unroll 4
      for (int r = 0; r < NR; ++r) {
        const __m256 lanes = _mm256_cvtepi32_ps(dot[i][r].lanes(in[r].sum16 + s * 16));
        acc[i][r] = _mm256_fmadd_ps(lanes, _mm256_set1_ps(d_w * in[r].d[s]), acc[i][r]);
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
void tq_strip_rows(const MatmulArgs& a, const TqStrip& strip, int64_t n_steps, int64_t o, int r_begin, int r_end) {
  constexpr int NR = kTqTileRows;
  int r = r_begin;
  for (; r + NR <= r_end; r += NR) tq_strip_tile<NW, NR>(a, strip, n_steps, o, r);
  switch (r_end - r) {
    case 3: tq_strip_tile<NW, 3>(a, strip, n_steps, o, r); break;
    case 2: tq_strip_tile<NW, 2>(a, strip, n_steps, o, r); break;
    case 1: tq_strip_tile<NW, 1>(a, strip, n_steps, o, r); break;
    default: break;
  }
}

// Output rows [o_begin, o_end) for all input rows, in blocks of input rows: each strip of
// kTqStripRows weight rows (one where the rows are long, or at the range's end) is decoded
// once per block. Requires n_in / 256 <= kTqStripSteps.
template <class F>
void tq_rows_strips(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const int64_t n_steps = a.w->n_in / kQKK;
  alignas(64) TqStrip strip;
  const bool wide = kTqStripRows * n_steps <= kTqStripSteps;
  const int64_t block_cap = std::max<int64_t>(kTqTileRows, kTqRowBlockBytes / a.w->n_in);
  const int64_t n_blocks = (a.n_rows + block_cap - 1) / block_cap;
  const int block_rows = static_cast<int>((a.n_rows + n_blocks - 1) / n_blocks);
  for (int r_begin = 0; r_begin < a.n_rows; r_begin += block_rows) {
    const int r_end = std::min(a.n_rows, r_begin + block_rows);
    int64_t o = o_begin;
    if (wide) {
      for (; o + kTqStripRows <= o_end; o += kTqStripRows) {
        decode_strip<F>(a, o, kTqStripRows, n_steps, strip);
        tq_strip_rows<kTqStripRows>(a, strip, n_steps, o, r_begin, r_end);
      }
    }
    for (; o < o_end; ++o) {
      decode_strip<F>(a, o, 1, n_steps, strip);
      tq_strip_rows<1>(a, strip, n_steps, o, r_begin, r_end);
    }
  }
}

// One input row against weight rows [o, o + NW): the weights stream, each super-block decoded
// once in the pair. Each step asks for the lines of the same step in the rows ahead_bytes on
// (whole tiles, about one DRAM latency's worth: rows are contiguous, so those are the next
// tiles' bytes). With avx2_matmul_tile.h's 512 bytes ahead of each row, TQ2_0 streamed 10-12
// GB/s from DRAM on 2 threads (BM_Matmul 5632 x 2048, Xeon with AVX-512), with this 22-23, the
// machine's read bandwidth.
template <class F, int NW>
[[gnu::always_inline]] inline void tq_single_row_tile(const MatmulArgs& a, int64_t o, int64_t ahead_bytes) {
  using P = TqTile<F>;
  const typename P::Input in = P::input(a, 0);
  const std::byte* rows[NW];
  __m256 acc[NW];
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) {
    rows[i] = static_cast<const std::byte*>(a.w->data) + (o + i) * a.w->row_bytes;
    acc[i] = _mm256_setzero_ps();
  }
  const int64_t n_steps = a.w->n_in / kQKK;
  for (int64_t s = 0; s < n_steps; ++s) {
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) {
      const char* next = reinterpret_cast<const char*>(rows[i]) + s * P::kStepBytes + ahead_bytes;
      _mm_prefetch(next, _MM_HINT_T0);
      _mm_prefetch(next + P::kStepBytes - 1, _MM_HINT_T0);  // a 66-byte step may end in the next line
    }
    const typename P::X x = P::load_x(in, s);
#pragma GCC unroll 4
    for (int i = 0; i < NW; ++i) acc[i] = P::pair(P::load_w(rows[i], s), x, acc[i]);
  }
#pragma GCC unroll 4
  for (int i = 0; i < NW; ++i) a.y[o + i] = hsum(acc[i]);
}

// Rows of the one-row tiles; they prefetch at least kTqAheadBytes ahead, in whole tiles.
constexpr int kTqStreamRows = 4;

template <class F>
void tq_single_row(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const int64_t tile_bytes = kTqStreamRows * static_cast<int64_t>(a.w->row_bytes);
  const int64_t ahead_bytes = (kTqAheadBytes + tile_bytes - 1) / tile_bytes * tile_bytes;
  int64_t o = o_begin;
  for (; o + kTqStreamRows <= o_end; o += kTqStreamRows) tq_single_row_tile<F, kTqStreamRows>(a, o, ahead_bytes);
  for (; o < o_end; ++o) tq_single_row_tile<F, 1>(a, o, ahead_bytes);
}

// Strips for several input rows, else (one row, or rows too long for the strip: over 32768
// inputs) the one-row tiles, row by row.
template <class F>
void matmul_tq(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (args.n_rows >= kTqStripMinRows && args.w->n_in / kQKK <= kTqStripSteps) {
    return tq_rows_strips<F>(args, o_begin, o_end);
  }
  for (int r = 0; r < args.n_rows; ++r) {
    MatmulArgs one = args;
    one.n_rows = 1;
    one.xq = args.xq + static_cast<size_t>(r) * args.xq_layout.row_bytes;
    one.y = args.y + static_cast<int64_t>(r) * args.w->n_out;
    tq_single_row<F>(one, o_begin, o_end);
  }
}

}  // namespace
}  // namespace strata::kernels::cpu::STRATA_SIMD

namespace strata::kernels::cpu::STRATA_TQ_NS {

void matmul_tq1_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  STRATA_SIMD::matmul_tq<STRATA_SIMD::Tq1Format>(args, o_begin, o_end);
}

void matmul_tq2_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  STRATA_SIMD::matmul_tq<STRATA_SIMD::Tq2Format>(args, o_begin, o_end);
}

#if defined(STRATA_KERNELS_AVX2_VNNI)
// The AVX2 + AVX-VNNI table's matmul entry: the ternary types here, every other type the AVX2
// table's (avx2_matmul.cc).
void matmul_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  switch (args.w->type) {
    case DType::kTQ1_0: matmul_tq1_0(args, o_begin, o_end); return;
    case DType::kTQ2_0: matmul_tq2_0(args, o_begin, o_end); return;
    default: avx2::matmul_rows(args, o_begin, o_end); return;
  }
}
#endif

}  // namespace strata::kernels::cpu::STRATA_TQ_NS
