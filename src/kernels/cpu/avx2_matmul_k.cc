// AVX2 matmul for the K-quant types Q2_K to Q6_K and for IQ4_XS against Q8 activations
// with one scale per 256 inputs (make_q8_row_layout(n_in, 256)).
//
// One step is a 256-element super-block: the sub-block dot products (maddubs), times their
// integer scales (madd), are summed as exact int32 lanes; the mins (Q4_K/Q5_K) and the
// -32 offset (Q6_K) come from the activation sums per 16. Then per super-block one or
// two fused multiply-adds by d_w * d_x. Weight codes are unpacked inside the pair (from
// L1) to keep the tile within the 16 vector registers.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx2_matmul_tile.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

struct KInput {
  const int8_t* q;
  const float* d;
  const int16_t* sum16;
};

struct KX {
  const int8_t* q;  // the super-block's 256 activation codes
  float d;          // their scale
  __m256i sum16;    // their 16 code sums per 16
};

KInput k_input(const MatmulArgs& a, int r) {
  const Q8Row row = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
  return {row.q, row.d, row.sum16};
}

KX k_load_x(const KInput& in, int64_t s) { return {in.q + s * kQKK, in.d[s], load_256(in.sum16 + s * 16)}; }

// Q4_K / Q5_K scales and mins: bytes 0-7 the 8 six-bit scales, bytes 8-15 the mins,
// from the 12 packed bytes (reads 16; the 4 past them are the block's own codes). Per
// k_scale_min: sub-blocks 0-3 keep their 6 bits in bytes 0-7; sub-blocks 4-7 take their
// low 4 bits from the nibbles of bytes 8-11 and their top 2 from bits 6-7 of bytes 0-7.
__m128i unpack_k_scales(const uint8_t* packed) {
  const __m128i b = load_128(packed);
  const __m128i low_src = _mm_shuffle_epi8(b, _mm_setr_epi8(0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11));
  const __m128i low_mask = _mm_setr_epi8(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 0, 0, 0, 0);
  const __m128i high_nibble_mask = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 15, 15, 15, 15);
  const __m128i low = _mm_or_si128(_mm_and_si128(low_src, low_mask),
                                   _mm_and_si128(_mm_srli_epi16(low_src, 4), high_nibble_mask));
  const __m128i top_src = _mm_shuffle_epi8(b, _mm_setr_epi8(-1, -1, -1, -1, 0, 1, 2, 3, -1, -1, -1, -1, 4, 5, 6, 7));
  const __m128i top = _mm_and_si128(_mm_srli_epi16(top_src, 2), _mm_set1_epi8(0x30));  // bits 6-7 -> 4-5
  return _mm_or_si128(low, top);
}

// Of a super-block's 16 int8 scales (one per 16 elements), those of activation block j
// (elements 32j..32j+31) as int16: scale 2j in lanes 0-7 (the maddubs lanes of elements 0-15)
// and scale 2j+1 in lanes 8-15. Q6_K, Q3_K and Q2_K.
__m256i scale_pair16(const int8_t* scales, int j) {
  const __m128i pattern = _mm_set_epi8(2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1,
                                       2 * j + 1, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j);
  return _mm256_cvtepi8_epi16(_mm_shuffle_epi8(load_128(scales), pattern));
}

// Bit j of every byte of qh moved to bit 4 (0x10), other bits cleared.
__m256i high_bit(__m256i qh, int j) {
  const __m256i moved = j <= 4 ? _mm256_slli_epi16(qh, 4 - j) : _mm256_srli_epi16(qh, j - 4);
  return _mm256_and_si256(moved, _mm256_set1_epi8(0x10));
}

