// Single-input matmul (one activation row: a decode step) for the lattice i-quants.
//
// The tiled kernels of avx2_matmul_iq.cc decode a weight sub-block once and reuse it for
// every input row; with one input row there is nothing to reuse, and their per-element
// scalar index arithmetic and vector inserts cost most of a decode step. Here one
// super-block is multiplied straight into 8 int32 lanes:
//   - grid entries come from vector gathers of vector-computed indices (16 at a time into
//     512-bit registers on the AVX-512 table, 8 at a time on AVX2);
//   - the sign bits negate the activation codes instead of the weights (a masked subtract
//     from a k-register on AVX-512; shuffle + compare + xor/sub on AVX2), so the unsigned
//     grid bytes feed maddubs directly;
//   - maddubs, then madd by the sub-block's odd scale, summed over the super-block.
// Lane k ends up with sum over sub-blocks j of scale_j * (elements 4k..4k+3 of j): the same
// int32 lanes as the tiled kernels' (integer sums are exact, so their grouping is free),
// then the same single fused multiply-add by (d_w * f) * d_x and the same hsum. Results are
// bit-identical to the tiled kernels and the oracle in matmul_simd_oracle_test.cc.
// Stateless; safe from any thread.

// GCC 12 reports its own AVX-512 conversion intrinsics (their deliberately undefined
// pass-through operand) as uninitialised once inlined here.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include "kernels/cpu/avx2_matmul_iq_row.h"

#include <cstring>

#include "kernels/cpu/avx2_common.h"
#include "kernels/quant_blocks.h"
#include "tensor/block_layouts.h"
#include "tensor/iq_grids.h"

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

// The eight odd sub-block scales 2 * ls + 1 of a block whose 4-bit ls are the nibbles of
// four bytes (sub-block 2i the low nibble of byte i, 2i + 1 the high one), as int16 lanes.
[[gnu::always_inline]] inline __m128i odd_scales_from_nibbles(uint32_t packed) {
  const __m128i raw = _mm_cvtsi32_si128(static_cast<int>(packed));
  const __m128i m = _mm_set1_epi8(0x0f);
  const __m128i ls = _mm_unpacklo_epi8(_mm_and_si128(raw, m), _mm_and_si128(_mm_srli_epi16(raw, 4), m));
  const __m128i s16 = _mm_cvtepu8_epi16(ls);
  return _mm_add_epi16(_mm_add_epi16(s16, s16), _mm_set1_epi16(1));
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
using Acc = __m512i;  // int32 lanes 0-7 sum even sub-blocks, 8-15 odd ones

// The int16 scale vector of sub-blocks (2p, 2p + 1): words 0-15 scale 2p, 16-31 scale 2p + 1.
[[gnu::always_inline]] inline __m512i pair_scales(__m128i odd_scales, int p) {
  const __m512i sel = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set1_epi16(static_cast<int16_t>(2 * p))),
                                         _mm256_set1_epi16(static_cast<int16_t>(2 * p + 1)), 1);
  return _mm512_permutexvar_epi16(sel, _mm512_castsi128_si512(odd_scales));
}

// Activation codes x (64 bytes) negated where bit e of neg is set.
[[gnu::always_inline]] inline __m512i signed_codes(const int8_t* x, uint64_t neg) {
  const __m512i v = _mm512_loadu_si512(x);
  return _mm512_mask_sub_epi8(v, static_cast<__mmask64>(neg), _mm512_setzero_si512(), v);
}

[[gnu::always_inline]] inline __m256i fold(__m512i acc) {
  return _mm256_add_epi32(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
}

// AVX-512 VBMI (checked at run time; the AVX-512 table does not require it): the grid
// lookups of a whole super-block as byte permutes. A nibble table holds, per grid index, two
// of its four magnitudes (each < 16) in one byte: table A bytes 0 and 2, table B bytes 1 and
// 3. Four vpermt2b (128 entries each) plus blends on index bits 7 and 8 look up 64 indices in
// one go; byte unpacks then spread A and B into 4-byte entries. The unpacks interleave within
// 128-bit lanes, so the indices go in pre-shuffled (kEntryOrder) for the entries to come out
// in element order.
#define STRATA_VBMI __attribute__((target("avx512vbmi")))

// 512 grid indices' nibble-pair bytes, 64 per register.
struct NibbleTable {
  __m512i part[8];
};

// Position p of the index vector holds entry kEntryOrder[p] = 16m + 4L + i, where
// p = 16L + 4m + i: after the unpacks, register m holds entries 16m..16m+15 in order.
struct EntryOrder {
  alignas(64) uint8_t byte[64];
};
constexpr EntryOrder kEntryOrder = [] {
  EntryOrder o{};
  for (int p = 0; p < 64; ++p) o.byte[p] = static_cast<uint8_t>(16 * ((p % 16) / 4) + 4 * (p / 16) + p % 4);
  return o;
}();

// From 4-byte grid entries (magnitudes < 16): A = byte 0 | byte 2 << 4, B = byte 1 | byte 3 << 4.
STRATA_VBMI inline void build_nibble_tables(const uint32_t* grid, NibbleTable& a, NibbleTable& b) {
  const __m512i lo = _mm512_set1_epi32(0x0f);
  const __m512i hi = _mm512_set1_epi32(0xf0);
  for (int t = 0; t < 8; ++t) {
    __m128i pa[4], pb[4];
    for (int q = 0; q < 4; ++q) {
      const __m512i u = _mm512_loadu_si512(grid + 64 * t + 16 * q);
      pa[q] = _mm512_cvtepi32_epi8(_mm512_or_si512(_mm512_and_si512(u, lo), _mm512_and_si512(_mm512_srli_epi32(u, 12), hi)));
      pb[q] = _mm512_cvtepi32_epi8(
          _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi32(u, 8), lo), _mm512_and_si512(_mm512_srli_epi32(u, 20), hi)));
    }
    a.part[t] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(pa[1], pa[0])), _mm256_set_m128i(pa[3], pa[2]), 1);
    b.part[t] = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(pb[1], pb[0])), _mm256_set_m128i(pb[3], pb[2]), 1);
  }
}

