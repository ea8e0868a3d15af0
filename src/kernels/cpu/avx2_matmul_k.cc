// AVX2 matmul for the K-quant types Q4_K, Q5_K, Q6_K against Q8 activations with one
// scale per 256 inputs (make_q8_row_layout(n_in, 256)).
//
// One step is a 256-element super-block: the sub-block dot products (maddubs), times their
// integer scales (madd), are summed as exact int32 lanes; the mins (Q4_K/Q5_K) and the
// -32 offset (Q6_K) come from the activation sums per 16. Then per super-block one or
// two fused multiply-adds by d_w * d_x. Weight codes are unpacked inside the pair (from
// L1) to keep the tile within the 16 vector registers.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_matmul_tile.h"

namespace strata::kernels::cpu::avx2 {

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

// Q4_K / Q5_K scales: 8 six-bit scales (bytes 0-7 of *sc) and mins (*m), from the 12
// packed bytes (see k_scale_min for the per-element definition).
__attribute__((always_inline)) inline void unpack_k_scales(const uint8_t* packed, uint64_t* sc, uint64_t* m) {
  uint32_t w[3];
  std::memcpy(w, packed, sizeof w);
  constexpr uint32_t k6 = 0x3f3f3f3f, k4 = 0x0f0f0f0f, k2 = 0x03030303;
  const uint32_t sc_lo = w[0] & k6, m_lo = w[1] & k6;
  const uint32_t sc_hi = (w[2] & k4) | (((w[0] >> 6) & k2) << 4);
  const uint32_t m_hi = ((w[2] >> 4) & k4) | (((w[1] >> 6) & k2) << 4);
  *sc = sc_lo | (static_cast<uint64_t>(sc_hi) << 32);
  *m = m_lo | (static_cast<uint64_t>(m_hi) << 32);
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
  struct W {
    const Block* b;
    float d, dmin;
    uint32_t scale_pairs[8];  // scale j in both int16 halves, for madd
    __m256i mins;             // min j in int16 lanes 2j and 2j + 1
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    W w;
    w.b = reinterpret_cast<const Block*>(row) + s;
    w.d = load_fp16(&w.b->d);
    w.dmin = load_fp16(&w.b->dmin);
    uint64_t sc, m;
    unpack_k_scales(w.b->scales, &sc, &m);
    const __m256i sc32 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(sc)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(w.scale_pairs), _mm256_or_si256(sc32, _mm256_slli_epi32(sc32, 16)));
    const __m128i m8 = _mm_cvtsi64_si128(static_cast<int64_t>(m));
    w.mins = _mm256_cvtepu8_epi16(_mm_unpacklo_epi8(m8, m8));
    return w;
  }
  static __m256i scaled_dot(__m256i codes, const int8_t* x, uint32_t scale_pair) {
    const __m256i dot16 = _mm256_maddubs_epi16(codes, load_256(x));
    return _mm256_madd_epi16(dot16, _mm256_set1_epi32(static_cast<int>(scale_pair)));
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
      sum = _mm256_add_epi32(sum, scaled_dot(lo, x.q + 64 * c, w.scale_pairs[2 * c]));
      sum = _mm256_add_epi32(sum, scaled_dot(hi, x.q + 64 * c + 32, w.scale_pairs[2 * c + 1]));
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
  // For activation block j (elements 32j..32j+31): scale 2j in int16 lanes 0-7 (the
  // maddubs lanes of elements 0-15) and scale 2j+1 in lanes 8-15.
  static __m256i scale_pair(const W& w, int j) {
    const __m128i pattern = _mm_set_epi8(2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1,
                                         2 * j + 1, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j);
    return _mm256_cvtepi8_epi16(_mm_shuffle_epi8(load_128(w.b->scales), pattern));
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
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(dot16, scale_pair(w, j)));
      }
    }
    // Codes are q - 32: subtract 32 * sum_k scale_k * (sum of x codes of sub-block k).
    const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(x.sum16, w.scales), 5);
    const __m256 total = _mm256_cvtepi32_ps(_mm256_sub_epi32(sum, offset));
    return _mm256_fmadd_ps(total, _mm256_set1_ps(w.d * x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

}  // namespace

void matmul_q4_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<K4<false>>(args, o_begin, o_end);
}
void matmul_q5_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<K4<true>>(args, o_begin, o_end);
}
void matmul_q6_k(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q6K>(args, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::avx2
