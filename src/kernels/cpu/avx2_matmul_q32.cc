// AVX2 matmul for the 32-element block types Q8_0, Q4_0, Q5_0, Q4_1, Q5_1, IQ4_NL, MXFP4
// against Q8 activations.
//
// Per (weight block, input block) pair: an exact int32 dot product in 8 lanes (maddubs +
// madd), then acc = fma(float(lanes), d_w * d_x, acc). Offsets (Q4_0 codes are q - 8,
// Q5_0 codes q - 16) are removed in the integer domain with the activation block sum,
// so they cost no float operation and change no rounding.
#include <type_traits>

#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_iq4_levels.h"
#include "kernels/cpu/avx2_matmul_tile.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

struct Q8Input {
  const int8_t* q;
  const float* d;
  const int16_t* sum16;
};

Q8Input q8_input(const MatmulArgs& a, int r) {
  const Q8Row row = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
  return {row.q, row.d, row.sum16};
}

struct XBlock {
  __m256i q;
  __m256 d;
};

XBlock q8_load_x(const Q8Input& in, int64_t s) {
  return {load_256(in.q + s * kQK), _mm256_broadcast_ss(in.d + s)};
}

// Minus activation block s's code sum times `offset`, in lane 0 of an otherwise zero
// vector: the starting value of the block's integer dot product.
__m256i offset_correction(const Q8Input& in, int64_t s, int offset) {
  const int sum = in.sum16[2 * s] + in.sum16[2 * s + 1];
  return _mm256_castsi128_si256(_mm_cvtsi32_si128(-sum * offset));
}

