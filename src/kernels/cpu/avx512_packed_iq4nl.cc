// AVX-512 VNNI matmul over the packed IQ4_NL and MXFP4 layouts (packed_iq4nl.h): one 512-bit
// register holds 16 output rows. A 64-byte code line, masked and shifted, gives the codes of
// inputs 4c .. 4c + 3 and 16 + 4c .. 16 + 4c + 3; one byte shuffle each turns them into level
// + 128 (IQ4_NL: 1..241, MXFP4: 116..140; unsigned, as VNNI's first operand wants), and one VNNI
// instruction each multiplies them with the 4 inputs for all 16 rows and adds them to the
// row's int32 dot. The +128 comes back out in the dot's starting value: -128 times the block's
// activation sum. The two types share the kernel; only the levels and the conversion of the
// 16 rows' scales (fp16 d; MXFP4's bf16) differ.
//
// The block's int32 dot is exact (32 * 241 * 127 plus the offset) and equals the oracle's; the
// float step is reference::matmul_packed_iq4_nl_rows' (_mxfp4_rows'), block by block: the bits
// equal the oracle's (and the AVX2 kernels') for any tile and batch.
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
struct PackedLevels4 : Avx512PackedKernel {
  static constexpr int64_t kBlockInputs = kQK;
  static constexpr size_t kBlockBytes = kPackedIQ4NLBlockBytes;  // = kPackedMXFP4BlockBytes
  static constexpr int64_t kPrefetchBytes = 8 * kBlockBytes;      // a few blocks ahead
  static constexpr int kMaxTileRows = 8;                          // 8 of the 32 registers for dots

  // Always inlined: packed_matmul() calls it from two places (with and without prefetches),
  // and GCC made a slightly larger step a call, keeping the accumulators in memory.
  template <int NR>
  [[gnu::always_inline]] static void block(const std::byte* blk, const Q8Row* x, int64_t s, Acc* acc) {
    const __m512i levels = biased_levels(Format::levels());
    const __m512i mask4 = _mm512_set1_epi8(0x0f);
    __m512i dot[NR];
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) dot[r] = _mm512_set1_epi32(-128 * (x[r].sum16[2 * s] + x[r].sum16[2 * s + 1]));
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const __m512i line = _mm512_loadu_si512(blk + kPackedIQ4NLCodesOffset + 64 * c);
      const __m512i lo = _mm512_shuffle_epi8(levels, _mm512_and_si512(line, mask4));
      const __m512i hi = _mm512_shuffle_epi8(levels, _mm512_and_si512(_mm512_srli_epi16(line, 4), mask4));
#pragma GCC unroll 8
      for (int r = 0; r < NR; ++r) {
        const int8_t* xq = x[r].q + s * kQK + 4 * c;
        dot[r] = _mm512_dpbusd_epi32(dot[r], lo, broadcast4(xq));
        dot[r] = _mm512_dpbusd_epi32(dot[r], hi, broadcast4(xq + 16));
      }
    }
    const __m512 dw = Format::scales16(blk);
#pragma GCC unroll 8
    for (int r = 0; r < NR; ++r) {
      acc[r] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot[r]), _mm512_mul_ps(dw, _mm512_set1_ps(x[r].d[s])), acc[r]);
    }
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
