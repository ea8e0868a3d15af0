// AVX2 matmul for F32, F16 and BF16 weights against float inputs: 8 elements per step
// into one fma accumulator per (weight row, input row), the fixed 8-lane tree, then the
// n_in % 8 leftover elements added one by one in index order.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_matmul_tile.h"

namespace strata::kernels::cpu::STRATA_SIMD {

namespace {

struct FloatInput {
  const float* x;
  int64_t n_in;
};

template <DType kType>
struct FloatWeights {
  using Input = FloatInput;
  using W = __m256;
  using X = __m256;
  static constexpr int64_t kElems = 8;
  static constexpr int kStreamRows = 4;
  static constexpr int64_t kStepBytes = 8 * (kType == DType::kF32 ? 4 : 2);
  static constexpr size_t kElemBytes = kType == DType::kF32 ? 4 : 2;

  static Input input(const MatmulArgs& a, int r) { return {a.x + static_cast<int64_t>(r) * a.w->n_in, a.w->n_in}; }
  static W load_w(const std::byte* row, int64_t s) {
    const std::byte* p = row + s * 8 * kElemBytes;
    if constexpr (kType == DType::kF32) {
      return _mm256_loadu_ps(reinterpret_cast<const float*>(p));
    } else if constexpr (kType == DType::kF16) {
      return _mm256_cvtph_ps(load_128(p));
    } else {
      return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(load_128(p)), 16));
    }
  }
  static X load_x(const Input& in, int64_t s) { return _mm256_loadu_ps(in.x + s * 8); }
  static __m256 pair(W w, X x, __m256 acc) { return _mm256_fmadd_ps(w, x, acc); }

  static float element(const std::byte* row, int64_t i) {
    if constexpr (kType == DType::kF32) {
      float v;
      std::memcpy(&v, row + i * 4, 4);
      return v;
    } else if constexpr (kType == DType::kF16) {
      return load_fp16(row + i * 2);
    } else {
      uint16_t h;
      std::memcpy(&h, row + i * 2, 2);
      const uint32_t bits = static_cast<uint32_t>(h) << 16;
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
  }
  static float finish(__m256 acc, const std::byte* row, const Input& in) {
    float sum = hsum(acc);
    for (int64_t i = in.n_in / 8 * 8; i < in.n_in; ++i) sum += element(row, i) * in.x[i];
    return sum;
  }
};

}  // namespace

void matmul_float(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  switch (args.w->type) {
    case DType::kF32: matmul_rows_tiled<FloatWeights<DType::kF32>>(args, o_begin, o_end); return;
    case DType::kF16: matmul_rows_tiled<FloatWeights<DType::kF16>>(args, o_begin, o_end); return;
    case DType::kBF16: matmul_rows_tiled<FloatWeights<DType::kBF16>>(args, o_begin, o_end); return;
    default: return;
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