struct Q8_0 {
  using Input = Q8Input;
  using X = XBlock;
  static constexpr int64_t kElems = kQK;
  static constexpr int kStreamRows = 4;
  static constexpr int64_t kStepBytes = sizeof(BlockQ8_0);
  struct W {
    __m256i abs_q;
    __m256i q;
    __m256 d;
  };
  static Input input(const MatmulArgs& a, int r) { return q8_input(a, r); }
  static W load_w(const std::byte* row, int64_t s) {
    const std::byte* b = row + s * sizeof(BlockQ8_0);
    const __m256i q = load_256(b + offsetof(BlockQ8_0, qs));
    return {_mm256_abs_epi8(q), q, _mm256_set1_ps(load_fp16(b))};
  }
  static X load_x(const Input& in, int64_t s) { return q8_load_x(in, s); }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    // sum(w * x) = sum(|w| * (x * sign(w))): unsigned x signed, as maddubs needs.
    const __m256i dot = dot_u8_s8(w.abs_q, _mm256_sign_epi8(x.q, w.q));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(w.d, x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// Q4_0 and Q5_0: unsigned codes u with value (u - kOffset) * d.
template <int kOffset>
struct OffsetX {
  __m256i q;
  __m256 d;
  __m256i correction;  // see offset_correction()
};

template <int kOffset>
static inline __m256 offset_pair(__m256i u, __m256 dw, const OffsetX<kOffset>& x, __m256 acc) {
  const __m256i dot = dot_u8_s8_add(x.correction, u, x.q);
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(dw, x.d), acc);
}

struct Q4_0 {
  using Input = Q8Input;
  using X = OffsetX<8>;
  static constexpr int64_t kElems = kQK;
  static constexpr int kStreamRows = 4;
  static constexpr int64_t kStepBytes = sizeof(BlockQ4_0);
  struct W {
    __m256i u;
    __m256 d;
  };
  static Input input(const MatmulArgs& a, int r) { return q8_input(a, r); }
  static W load_w(const std::byte* row, int64_t s) {
    const std::byte* b = row + s * sizeof(BlockQ4_0);
    return {unpack_nibbles_16(b + offsetof(BlockQ4_0, qs)), _mm256_set1_ps(load_fp16(b))};
  }
  static X load_x(const Input& in, int64_t s) {
    const XBlock xb = q8_load_x(in, s);
    return {xb.q, xb.d, offset_correction(in, s, 8)};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) { return offset_pair(w.u, w.d, x, acc); }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// Byte i of the result is 0x10 where bit i of the 32-bit mask is set.
__m256i bits_to_0x10_bytes(uint32_t bits) {
  const __m256i spread = _mm256_shuffle_epi8(
      _mm256_set1_epi32(static_cast<int>(bits)),
      _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202, 0x0101010101010101, 0x0000000000000000));
  const __m256i bit = _mm256_set1_epi64x(static_cast<int64_t>(0x8040201008040201ULL));
  const __m256i set = _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
  return _mm256_and_si256(set, _mm256_set1_epi8(0x10));
}

struct Q5_0 {
  using Input = Q8Input;
  using X = OffsetX<16>;
  static constexpr int64_t kElems = kQK;
  static constexpr int kStreamRows = 4;
  static constexpr int64_t kStepBytes = sizeof(BlockQ5_0);
  struct W {
    __m256i u;
    __m256 d;
  };
  static Input input(const MatmulArgs& a, int r) { return q8_input(a, r); }
  static W load_w(const std::byte* row, int64_t s) {
    const std::byte* b = row + s * sizeof(BlockQ5_0);
    uint32_t qh;
    std::memcpy(&qh, b + offsetof(BlockQ5_0, qh), sizeof qh);
    const __m256i u = _mm256_or_si256(unpack_nibbles_16(b + offsetof(BlockQ5_0, qs)), bits_to_0x10_bytes(qh));
    return {u, _mm256_set1_ps(load_fp16(b))};
  }
  static X load_x(const Input& in, int64_t s) {
    const XBlock xb = q8_load_x(in, s);
    return {xb.q, xb.d, offset_correction(in, s, 16)};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) { return offset_pair(w.u, w.d, x, acc); }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// Q4_1 and Q5_1: unsigned codes u with value u * d + m. Per block: acc + dot(u, x) * (d_w *
// d_x), then + (sum of x codes, in lane 0 only) * (m_w * d_x): two fused multiply-adds.
template <bool kFiveBit>
struct MinBlock {
  using Input = Q8Input;
  using Block = std::conditional_t<kFiveBit, BlockQ5_1, BlockQ4_1>;
  struct X {
    __m256i q;
    __m256 d;
    __m256 sum;  // the block's activation code sum in lane 0, zeros elsewhere
  };
  struct W {
    __m256i u;
    __m256 d;
    __m256 m;
  };
  static constexpr int64_t kElems = kQK;
  static constexpr int kStreamRows = 4;
  static constexpr int64_t kStepBytes = sizeof(Block);
  static Input input(const MatmulArgs& a, int r) { return q8_input(a, r); }
  static W load_w(const std::byte* row, int64_t s) {
    const std::byte* b = row + s * sizeof(Block);
    __m256i u = unpack_nibbles_16(b + offsetof(Block, qs));
    if constexpr (kFiveBit) {
      uint32_t qh;
      std::memcpy(&qh, b + offsetof(Block, qh), sizeof qh);
      u = _mm256_or_si256(u, bits_to_0x10_bytes(qh));
    }
    return {u, _mm256_set1_ps(load_fp16(b + offsetof(Block, d))), _mm256_set1_ps(load_fp16(b + offsetof(Block, m)))};
  }
  static X load_x(const Input& in, int64_t s) {
    const XBlock xb = q8_load_x(in, s);
    const int sum = in.sum16[2 * s] + in.sum16[2 * s + 1];
    return {xb.q, xb.d, _mm256_cvtepi32_ps(_mm256_castsi128_si256(_mm_cvtsi32_si128(sum)))};
  }
  static __m256 pair(const W& w, const X& x, __m256 acc) {
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot_u8_s8(w.u, x.q)), _mm256_mul_ps(w.d, x.d), acc);
    return _mm256_fmadd_ps(x.sum, _mm256_mul_ps(w.m, x.d), acc);
  }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

// IQ4_NL and MXFP4: each nibble selects one of 16 signed levels (a byte shuffle), then the
// block is a Q8_0 block: the same exact integer dot product and the same float operations.
// Format gives the block type, the levels as a shuffle table and the block's scale as a float.
template <class Format>
struct Levels4 {
  using Input = Q8Input;
  using X = XBlock;
  using W = Q8_0::W;
  using Block = typename Format::Block;
  static constexpr int64_t kElems = kQK;
  static constexpr int kStreamRows = 4;
  static constexpr int64_t kStepBytes = sizeof(Block);
  static Input input(const MatmulArgs& a, int r) { return q8_input(a, r); }
  static W load_w(const std::byte* row, int64_t s) {
    const std::byte* b = row + s * sizeof(Block);
    const __m256i q = _mm256_shuffle_epi8(Format::levels(), unpack_nibbles_16(b + offsetof(Block, qs)));
    return {_mm256_abs_epi8(q), q, _mm256_set1_ps(Format::scale(b))};
  }
  static X load_x(const Input& in, int64_t s) { return q8_load_x(in, s); }
  static __m256 pair(const W& w, const X& x, __m256 acc) { return Q8_0::pair(w, x, acc); }
  static float finish(__m256 acc, const std::byte*, const Input&) { return hsum(acc); }
};

struct IQ4NLFormat {
  using Block = BlockIQ4_NL;
  static __m256i levels() { return iq4_levels(); }
  static float scale(const std::byte* b) { return load_fp16(b + offsetof(Block, d)); }
};

struct MXFP4Format {
  using Block = BlockMXFP4;
  static __m256i levels() { return mxfp4_levels(); }
  static float scale(const std::byte* b) { return mxfp4_scale(std::to_integer<uint8_t>(b[offsetof(Block, e)])); }
};

}  // namespace

void matmul_q4_1(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<MinBlock<false>>(args, o_begin, o_end);
}
void matmul_q5_1(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<MinBlock<true>>(args, o_begin, o_end);
}
void matmul_iq4_nl(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Levels4<IQ4NLFormat>>(args, o_begin, o_end);
}
void matmul_mxfp4(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Levels4<MXFP4Format>>(args, o_begin, o_end);
}
void matmul_q8_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q8_0>(args, o_begin, o_end);
}
void matmul_q4_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q4_0>(args, o_begin, o_end);
}
void matmul_q5_0(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  matmul_rows_tiled<Q5_0>(args, o_begin, o_end);
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
