// Scalar matmul: each output is a double-precision dot product of the dequantised weight
// row with the input row (float types) or with the dequantised Q8 activation row
// (quantised types, exactly the values the SIMD integer dot products see). Rows are
// computed one at a time, so batch invariance is immediate.
#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

namespace {

// Weights are decoded this many at a time: a multiple of every block size (1, 32, 256).
constexpr int64_t kChunk = 256;

double dot_float_input(const WeightMatrix& w, const std::byte* row, const float* x) {
  const size_t elem_bytes = dtype_info(w.type).block_bytes;
  float wf[kChunk];
  double acc = 0.0;
  for (int64_t i0 = 0; i0 < w.n_in; i0 += kChunk) {
    const int64_t n = w.n_in - i0 < kChunk ? w.n_in - i0 : kChunk;
    dequantize(w.type, row + i0 * elem_bytes, n, wf);
    for (int64_t i = 0; i < n; ++i) acc += static_cast<double>(wf[i]) * x[i0 + i];
  }
  return acc;
}

double dot_q8_input(const WeightMatrix& w, const std::byte* row, const Q8Row& xq, int block) {
  const DTypeInfo& info = dtype_info(w.type);
  const size_t chunk_bytes = kChunk / info.block_size * info.block_bytes;
  float wf[kChunk];
  double acc = 0.0;
  for (int64_t i0 = 0; i0 < w.n_in; i0 += kChunk) {
    const int64_t n = w.n_in - i0 < kChunk ? w.n_in - i0 : kChunk;
    dequantize(w.type, row + i0 / kChunk * chunk_bytes, n, wf);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t k = i0 + i;
      acc += static_cast<double>(wf[i]) * (static_cast<double>(xq.d[k / block]) * xq.q[k]);
    }
  }
  return acc;
}

bool is_float_type(DType t) { return t == DType::kF32 || t == DType::kF16 || t == DType::kBF16; }

}  // namespace

void matmul_rows(const MatmulArgs& args, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *args.w;
  const auto* base = static_cast<const std::byte*>(w.data);
  for (int64_t o = o_begin; o < o_end; ++o) {
    const std::byte* row = base + static_cast<size_t>(o) * w.row_bytes;
    for (int r = 0; r < args.n_rows; ++r) {
      double v;
      if (is_float_type(w.type)) {
        v = dot_float_input(w, row, args.x + static_cast<int64_t>(r) * w.n_in);
      } else {
        const std::byte* xr = args.xq + static_cast<size_t>(r) * args.xq_layout.row_bytes;
        v = dot_q8_input(w, row, q8_row(xr, args.xq_layout), args.xq_layout.block);
      }
      args.y[static_cast<int64_t>(r) * w.n_out + o] = static_cast<float>(v);
    }
  }
}

}  // namespace strata::kernels::reference