// Table bytes of 64 9-bit indices: low 7 bits in index, bit 7 in bit7, bit 8 in bit8.
[[gnu::always_inline]] STRATA_VBMI inline __m512i lookup_512(const NibbleTable& t, __m512i index, __mmask64 bit7,
                                                            __mmask64 bit8) {
  const __m512i t0 = _mm512_permutex2var_epi8(t.part[0], index, t.part[1]);
  const __m512i t1 = _mm512_permutex2var_epi8(t.part[2], index, t.part[3]);
  const __m512i t2 = _mm512_permutex2var_epi8(t.part[4], index, t.part[5]);
  const __m512i t3 = _mm512_permutex2var_epi8(t.part[6], index, t.part[7]);
  return _mm512_mask_blend_epi8(bit8, _mm512_mask_blend_epi8(bit7, t0, t1), _mm512_mask_blend_epi8(bit7, t2, t3));
}

// The 64 grid entries of a super-block (4 bytes each, in element order) from the nibble
// tables' bytes a and b of entries in kEntryOrder.
[[gnu::always_inline]] STRATA_VBMI inline void spread_entries(__m512i a, __m512i b, __m512i (&entries)[4]) {
  const __m512i m = _mm512_set1_epi16(0x0f0f);
  const __m512i ab_lo = _mm512_unpacklo_epi8(a, b);  // words byte0 | byte2 << 4 | byte1 << 8 | byte3 << 12
  const __m512i ab_hi = _mm512_unpackhi_epi8(a, b);
  const __m512i l_lo = _mm512_and_si512(ab_lo, m), h_lo = _mm512_and_si512(_mm512_srli_epi16(ab_lo, 4), m);
  const __m512i l_hi = _mm512_and_si512(ab_hi, m), h_hi = _mm512_and_si512(_mm512_srli_epi16(ab_hi, 4), m);
  entries[0] = _mm512_unpacklo_epi16(l_lo, h_lo);
  entries[1] = _mm512_unpackhi_epi16(l_lo, h_lo);
  entries[2] = _mm512_unpacklo_epi16(l_hi, h_hi);
  entries[3] = _mm512_unpackhi_epi16(l_hi, h_hi);
}

struct IQ3SVbmi {
  using Block = BlockIQ3_S;
  static constexpr int kFactorInverse = 1;
  NibbleTable a, b;
  STRATA_VBMI IQ3SVbmi() { build_nibble_tables(iq::kIq3sGrid, a, b); }
  [[gnu::always_inline]] STRATA_VBMI __m256i sum(const Block& blk, const int8_t* x) const {
    const __m512i order = _mm512_load_si512(kEntryOrder.byte);
    const __m512i index = _mm512_permutexvar_epi8(order, _mm512_loadu_si512(blk.qs));
    const __m512i high = _mm512_permutexvar_epi8(order, _mm512_movm_epi8(load_as<uint64_t>(blk.qh)));
    const __mmask64 bit7 = _mm512_movepi8_mask(index);
    const __mmask64 bit8 = _mm512_movepi8_mask(high);
    __m512i entries[4];
    spread_entries(lookup_512(a, index, bit7, bit8), lookup_512(b, index, bit7, bit8), entries);
    const __m128i scales = odd_scales_from_nibbles(load_as<uint32_t>(blk.scales));
    Acc acc = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int p = 0; p < 4; ++p) {
      const __m512i xs = signed_codes(x + 64 * p, load_as<uint64_t>(blk.signs + 8 * p));
      acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_maddubs_epi16(entries[p], xs), pair_scales(scales, p)));
    }
    return fold(acc);
  }
};

