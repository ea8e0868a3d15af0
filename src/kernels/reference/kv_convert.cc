// Scalar K/V conversions. Q8_0 stores use round-to-nearest-even of x / d with
// d = amax / 127 (the SIMD stores reproduce this bit-for-bit).
#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::reference {

namespace {

void store_q8_0(const float* x, int n, BlockQ8_0* dst) {
  for (int b = 0; b < n / kQK; ++b) {
    const float* xb = x + b * kQK;
    float amax = 0.0f;
    for (int i = 0; i < kQK; ++i) amax = std::fmax(amax, std::fabs(xb[i]));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    dst[b].d = fp32_to_fp16(d);
    for (int i = 0; i < kQK; ++i) {
      float v = std::nearbyint(xb[i] * id);
      if (!(v >= -127.0f)) v = v > 0.0f ? 127.0f : -127.0f;
      if (v > 127.0f) v = 127.0f;
      dst[b].qs[i] = static_cast<int8_t>(v);
    }
  }
}

}  // namespace

void store_kv(const float* x, int n, DType type, void* dst) {
  switch (type) {
    case DType::kF32: std::memcpy(dst, x, static_cast<size_t>(n) * sizeof(float)); return;
    case DType::kF16: {
      auto* h = static_cast<uint16_t*>(dst);
      for (int i = 0; i < n; ++i) h[i] = fp32_to_fp16(x[i]);
      return;
    }
    case DType::kQ8_0: store_q8_0(x, n, static_cast<BlockQ8_0*>(dst)); return;
    default: return;  // kernels::store_kv rejects other types before dispatching
  }
}

void load_kv(const void* src, int n, DType type, float* out) {
  dequantize(type, src, n, out);
}

}  // namespace strata::kernels::reference
