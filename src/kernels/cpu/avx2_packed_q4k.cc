// AVX2 matmul over the packed Q4_K and Q5_K layouts (packed_q4k.h), for CPUs without
// AVX-512: the weights stream as one contiguous run per row group, the scales and mins
// arrive unpacked.
//
// Each super-block is done one half (8 rows) at a time, one sub-block at a time: a code
// line's half, masked (and for the high-nibble sub-block shifted; Q5_K: with its 5th bits
// added from a high line), gives the unsigned codes of one sub-block for 8 rows, and maddubs
// gives their products with 4 activations per row as int16 pair sums. Activations are at
// most 127 in magnitude (quantize_q8_row clamps them), so a line adds at most
// 2 * 15 * 127 = 3810 per int16 lane for Q4_K codes and 7874 for Q5_K's: 8 (Q4_K) or 4
// (Q5_K) lines add up exactly in int16 before one madd against the sub-block's scale widens
// them (scale_j * dot_j, exact in int32: the oracle's integer). The scaled sums and the mins
// are exact int32, and the float steps follow the oracles reference::matmul_packed_q4_k_rows
// / _q5_k_rows in order: the bits equal the oracle's (and the AVX-512 kernel's), for any tile
// and batch.
//
// One sub-block at a time (rather than a code line's two at once) leaves a tile row one
// int16 sum and its dots live, so a tile takes 8 activation rows per weight load for Q5_K
// (was 3) and 6 for Q4_K (was 4), and Q5_K's 5th-bit decode, about a third of a line's
// instructions for 3 rows, is shared by 8. The half's sub-block pairs are a loop, not
// unrolled (see half_block).
//
// Single-row decode (one activation row) takes both halves and both sub-blocks of each code
// line at once instead (single_row_q4k, Q4_K only: the same for Q5_K measured level), in both
// builds: on an AMD Zen 5 the AVX-VNNI build's BM_MatmulHot q4_K rows:1 took 0.86x the time of
// its tile path, one thread's TinyLlama Q4_K_M decode 0.92x (least of 6 alternating runs).
//
// Built a second time with -mavxvnni and STRATA_KERNELS_AVX2_VNNI (namespace avx2vnni, the
// AVX2 + AVX-VNNI table of avx2_vnni.h): there one vpdpbusd per line and row adds a
// sub-block's products in int32 (at most 32 * 31 * 127 per lane) instead of maddubs and an
// int16 add, and a 32-bit multiply applies the scale once per sub-block; the same integers,
// so the same bits. The min terms keep madd and add there: one vpdpwssd in their place
// measured level (BM_MatmulHot q4_K / q5_K 256x2048 and 256x5632, 1-64 rows, 0.97-1.01 of
// the time, least of 5 alternating runs), the min terms being a few percent of a block's
// instructions.
#include <immintrin.h>

#include <utility>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_packed_driver.h"
#include "kernels/packed_q4k.h"

namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS {

using namespace avx2;  // the shared AVX2 helpers of avx2_packed_driver.h

namespace {

// Sub-block 2p + kE's unsigned codes from code line kT of pair p (at lines: sub-block 2p in
// the low nibbles, 2p + 1 in the high ones), half kHalf's 8 rows; for Q5_K with the 5th bit,
// bit 2 (kT % 4) + kE of the pair's high line kT / 4 (at high), moved to bit 4. The 16-bit
// shifts move that bit within its byte (at most 4 places), so no neighbouring byte leaks in.
template <bool kFive, int kHalf, int kE, int kT>
[[gnu::always_inline]] inline __m256i pair_codes(const std::byte* lines, const std::byte* high) {
  const __m256i line = half_line(lines + 64 * kT, kHalf);
  __m256i codes = _mm256_and_si256(kE == 0 ? line : _mm256_srli_epi16(line, 4), _mm256_set1_epi8(0x0f));
  if constexpr (kFive) {
    constexpr int kBit = 2 * (kT % 4) + kE;
    __m256i bits = half_line(high + 64 * (kT / 4), kHalf);
    if constexpr (kBit < 4) bits = _mm256_slli_epi16(bits, 4 - kBit);
    if constexpr (kBit > 4) bits = _mm256_srli_epi16(bits, kBit - 4);
    codes = _mm256_or_si256(codes, _mm256_and_si256(bits, _mm256_set1_epi8(0x10)));
  }
  return codes;
}

// Pair p's code lines, high lines, scales and the tile rows' activations.
template <int NR>
struct PairInputs {
  const std::byte* lines;
  const std::byte* high;
  const std::byte* scales;
  const int8_t* q[NR];
};

// Row i's 6-bit scale of sub-block 2p + kE (byte 16 kE + i of the pair's scales) in int32
// lane i, for half kHalf's 8 rows.
template <int kHalf, int kE, int NR>
[[gnu::always_inline]] inline __m256i scale_ints(const PairInputs<NR>& in) {
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in.scales + 16 * kE + 8 * kHalf)));
}

