// AVX2 matmul for the lattice i-quants IQ3_S, IQ3_XXS, IQ2_XXS, IQ2_XS, IQ2_S, IQ1_S and
// IQ1_M against Q8 activations with one scale per 256 inputs (make_q8_row_layout(n_in, 256)).
//
// One step is a 256-element super-block of 8 sub-blocks of 32. Decoding a sub-block (once
// per weight row and step, reused for every input row of the tile): the grid entries
// (unsigned magnitudes, looked up per group of 4 or 8 elements) form 32 bytes, negated where
// the sign bits say; IQ1_S / IQ1_M weights are 8 * grid (-1, 0, 1) plus the group's shift
// sign (+-1: the format's +-1/8, times 8). Per input row, maddubs of |w| with the codes carrying w's sign, then
// madd by the sub-block's odd integer scale (2 * ls + 1; IQ2_XS, IQ2_S, IQ1_M have one per 16) give exact
// int32 lanes (lane k: elements 4k..4k+3 of each sub-block), summed over the super-block;
// then one fused multiply-add by (d_w * f) * d_x, where f is the power of two the format
// scales by (IQ3_S 1, IQ3_XXS 1/4, IQ2_* and IQ1_* 1/8). The oracle in matmul_simd_oracle_test.cc
// computes the same integers and float operations. From a few input rows (kStripMinRows,
// kLatticeStripMinRows) the strip kernels (avx2_iq_strips.h) take over: the same integers
// and float step, each weight row decoded once per block of input rows instead of once per
// tile.
#include <algorithm>
#include <cstring>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_matmul_iq_row.h"
#include "kernels/cpu/avx2_iq_lattice.h"
#include "kernels/cpu/avx2_iq_strips.h"
#include "kernels/cpu/avx2_matmul_tile.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

// On the AVX-512 table of a CPU with VBMI the single-row kernels (byte-permute grid lookups)
// beat the tiled ones even for several input rows: quiet 2-thread runs on an AMD EPYC Zen 5 of
// llama-quantize's 1.1B IQ2_XS file gave 45.0 tok/s decoding one sequence but 38.8 for 8 and
// 41.1 for a 512-token prompt through the tiles. Each row's bits are the tiled kernel's
// (MatmulIqSingleRow tests), so rows may go one at a time; the outputs are walked in chunks
// small enough (64 rows, tens of KiB of weights) to stay in L2 across the input rows.
bool rows_one_at_a_time_pays() {
#if defined(STRATA_KERNELS_AVX512)
  return __builtin_cpu_supports("avx512vbmi");
#else
  return false;
#endif
}

void rows_one_at_a_time(const MatmulArgs& args, int64_t o_begin, int64_t o_end,
                        void (*single_row)(const MatmulArgs&, int64_t, int64_t)) {
  constexpr int64_t kChunkOutputs = 64;
  for (int64_t o = o_begin; o < o_end; o += kChunkOutputs) {
    const int64_t chunk_end = std::min(o + kChunkOutputs, o_end);
    for (int r = 0; r < args.n_rows; ++r) {
      MatmulArgs one = args;
      one.n_rows = 1;
      one.x = args.x != nullptr ? args.x + static_cast<int64_t>(r) * args.w->n_in : nullptr;
      one.xq = args.xq + static_cast<size_t>(r) * args.xq_layout.row_bytes;
      one.y = args.y + static_cast<int64_t>(r) * args.w->n_out;
      single_row(one, o, chunk_end);
    }
  }
}

// Input rows from which a decoded strip (avx2_iq_strips.h) beats decoding per tile (one
// thread, 256 x 2048 in cache, AVX2 table, 4 rows: strips 1.08x (IQ2_S) to 1.26x (IQ2_XS)
// the tiles' speed, IQ3_S 1.24x). Since the tiles and strips of IQ3_XXS and the IQ2 types
// decode a super-block's signs and scales at once (avx2_iq_xxs_decode.h, avx2_iq2_decode.h),
// strips pay on AVX2 from 2 rows too: 1.03-1.05x (IQ3_XXS, IQ3_S) to 1.13x (IQ2_S) the
// tiles' speed, IQ1_S 1.03x (kept at 4 with IQ1_M, whose tiles were not measured). The
// AVX-512 build keeps 4 for CPUs without VBMI (not measured there). With VBMI, strips
// filled by its decoders beat the VBMI single-row kernels row by row from 2 rows (one
// thread, 256 x 2048 in cache, GMAC/s: 2 rows 25-32 -> 41-42, 4 rows 23-31 -> 55-65;
// 5632 x 2048 streamed on 2 threads, 2 rows: 1.02 -> 0.70-0.87 ms).
constexpr int kStripMinRows = 4;
#if defined(STRATA_KERNELS_AVX512)
constexpr int kLatticeStripMinRows = 4;
#else
constexpr int kLatticeStripMinRows = 2;
#endif
constexpr int kVbmiStripMinRows = 2;

