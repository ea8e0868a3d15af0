// Scalar activation quantisation (float row -> Q8RowLayout), the definition the SIMD
// versions must reproduce bit-for-bit: per block d = amax / 127, q = round-to-nearest-even
// (x * (1 / d)), sums of q per 16.
#include <cmath>

#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

void quantize_q8_row(const float* x, int64_t n_in, std::byte* dst) {
  const Q8RowLayout layout = make_q8_row_layout(n_in);
  auto* q = reinterpret_cast<int8_t*>(dst);
  auto* d = reinterpret_cast<float*>(dst + layout.d_offset);
  auto* sum16 = reinterpret_cast<int16_t*>(dst + layout.sum_offset);
  for (int64_t b = 0; b < n_in / kQK; ++b) {
    const float* xb = x + b * kQK;
    float amax = 0.0f;
    for (int i = 0; i < kQK; ++i) amax = std::fmax(amax, std::fabs(xb[i]));
    const float db = amax / 127.0f;
    const float id = db != 0.0f ? 1.0f / db : 0.0f;
    d[b] = db;
    for (int half = 0; half < 2; ++half) {
      int sum = 0;
      for (int i = half * 16; i < half * 16 + 16; ++i) {
        float v = std::nearbyint(xb[i] * id);
        if (!(v >= -127.0f)) v = v > 0.0f ? 127.0f : -127.0f;  // also maps NaN to a finite code
        if (v > 127.0f) v = 127.0f;
        q[b * kQK + i] = static_cast<int8_t>(v);
        sum += static_cast<int>(v);
      }
      sum16[2 * b + half] = static_cast<int16_t>(sum);
    }
  }
}

}  // namespace strata::kernels::reference