template <bool kFiveBit>
struct K4 {
  using Input = KInput;
  using X = KX;
  using Block = std::conditional_t<kFiveBit, BlockQ5_K, BlockQ4_K>;
  static constexpr int64_t kElems = kQKK;
  static constexpr int kStreamRows = 2;  // the super-block decode needs the registers
  static constexpr int64_t kStepBytes = sizeof(Block);
  struct W {
    const Block* b;
    float d, dmin;
    __m256i scales;  // the 8 scales as int16, in both 128-bit halves
    __m256i mins;    // min j in int16 lanes 2j and 2j + 1
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    W w;
    w.b = reinterpret_cast<const Block*>(row) + s;
    w.d = load_fp16(&w.b->d);
    w.dmin = load_fp16(&w.b->dmin);
    const __m128i sc_m = unpack_k_scales(w.b->scales);
    w.scales = _mm256_broadcastsi128_si256(_mm_cvtepu8_epi16(sc_m));
    w.mins = _mm256_cvtepu8_epi16(_mm_unpackhi_epi8(sc_m, sc_m));
    return w;
  }
  // Scale j in every int16 lane (one in-lane byte shuffle, which two ports can run).
  static __m256i scale(const W& w, int j) {
    return _mm256_shuffle_epi8(w.scales, _mm256_set1_epi16(static_cast<int16_t>((2 * j) | ((2 * j + 1) << 8))));
  }
  static __m256i scaled_dot(__m256i codes, const int8_t* x, __m256i scale) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(codes, load_256(x)), scale);
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    __m256i qh;
    if constexpr (kFiveBit) qh = load_256(w.b->qh);
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const __m256i packed = load_256(w.b->qs + 32 * c);
      __m256i lo = _mm256_and_si256(packed, _mm256_set1_epi8(0x0f));
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), _mm256_set1_epi8(0x0f));
      if constexpr (kFiveBit) {
        lo = _mm256_or_si256(lo, high_bit(qh, 2 * c));
        hi = _mm256_or_si256(hi, high_bit(qh, 2 * c + 1));
      }
      sum = _mm256_add_epi32(sum, scaled_dot(lo, x.q + 64 * c, scale(w, 2 * c)));
      sum = _mm256_add_epi32(sum, scaled_dot(hi, x.q + 64 * c + 32, scale(w, 2 * c + 1)));
    }
    const __m256i mins = _mm256_madd_epi16(x.sum16, w.mins);  // lane j: min_j * sum(x codes of j)
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_set1_ps(w.d * x.d), acc);
    return _mm256_fnmadd_ps(_mm256_cvtepi32_ps(mins), _mm256_set1_ps(w.dmin * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

struct Q6K {
  using Input = KInput;
  using X = KX;
  static constexpr int64_t kElems = kQKK;
  static constexpr int kStreamRows = 2;  // the super-block decode needs the registers
  static constexpr int64_t kStepBytes = sizeof(BlockQ6_K);
  struct W {
    const BlockQ6_K* b;
    float d;
    __m256i scales;  // the 16 int8 scales widened to int16
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    const BlockQ6_K* b = reinterpret_cast<const BlockQ6_K*>(row) + s;
    return {b, load_fp16(&b->d), _mm256_cvtepi8_epi16(load_128(b->scales))};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    const __m256i mask4 = _mm256_set1_epi8(0x0f), mask2 = _mm256_set1_epi8(0x30);
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
      const __m256i ql0 = load_256(w.b->ql + 64 * h);
      const __m256i ql1 = load_256(w.b->ql + 64 * h + 32);
      const __m256i qh = load_256(w.b->qh + 32 * h);
      const __m256i q[4] = {
          _mm256_or_si256(_mm256_and_si256(ql0, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 4), mask2)),
          _mm256_or_si256(_mm256_and_si256(ql1, mask4), _mm256_and_si256(_mm256_slli_epi16(qh, 2), mask2)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), mask4), _mm256_and_si256(qh, mask2)),
          _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), mask4),
                          _mm256_and_si256(_mm256_srli_epi16(qh, 2), mask2)),
      };
