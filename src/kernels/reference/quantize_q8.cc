// Scalar activation quantisation (float row -> Q8RowLayout), the definition the SIMD
// versions must reproduce bit-for-bit: per block d = amax / 127, q = round-to-nearest-even
// (x * (1 / d)) clamped to [-127, 127] (NaN to -127), sums of q per 16.
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void quantize_q8_row(const float* x, int64_t n_in, int block, std::byte* dst) {
  const Q8RowLayout layout = make_q8_row_layout(n_in, block);
  auto* q = reinterpret_cast<int8_t*>(dst);
  auto* d = reinterpret_cast<float*>(dst + layout.d_offset);
  auto* sum16 = reinterpret_cast<int16_t*>(dst + layout.sum_offset);
  for (int64_t b = 0; b < n_in / block; ++b) {
    const float* xb = x + b * block;
    float amax = 0.0f;
    for (int i = 0; i < block; ++i) amax = std::fmax(amax, std::fabs(xb[i]));
    const float db = amax / 127.0f;
    const float id = db != 0.0f ? 1.0f / db : 0.0f;
    d[b] = db;
    for (int i = 0; i < block; ++i) {
      float v = std::nearbyint(xb[i] * id);
      if (!(v >= -127.0f)) v = v > 0.0f ? 127.0f : -127.0f;
      if (v > 127.0f) v = 127.0f;
      q[b * block + i] = static_cast<int8_t>(v);
    }
  }
  for (int64_t h = 0; h < n_in / 16; ++h) {
    int sum = 0;
    for (int i = 0; i < 16; ++i) sum += q[h * 16 + i];
    sum16[h] = static_cast<int16_t>(sum);
  }
}

}  // namespace strata::kernels::reference