// The same scales in both int16 halves of each lane: one madd of a row's int16 pair sums
// against them is scale_j * dot_j.
template <int kHalf, int kE, int NR>
[[gnu::always_inline]] inline __m256i scale_pairs16(const PairInputs<NR>& in) {
  const __m256i sc = scale_ints<kHalf, kE>(in);
  return _mm256_or_si256(sc, _mm256_slli_epi32(sc, 16));
}

// The one step that differs between the builds, shared by the tile and single-row paths: a
// run of a sub-block's lines sums in int32 by vpdpbusd and one 32-bit multiply applies the
// scale (AVX-VNNI; all 8 lines in one run: at most 8 * 4 * 31 * 127 per lane), or in int16 by
// maddubs and one madd widens and scales it (AVX2; 8 lines of Q4_K or 4 of Q5_K a run, see the
// top of the file).
#if defined(STRATA_KERNELS_AVX2_VNNI)
constexpr int kRunLinesQ5K = 8;  // Q4_K runs are 8 lines in both builds
// sum + one code line's products with 4 activations per row (sum is ignored for the first).
[[gnu::always_inline]] inline __m256i line_sum(__m256i sum, __m256i codes, __m256i x4, bool first) {
  return _mm256_dpbusd_avx_epi32(first ? _mm256_setzero_si256() : sum, codes, x4);
}
// Sub-block 2p + kE's scales for half kHalf, as scaled_run takes them.
template <int kHalf, int kE, int NR>
[[gnu::always_inline]] inline __m256i run_scale(const PairInputs<NR>& in) {
  return scale_ints<kHalf, kE>(in);
}
// scale_j times a run's sum, in int32 (exact: at most 63 * 125984).
inline __m256i scaled_run(__m256i sum, __m256i scale) { return _mm256_mullo_epi32(sum, scale); }
#else
constexpr int kRunLinesQ5K = 4;
[[gnu::always_inline]] inline __m256i line_sum(__m256i sum, __m256i codes, __m256i x4, bool first) {
  const __m256i prod = _mm256_maddubs_epi16(codes, x4);
  return first ? prod : _mm256_add_epi16(sum, prod);
}
template <int kHalf, int kE, int NR>
[[gnu::always_inline]] inline __m256i run_scale(const PairInputs<NR>& in) {
  return scale_pairs16<kHalf, kE>(in);
}
inline __m256i scaled_run(__m256i sum, __m256i scale) { return _mm256_madd_epi16(sum, scale); }
#endif

// Line kT of sub-block 2p + kE, half kHalf: its products with each activation row onto
// sums[r] (into it, for the first line of a run).
template <bool kFive, int kHalf, int kE, int kT, bool kFirst, int NR>
[[gnu::always_inline]] inline void line_step(const PairInputs<NR>& in, __m256i* sums) {
  const __m256i codes = pair_codes<kFive, kHalf, kE, kT>(in.lines, in.high);
#pragma GCC unroll 16
  for (int r = 0; r < NR; ++r) {
    sums[r] = line_sum(sums[r], codes, broadcast4(in.q[r] + 32 * kE + 4 * kT), kFirst);
    keep_chain(sums[r]);
  }
}

// Lines kT0 + kI of sub-block 2p + kE, half kHalf, against the NR activation rows: their
// sums, times the sub-block's scale, onto dots[r].
template <bool kFive, int kHalf, int kE, int kT0, int NR, int... kI>
[[gnu::always_inline]] inline void line_run(const PairInputs<NR>& in, __m256i* dots,
                                            std::integer_sequence<int, kI...>) {
  __m256i sums[NR] = {};  // zeroed only so the first line passes a defined value, which it ignores
  (line_step<kFive, kHalf, kE, kT0 + kI, kI == 0, NR>(in, sums), ...);
  const __m256i scale = run_scale<kHalf, kE>(in);
#pragma GCC unroll 16
  for (int r = 0; r < NR; ++r) {
    dots[r] = _mm256_add_epi32(dots[r], scaled_run(sums[r], scale));
    keep_chain(dots[r]);
  }
}