#else

// Activation codes x (32 bytes) negated where bit e of neg is set.
[[gnu::always_inline]] inline __m256i signed_codes(const int8_t* x, uint32_t neg) {
  const __m256i bytes = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(neg)),
      _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ull));
  const __m256i m = _mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit);
  return _mm256_sub_epi8(_mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x)), m), m);
}

// Sub-block j's int16 scale in every word, from the 8 scales of odd_scales_from_nibbles.
[[gnu::always_inline]] inline __m256i sub_block_scale(__m128i odd_scales, int j) {
  const __m128i pick = _mm_set1_epi16(static_cast<int16_t>((2 * j) | ((2 * j + 1) << 8)));
  const __m128i s = _mm_shuffle_epi8(odd_scales, pick);
  return _mm256_set_m128i(s, s);
}

struct IQ3S {
  using Block = BlockIQ3_S;
  static constexpr int kFactorInverse = 1;
  [[gnu::always_inline]] static __m256i sum(const Block& b, const int8_t* x) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m128i scales = odd_scales_from_nibbles(load_as<uint32_t>(b.scales));
    __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const int high = b.qh[j] << 8;  // index l takes bit l of qh[j] as its 9th bit
      const __m256i hi = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(high), lane), _mm256_set1_epi32(256));
      const __m256i index = _mm256_or_si256(_mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b.qs + 8 * j))), hi);
      const __m256i grid = _mm256_i32gather_epi32(reinterpret_cast<const int*>(iq::kIq3sGrid), index, 4);
      const __m256i xs = signed_codes(x + 32 * j, load_as<uint32_t>(b.signs + 4 * j));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(grid, xs), sub_block_scale(scales, j)));
    }
    return acc;
  }
};

#endif

// Asks for the cache lines of the super-block kRowPrefetchBytes past blk.
template <class Block>
[[gnu::always_inline]] inline void prefetch_ahead(const Block* blk) {
  const char* ahead = reinterpret_cast<const char*>(blk) + kRowPrefetchBytes;
  for (size_t off = 0; off < sizeof(Block); off += 64) _mm_prefetch(ahead + off, _MM_HINT_T0);
}

// acc + the super-block's int32 lanes times (d_w * f) * d_x: the tiled kernels' float step.
template <class K>
[[gnu::always_inline]] inline __m256 scale_add(__m256 acc, __m256i sum, const typename K::Block& blk, float d_x) {
  const float d_w = load_fp16(&blk.d) * (1.0f / K::kFactorInverse);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_set1_ps(d_w * d_x), acc);
}

// Weight row o of a as super-blocks.
template <class Block>
[[gnu::always_inline]] inline const Block* weight_row(const MatmulArgs& a, int64_t o) {
  return reinterpret_cast<const Block*>(static_cast<const std::byte*>(a.w->data) + o * a.w->row_bytes);
}

// Weight rows [o_begin, o_end) against the single input row of a; k decodes super-blocks.
// (The VBMI kernels repeat this loop under their target attribute: GCC inlines a VBMI
// function only into another.)
template <class K>
void matmul_single_row(const K& k, const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const Q8Row in = q8_row(a.xq, a.xq_layout);
  const int64_t n_steps = a.w->n_in / kQKK;
  for (int64_t o = o_begin; o < o_end; ++o) {
    const auto* row = weight_row<typename K::Block>(a, o);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t s = 0; s < n_steps; ++s) {
      prefetch_ahead(row + s);
      acc = scale_add<K>(acc, k.sum(row[s], in.q + s * kQKK), row[s], in.d[s]);
    }
    a.y[o] = hsum(acc);
  }
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
template <class K>
STRATA_VBMI void matmul_single_row_vbmi(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const K k;
  const Q8Row in = q8_row(a.xq, a.xq_layout);
  const int64_t n_steps = a.w->n_in / kQKK;
  for (int64_t o = o_begin; o < o_end; ++o) {
    const auto* row = weight_row<typename K::Block>(a, o);
    __m256 acc = _mm256_setzero_ps();
    for (int64_t s = 0; s < n_steps; ++s) {
      prefetch_ahead(row + s);
      acc = scale_add<K>(acc, k.sum(row[s], in.q + s * kQKK), row[s], in.d[s]);
    }
    a.y[o] = hsum(acc);
  }
}
#endif

}  // namespace

bool matmul_iq3_s_single_row(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
#if defined(__AVX512F__) && defined(__AVX512BW__)
  if (!__builtin_cpu_supports("avx512vbmi")) return false;
  matmul_single_row_vbmi<IQ3SVbmi>(args, o_begin, o_end);
#else
  matmul_single_row(IQ3S(), args, o_begin, o_end);
#endif
  return true;
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
