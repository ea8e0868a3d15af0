// AVX2 matmul for the K-quant types Q4_K, Q5_K, Q6_K against Q8 activations.
//
// One step is a 256-element super-block. For each 32-element activation block j (one
// Q4_K/Q5_K sub-block, or two Q6_K 16-element sub-blocks) the pair computes an exact
// int32 dot product in 8 lanes and adds it with acc = fma(float(lanes), s_j, acc), where
// s_j is the weight scale times the activation scale. The mins (Q4_K/Q5_K) and the -32
// offset (Q6_K) are then removed with one more fused multiply-add per super-block, from
// the activation block sums. Weight codes are unpacked inside the pair (from L1) to keep
// the tile within the 16 vector registers.
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
  __m256 d;         // its 8 activation block scales
  __m256i sum16;    // its 16 half-block code sums
};

KInput k_input(const MatmulArgs& a, int r) {
  const Q8Row row = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
  return {row.q, row.d, row.sum16};
}

KX k_load_x(const KInput& in, int64_t s) {
  return {in.q + s * kQKK, _mm256_loadu_ps(in.d + s * 8), load_256(in.sum16 + s * 16)};
}

// Lane j of v in every lane.
__m256 lane(__m256 v, int j) { return _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(j)); }

// Q4_K / Q5_K scales: 8 six-bit scales (bytes 0-7 of *sc) and mins (*m), from the 12
// packed bytes (see k_scale_min for the per-element definition).
void unpack_k_scales(const uint8_t* packed, uint64_t* sc, uint64_t* m) {
  uint32_t w[3];
  std::memcpy(w, packed, sizeof w);
  constexpr uint32_t k6 = 0x3f3f3f3f, k4 = 0x0f0f0f0f, k2 = 0x03030303;
  const uint32_t sc_lo = w[0] & k6, m_lo = w[1] & k6;
  const uint32_t sc_hi = (w[2] & k4) | (((w[0] >> 6) & k2) << 4);
  const uint32_t m_hi = ((w[2] >> 4) & k4) | (((w[1] >> 6) & k2) << 4);
  *sc = sc_lo | (static_cast<uint64_t>(sc_hi) << 32);
  *m = m_lo | (static_cast<uint64_t>(m_hi) << 32);
}

__m256 bytes_to_floats(uint64_t bytes) {
  return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<int64_t>(bytes))));
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
  struct W {
    const Block* b;
    __m256 dsc;   // d * scale_j
    __m256 dmin;  // dmin * min_j
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    const Block* b = reinterpret_cast<const Block*>(row) + s;
    uint64_t sc, m;
    unpack_k_scales(b->scales, &sc, &m);
    return {b, _mm256_mul_ps(_mm256_set1_ps(load_fp16(&b->d)), bytes_to_floats(sc)),
            _mm256_mul_ps(_mm256_set1_ps(load_fp16(&b->dmin)), bytes_to_floats(m))};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    const __m256 s = _mm256_mul_ps(w.dsc, x.d);
    __m256i qh;
    if constexpr (kFiveBit) qh = load_256(w.b->qh);
#pragma GCC unroll 4
    for (int c = 0; c < 4; ++c) {
      const __m256i packed = load_256(w.b->qs + 32 * c);
      __m256i lo = _mm256_and_si256(packed, _mm256_set1_epi8(0x0f));
      __m256i hi = _mm256_and_si256(_mm256_srli_epi16(packed, 4), _mm256_set1_epi8(0x0f));
      if constexpr (kFiveBit) {
        lo = _mm256_or_si256(lo, high_bit(qh, 2 * c));
        hi = _mm256_or_si256(hi, high_bit(qh, 2 * c + 1));
      }
      const __m256i dot_lo = dot_u8_s8(lo, load_256(x.q + 64 * c));
      acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_lo), lane(s, 2 * c), acc);
      const __m256i dot_hi = dot_u8_s8(hi, load_256(x.q + 64 * c + 32));
      acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_hi), lane(s, 2 * c + 1), acc);
    }
    // - sum_j dmin * m_j * d_x_j * sum(x codes of block j)
    const __m256 xsum = _mm256_cvtepi32_ps(_mm256_madd_epi16(x.sum16, _mm256_set1_epi16(1)));
    return _mm256_fnmadd_ps(_mm256_mul_ps(w.dmin, x.d), xsum, acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

struct Q6K {
  using Input = KInput;
  using X = KX;
  static constexpr int64_t kElems = kQKK;
  struct W {
    const BlockQ6_K* b;
    __m256 d;
    __m256i sc16;  // the 16 int8 scales widened to int16
  };
  static Input input(const MatmulArgs& a, int r) { return k_input(a, r); }
  static X load_x(const Input& in, int64_t s) { return k_load_x(in, s); }
  static W load_w(const std::byte* row, int64_t s) {
    const BlockQ6_K* b = reinterpret_cast<const BlockQ6_K*>(row) + s;
    return {b, _mm256_set1_ps(load_fp16(&b->d)), _mm256_cvtepi8_epi16(load_128(b->scales))};
  }
  // Activation block j (elements 32j..32j+31) pairs with scales 2j (lanes 0-3 of the
  // madd result: elements 0-15) and 2j+1 (lanes 4-7).
  static __m256i scale_pair(const W& w, int j) {
    const __m128i sc8 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w.b->scales));
    const __m128i pattern = _mm_set_epi8(2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1, 2 * j + 1,
                                         2 * j + 1, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j, 2 * j);
    return _mm256_cvtepi8_epi16(_mm_shuffle_epi8(sc8, pattern));
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    const __m256 s = _mm256_mul_ps(w.d, x.d);
    const __m256i mask4 = _mm256_set1_epi8(0x0f), mask2 = _mm256_set1_epi8(0x30);
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
        const __m256i dot = _mm256_madd_epi16(dot16, scale_pair(w, j));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), lane(s, j), acc);
      }
    }
    // - sum_j d * d_x_j * 32 * (sc_2j * sum_2j + sc_2j+1 * sum_2j+1)
    const __m256i offset = _mm256_slli_epi32(_mm256_madd_epi16(x.sum16, w.sc16), 5);
    return _mm256_fnmadd_ps(s, _mm256_cvtepi32_ps(offset), acc);
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