// Sub-blocks 2p and 2p + 1, half kHalf, onto dots[r], a run of lines at a time. One run's sum
// per row is live.
template <bool kFive, int kHalf, int NR>
[[gnu::always_inline]] inline void pair_dots(const PairInputs<NR>& in, __m256i* dots) {
  constexpr int kRun = kFive ? kRunLinesQ5K : 8;
  line_run<kFive, kHalf, 0, 0>(in, dots, std::make_integer_sequence<int, kRun>{});
  if constexpr (kRun == 4) line_run<kFive, kHalf, 0, 4>(in, dots, std::make_integer_sequence<int, 4>{});
  line_run<kFive, kHalf, 1, 0>(in, dots, std::make_integer_sequence<int, kRun>{});
  if constexpr (kRun == 4) line_run<kFive, kHalf, 1, 4>(in, dots, std::make_integer_sequence<int, 4>{});
}

// sum_j min_j * (sum of x over sub-block j) of half h's 8 rows for one activation row:
// the mins pair up per row as int16 (bytes 32 p + 2 i + e), the activation sums likewise.
inline __m256i min_terms(const __m256i* mins, const int32_t* pairs) {
  __m256i terms = _mm256_madd_epi16(mins[0], _mm256_set1_epi32(pairs[0]));
#pragma GCC unroll 4
  for (int p = 1; p < 4; ++p) terms = _mm256_add_epi32(terms, _mm256_madd_epi16(mins[p], _mm256_set1_epi32(pairs[p])));
  return terms;
}

// Half kHalf's float step for the NR rows: acc += dots * (d * x.d) - min terms * (dmin * x.d),
// the oracle's order.
template <int kHalf, int NR>
[[gnu::always_inline]] inline void finish_half(const std::byte* blk, const __m256i* dots, const float* xd_of,
                                               const int32_t (*pairs)[4], __m256 (*acc)[2]) {
  __m256i mins[4];
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p) {
    mins[p] = _mm256_cvtepu8_epi16(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(blk + kPackedQ4KMinsOffset + 32 * p + 16 * kHalf)));
  }
  const __m256 dw = fp16x8(blk + 16 * kHalf);
  const __m256 dmin = fp16x8(blk + 32 + 16 * kHalf);
#pragma GCC unroll 16
  for (int r = 0; r < NR; ++r) {
    const __m256 xd = _mm256_set1_ps(xd_of[r]);
    acc[r][kHalf] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots[r]), _mm256_mul_ps(dw, xd), acc[r][kHalf]);
    acc[r][kHalf] = _mm256_fnmadd_ps(_mm256_cvtepi32_ps(min_terms(mins, pairs[r])), _mm256_mul_ps(dmin, xd),
                                     acc[r][kHalf]);
  }
}

// Half kHalf (rows 8kHalf..8kHalf+7) of a super-block against the tile's NR rows, onto
// acc[r][kHalf]; pairs[r] holds row r's activation sums per sub-block pair.
template <bool kFive, int kHalf, int NR>
[[gnu::always_inline]] inline void half_block(const std::byte* blk, const TileInputs<NR>& x,
                                              const int32_t (*pairs)[4], __m256 (*acc)[2]) {
  __m256i dots[NR];
#pragma GCC unroll 16
  for (int r = 0; r < NR; ++r) dots[r] = _mm256_setzero_si256();
  // A loop over the pairs, not unrolled: unrolled, a 6-row tile's block was 3790
  // instructions (~20 KB of code, likely past what the op cache holds) and took 1.03x (64
  // rows) to 1.1x (8 rows) the time of this loop (BM_MatmulHot q5_K 256 x 2048). The pair's
  // offsets are base pointers, so the loop keeps one activation pointer per row.
#pragma GCC unroll 1
  for (int p = 0; p < 4; ++p) {
    PairInputs<NR> in;
    in.lines = blk + kPackedQ4KCodesOffset + 512 * p;
    in.high = kFive ? blk + kPackedQ5KHighOffset + 128 * p : nullptr;  // Q4_K blocks end before it
    in.scales = blk + kPackedQ4KScalesOffset + 32 * p;
#pragma GCC unroll 16
    for (int r = 0; r < NR; ++r) in.q[r] = x.q[r] + 64 * p;
    pair_dots<kFive, kHalf>(in, dots);
  }
  finish_half<kHalf, NR>(blk, dots, x.d, pairs, acc);
}

