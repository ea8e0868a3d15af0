// AVX-512 VNNI matmul over the packed IQ4_NL and MXFP4 layouts (packed_iq4nl.h): one 512-bit
// register holds one float lane of 16 output rows, so a tile row keeps 8 accumulators (the 8
// lanes of the unpacked kernels' arithmetic). A 64-byte code line, masked and shifted, gives
// the codes of lanes c and c + 4; one byte shuffle each turns them into level + 128 (IQ4_NL:
// 1..241, MXFP4: 116..140; unsigned, as VNNI's first operand wants), and one VNNI instruction
// per lane multiplies them with the lane's 4 inputs for all 16 rows. The +128 comes back out
// in the VNNI instruction's starting value: -128 times the lane's activation sum. The two
// types share the kernel; only the levels and the conversion of the 16 rows' scales (fp16 d;
// MXFP4's bf16) differ.
//
// Each lane's int32 dot is exact (4 * 241 * 127 plus the offset) and equals the oracle's;
// the float steps are reference::matmul_packed_iq4_nl_rows' (_mxfp4_rows'), lane by lane and
// block by block, and the lanes are summed in its order at the store: the bits equal the
// oracle's (and the AVX2 kernel's, and the unpacked kernels') for any tile and batch.
#include <immintrin.h>

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as maybe-uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx512_packed_driver.h"
#include "kernels/packed_iq4nl.h"

namespace strata::kernels::cpu::avx512 {

namespace {

// The 16 levels (a 256-bit table of avx2_iq4_levels.h) plus 128 (the sign bit flipped) as
// bytes 0-15 of every 128-bit lane.
inline __m512i biased_levels(__m256i levels) {
  return _mm512_xor_si512(_mm512_broadcast_i64x4(levels), _mm512_set1_epi8(static_cast<char>(0x80)));
}

// One input row's accumulators for a group's 16 rows: lane[k] holds float lane k.
struct LaneAcc {
  __m512 lane[8];
};

// What the two layouts differ in: the levels and the 16 rows' scales.
struct PackedIQ4NLFormat {
  static __m256i levels() { return iq4_levels(); }
  static __m512 scales16(const std::byte* blk) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
  }
};

struct PackedMXFP4Format {
  static __m256i levels() { return mxfp4_levels(); }
  static __m512 scales16(const std::byte* blk) {  // bf16: the floats' top halves
    const __m512i bf16 = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(blk)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(bf16, 16));
  }
};

template <class Format>
struct PackedLevels4 {
  using Acc = LaneAcc;
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedIQ4NLBlockBytes;  // = kPackedMXFP4BlockBytes
  static constexpr int64_t kPrefetchBytes = 8 * kBlockBytes;      // a few blocks ahead
  // 8 accumulators per tile row: two rows take 16 of the 32 registers, next to the levels,
  // the mask, a line's two level vectors and the rows' scales.
  static constexpr int kMaxTileRows = 2;

  // Always inlined: packed_matmul() calls it from two places (with and without prefetches),
  // and GCC made a slightly larger step (MXFP4's, when it decoded exponent bytes here) a call,
  // keeping the accumulators in memory (BM_MatmulHot 256 x 2048, 32 rows: 1.4x the time).
  template <int NR>
  [[gnu::always_inline]] static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m512i levels = biased_levels(Format::levels());
    const __m512i mask4 = _mm512_set1_epi8(0x0f);
    const __m512 dw = Format::scales16(blk);
    // offsets[r][k]: -128 times the sum of row r's inputs 4k .. 4k + 3 of this block.
    alignas(32) int32_t offsets[NR][8];
    __m512 scale[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m256i xq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x[r].q + s * kQK));
      const __m256i sums = _mm256_dpbusd_epi32(_mm256_setzero_si256(), _mm256_set1_epi8(static_cast<char>(0x80)), xq);
      _mm256_store_si256(reinterpret_cast<__m256i*>(offsets[r]), _mm256_sub_epi32(_mm256_setzero_si256(), sums));
      scale[r] = _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s]));
    }
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const __m512i line = _mm512_loadu_si512(blk + kPackedIQ4NLCodesOffset + 64 * c);
      const __m512i lo = _mm512_shuffle_epi8(levels, _mm512_and_si512(line, mask4));
      const __m512i hi = _mm512_shuffle_epi8(levels, _mm512_and_si512(_mm512_srli_epi16(line, 4), mask4));
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQK + 4 * c;
        const __m512i dot_lo = _mm512_dpbusd_epi32(_mm512_set1_epi32(offsets[r][c]), lo, broadcast4(xq));
        const __m512i dot_hi = _mm512_dpbusd_epi32(_mm512_set1_epi32(offsets[r][c + 4]), hi, broadcast4(xq + 16));
        acc[r].lane[c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot_lo), scale[r], acc[r].lane[c]);
        acc[r].lane[c + 4] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot_hi), scale[r], acc[r].lane[c + 4]);
      }
    }
  }

  template <int NR>
  static void store(const MatmulArgs& a, int64_t g, int r0, int64_t o_begin, int64_t o_end, const Acc* acc) {
    __m512 y[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      const __m512* l = acc[r].lane;
      y[r] = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(l[0], l[4]), _mm512_add_ps(l[2], l[6])),
                           _mm512_add_ps(_mm512_add_ps(l[1], l[5]), _mm512_add_ps(l[3], l[7])));
    }
    store_group<NR>(a, g, r0, o_begin, o_end, y);
  }
};

}  // namespace

void matmul_packed_iq4_nl(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedLevels4<PackedIQ4NLFormat>>(a, o_begin, o_end);
}

void matmul_packed_mxfp4(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_matmul<PackedLevels4<PackedMXFP4Format>>(a, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx512