#pragma GCC unroll 4
      for (int g = 0; g < 4; ++g) {
        const int j = 4 * h + g;
        const __m256i dot16 = _mm256_maddubs_epi16(q[g], load_256(x.q + 32 * j));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(dot16, scale_pair16(w.b->scales, j)));
      }
    }
    // Codes are q - 32: subtract 32 * sum_k scale_k * (sum of x codes of sub-block k).
    const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(x.sum16, w.scales), 5);
    const __m256 total = _mm256_cvtepi32_ps(_mm256_sub_epi32(sum, offset));
    return _mm256_fmadd_ps(total, _mm256_set1_ps(w.d * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// Q3_K: codes u = low2 + 4 * hbit (0..7) with value u - 4, 16 signed 6-bit scales (one per
// 16 elements). As for Q6_K: per 32 activations, maddubs dot products times the two
// sub-block scales (madd), summed as int32 lanes; the -4 offset is removed with the
// activation sums per 16; one fused multiply-add by d_w * d_x per super-block.
struct Q3K {
  using Input = KInput;
  using X = KX;
  static constexpr int64_t kElems = kQKK;
  static constexpr int kStreamRows = 2;
  static constexpr int64_t kStepBytes = sizeof(BlockQ3_K);
  struct W {
    const BlockQ3_K* b;
    float d;
    int8_t scales[16];  // sc - 32
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    W w;
    w.b = reinterpret_cast<const BlockQ3_K*>(row) + s;
    w.d = load_fp16(&w.b->d);
    const uint8_t* sc = w.b->scales;
    for (int j = 0; j < 16; ++j) {
      const int low4 = j < 8 ? sc[j] & 0x0f : sc[j - 8] >> 4;
      const int high2 = (sc[8 + j % 4] >> (2 * (j / 4))) & 3;
      w.scales[j] = static_cast<int8_t>((low4 | (high2 << 4)) - 32);
    }
    return w;
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    const __m256i mask2 = _mm256_set1_epi8(3), bit = _mm256_set1_epi8(1);
    const __m256i hmask = load_256(w.b->hmask);
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const int half = j / 4, jj = j % 4;
      const __m256i low2 = _mm256_and_si256(_mm256_srli_epi16(load_256(w.b->qs + 32 * half), 2 * jj), mask2);
      const __m256i hbit = _mm256_and_si256(_mm256_srli_epi16(hmask, 4 * half + jj), bit);
      const __m256i u = _mm256_or_si256(low2, _mm256_slli_epi16(hbit, 2));
      const __m256i dot16 = _mm256_maddubs_epi16(u, load_256(x.q + 32 * j));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(dot16, scale_pair16(w.scales, j)));
    }
    // Values are u - 4: subtract 4 * sum_k scale_k * (sum of x codes of sub-block k).
    const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(x.sum16, _mm256_cvtepi8_epi16(load_128(w.scales))), 2);
    const __m256 total = _mm256_cvtepi32_ps(_mm256_sub_epi32(sum, offset));
    return _mm256_fmadd_ps(total, _mm256_set1_ps(w.d * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// Q2_K: 2-bit codes, 16 sub-blocks of 16 with 4-bit scales and mins. The scaled dot
// products are summed as in Q3_K; the mins (as for Q4_K) come from the activation sums per
// 16: then acc + sum * (d_w * d_x) - mins * (dmin_w * d_x), two fused operations.
struct Q2K {
  using Input = KInput;
  using X = KX;
  static constexpr int64_t kElems = kQKK;
  static constexpr int kStreamRows = 2;
  static constexpr int64_t kStepBytes = sizeof(BlockQ2_K);
  struct W {
    const BlockQ2_K* b;
    float d, dmin;
    int8_t scales[16];  // the 4-bit scales (the mins stay packed in b->scales)
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    W w;
    w.b = reinterpret_cast<const BlockQ2_K*>(row) + s;
    w.d = load_fp16(&w.b->d);
    w.dmin = load_fp16(&w.b->dmin);
    for (int j = 0; j < 16; ++j) w.scales[j] = static_cast<int8_t>(w.b->scales[j] & 0x0f);
    return w;
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    const __m256i mins = _mm256_srli_epi16(_mm256_cvtepu8_epi16(load_128(w.b->scales)), 4);
    const __m256i mask2 = _mm256_set1_epi8(3);
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const int half = j / 4, jj = j % 4;
      const __m256i u = _mm256_and_si256(_mm256_srli_epi16(load_256(w.b->qs + 32 * half), 2 * jj), mask2);
      const __m256i dot16 = _mm256_maddubs_epi16(u, load_256(x.q + 32 * j));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(dot16, scale_pair16(w.scales, j)));
    }
    const __m256i min_sums = _mm256_madd_epi16(x.sum16, mins);  // lane k: mins 2k, 2k+1 times their sums
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_set1_ps(w.d * x.d), acc);
    return _mm256_fnmadd_ps(_mm256_cvtepi32_ps(min_sums), _mm256_set1_ps(w.dmin * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// IQ4_XS: per sub-block j of 32, nibbles select signed levels (a byte shuffle); the exact
// dot product with the activation codes times the 6-bit scale ls_j - 32 is summed over the
// super-block in int32 lanes (lane k: elements 4k..4k+3 of each sub-block), then one fused
// multiply-add by d_w * d_x.
struct IQ4XS {
  using Input = KInput;
  using X = KX;
  static constexpr int64_t kElems = kQKK;
  static constexpr int kStreamRows = 2;
  static constexpr int64_t kStepBytes = sizeof(BlockIQ4_XS);
  struct W {
    const BlockIQ4_XS* b;
    float d;
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    const BlockIQ4_XS* b = reinterpret_cast<const BlockIQ4_XS*>(row) + s;
    return {b, load_fp16(&b->d)};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    const __m256i levels = iq4_levels();
    __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      const int ls = ((w.b->scales_l[j / 2] >> (4 * (j % 2))) & 0x0f) | (((w.b->scales_h >> (2 * j)) & 3) << 4);
      const __m256i q = _mm256_shuffle_epi8(levels, unpack_nibbles_16(w.b->qs + 16 * j));
      // sum(q * x) = sum(|q| * (x * sign(q))): unsigned x signed, as maddubs needs.
      const __m256i dot16 = _mm256_maddubs_epi16(_mm256_abs_epi8(q), _mm256_sign_epi8(load_256(x.q + 32 * j), q));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(dot16, _mm256_set1_epi16(static_cast<int16_t>(ls - 32))));
    }
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), _mm256_set1_ps(w.d * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

}  // namespace

void matmul_q2_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q2K>(args, o_begin, o_end);
}
void matmul_q3_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q3K>(args, o_begin, o_end);
}
void matmul_iq4_xs(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<IQ4XS>(args, o_begin, o_end);
}
void matmul_q4_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<K4<false>>(args, o_begin, o_end);
}
void matmul_q5_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<K4<true>>(args, o_begin, o_end);
}
void matmul_q6_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q6K>(args, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