// A Q4_K super-block against one activation row (decode): both halves and both sub-blocks of a
// pair from each code line at once, so a line's activation broadcast serves its 16 rows and its
// two 32-byte loads serve both nibbles (the tile path loads a line once per sub-block and
// broadcasts once per half). The integers are the tile path's (its runs of 8 lines per sub-block,
// line_sum and scaled_run), so the same bits.
[[gnu::always_inline]] inline void single_row_q4k(const std::byte* blk, const Q8Row& x, int64_t s, __m256 (*acc)[2]) {
  int32_t pairs[1][4];
  sub_block_sum_pairs(x.sum16 + s * 16, pairs[0]);
  const __m256i low = _mm256_set1_epi8(0x0f);
  __m256i dots[2][1] = {{_mm256_setzero_si256()}, {_mm256_setzero_si256()}};
#pragma GCC unroll 1
  for (int p = 0; p < 4; ++p) {
    PairInputs<1> in;
    in.lines = blk + kPackedQ4KCodesOffset + 512 * p;
    in.high = nullptr;  // Q4_K has no 5th bits
    in.scales = blk + kPackedQ4KScalesOffset + 32 * p;
    in.q[0] = x.q + s * kQKK + 64 * p;
    // [half][sub-block 2p + e]; zeroed only so the first line passes a defined value, which it ignores
    __m256i sums[2][2] = {};
#pragma GCC unroll 8
    for (int t = 0; t < 8; ++t) {
      const __m256i x0 = broadcast4(in.q[0] + 4 * t);
      const __m256i x1 = broadcast4(in.q[0] + 32 + 4 * t);
#pragma GCC unroll 2
      for (int h = 0; h < 2; ++h) {
        const __m256i line = half_line(in.lines + 64 * t, h);
        sums[h][0] = line_sum(sums[h][0], _mm256_and_si256(line, low), x0, t == 0);
        sums[h][1] = line_sum(sums[h][1], _mm256_and_si256(_mm256_srli_epi16(line, 4), low), x1, t == 0);
        keep_chain(sums[h][0]);
        keep_chain(sums[h][1]);
      }
    }
    const __m256i scales[2][2] = {{run_scale<0, 0>(in), run_scale<0, 1>(in)},
                                  {run_scale<1, 0>(in), run_scale<1, 1>(in)}};
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
      for (int e = 0; e < 2; ++e) {
        dots[h][0] = _mm256_add_epi32(dots[h][0], scaled_run(sums[h][e], scales[h][e]));
        keep_chain(dots[h][0]);
      }
    }
  }
  finish_half<0, 1>(blk, dots[0], &x.d[s], pairs, acc);
  finish_half<1, 1>(blk, dots[1], &x.d[s], pairs, acc);
}

template <bool kFive>
struct PackedQ4K : Avx2PackedKernel {
  static constexpr int64_t kBlockInputs = kQKK;
  static constexpr size_t kBlockBytes = kFive ? kPackedQ5KBlockBytes : kPackedQ4KBlockBytes;
  // Four super-blocks (9.5 KB for Q4_K) ahead: one block ahead left single-row decode
  // waiting on DRAM (0.47-0.55 of the read bandwidth in BM_Matmul rows:1, 5632 x 2048, on a
  // busy 2-core AMD EPYC running this table; four ahead 0.79-0.82 in the same runs). The
  // AVX-512 kernel keeps its own distance.
  static constexpr int64_t kPrefetchBytes = 4 * kBlockBytes;
  // Per tile row a sub-block's int16 (VNNI: int32) sum and the half's dots stay live, the
  // dots partly in memory past 6 rows. Measured fastest (BM_MatmulHot 256 x 2048, 64 rows):
  // Q5_K 8 (4 / 6 / 10 / 12 rows a tile took 1.10 / 1.02 / 1.02 / 1.03x the time), Q4_K 6
  // (4 took 1.03x, 8 was mixed: 0.93-1.07x), its decode being cheaper.
  static constexpr int kMaxTileRows = kFive ? 8 : 6;

  template <int NR>
  static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    if constexpr (NR == 1 && !kFive) return single_row_q4k(blk, x[0], s, acc);
    TileInputs<NR> in;
    int32_t pairs[NR][4];
#pragma GCC unroll 16
    for (int r = 0; r < NR; ++r) {
      in.q[r] = x[r].q + s * kQKK;
      in.d[r] = x[r].d[s];
      sub_block_sum_pairs(x[r].sum16 + s * 16, pairs[r]);
    }
    half_block<kFive, 0, NR>(blk, in, pairs, acc);
    half_block<kFive, 1, NR>(blk, in, pairs, acc);
  }
};

}  // namespace

void matmul_packed_q4_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ4K<false>>(a, o_begin, o_end);
}

void matmul_packed_q5_k(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedQ4K<true>>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_AVX2_PACKED_NS