// IQ1_S / IQ1_M take strips from kStripMinRows rows; the other lattice types from
// kLatticeStripMinRows.
bool strips_pay(const MatmulArgs& args, int min_rows = kStripMinRows) {
  return args.n_rows >= min_rows && strips_fit(*args.w);
}

using RowsFn = void (*)(const MatmulArgs&, int64_t, int64_t);

// The strip kernels whose strips the VBMI decoders fill (avx512_matmul_iq_vbmi.cc: byte
// permutes instead of per-group loads, same bytes), for CPUs with VBMI; none on AVX2.
struct VbmiStrips {
  RowsFn iq3_s = nullptr, iq3_xxs = nullptr, iq2_xxs = nullptr, iq2_xs = nullptr, iq2_s = nullptr;
};
#if defined(STRATA_KERNELS_AVX512)
constexpr VbmiStrips kVbmiStrips{matmul_iq3_s_vbmi_strips, matmul_iq3_xxs_vbmi_strips, matmul_iq2_xxs_vbmi_strips,
                                 matmul_iq2_xs_vbmi_strips, matmul_iq2_s_vbmi_strips};
#else
constexpr VbmiStrips kVbmiStrips{};
#endif

// The single-row kernel for one input row (or any count where that pays), strips for many
// rows (filled by the VBMI decoders where the CPU has them), else tiles.
template <class K>
void matmul_lattice(const MatmulArgs& args, int64_t o_begin, int64_t o_end, RowsFn single_row, RowsFn vbmi_strips) {
  if (args.n_rows == 1) return single_row(args, o_begin, o_end);
  if (vbmi_strips != nullptr && rows_one_at_a_time_pays()) {
    if (args.n_rows >= kVbmiStripMinRows && strips_fit(*args.w)) return vbmi_strips(args, o_begin, o_end);
  } else if (strips_pay(args, kLatticeStripMinRows)) {
    return matmul_rows_strips<K>(args, o_begin, o_end);
  }
  if (rows_one_at_a_time_pays()) return rows_one_at_a_time(args, o_begin, o_end, single_row);
  matmul_rows_tiled<K>(args, o_begin, o_end);
}

}  // namespace

void matmul_iq2_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ2S>(args, o_begin, o_end, matmul_iq2_s_single_row, kVbmiStrips.iq2_s);
}
// IQ1_S / IQ1_M have no VBMI kernel, so several input rows take strips or the tiles on both
// tables, except two IQ1_M rows: its tiles decode a sub-block element by element, which two
// rows do not pay back (one thread, 5632 x 2048, ns per row and super-block: 13.8 one at a
// time vs 17.5-19.5 tiled; three rows break even, IQ1_S's tiles already win at two).
void matmul_iq1_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (args.n_rows == 1) return matmul_iq1_s_single_row(args, o_begin, o_end);
  if (strips_pay(args)) return matmul_rows_strips<IQ1S>(args, o_begin, o_end);
  matmul_rows_tiled<IQ1S>(args, o_begin, o_end);
}
void matmul_iq1_m(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  if (args.n_rows == 1) return matmul_iq1_m_single_row(args, o_begin, o_end);
  if (args.n_rows == 2) return rows_one_at_a_time(args, o_begin, o_end, matmul_iq1_m_single_row);
  if (strips_pay(args)) return matmul_rows_strips<IQ1M>(args, o_begin, o_end);
  matmul_rows_tiled<IQ1M>(args, o_begin, o_end);
}
void matmul_iq3_s(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ3S>(args, o_begin, o_end, matmul_iq3_s_single_row, kVbmiStrips.iq3_s);
}
void matmul_iq3_xxs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ3XXS>(args, o_begin, o_end, matmul_iq3_xxs_single_row, kVbmiStrips.iq3_xxs);
}
void matmul_iq2_xxs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ2XXS>(args, o_begin, o_end, matmul_iq2_xxs_single_row, kVbmiStrips.iq2_xxs);
}
void matmul_iq2_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_lattice<IQ2XS>(args, o_begin, o_end, matmul_iq2_xs_single_row, kVbmiStrips.iq2_xs);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
