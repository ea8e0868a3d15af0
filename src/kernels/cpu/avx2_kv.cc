// AVX2 K/V conversions, bit-identical to the scalar ones (F16C rounds to nearest-even,
// Q8_0 uses the shared block quantiser).
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"
#include "kernels/fp16.h"
#include "kernels/reference/reference.h"

namespace strata::kernels::cpu::STRATA_SIMD {

void store_kv(const float* x, int n, DType type, void* dst) {
  switch (type) {
    case DType::kF16: {
      auto* h = static_cast<uint16_t*>(dst);
      int i = 0;
      for (; i + 8 <= n; i += 8) {
        const __m128i v = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(h + i), v);
      }
      for (; i < n; ++i) h[i] = fp32_to_fp16(x[i]);
      return;
    }
    case DType::kQ8_0: {
      auto* blocks = static_cast<BlockQ8_0*>(dst);
      for (int b = 0; b < n / kQK; ++b) {
        const float d = abs_max(x + b * kQK, kQK) / 127.0f;
        blocks[b].d = fp32_to_fp16(d);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(blocks[b].qs), codes32(x + b * kQK, inverse_scale(d)).codes);
      }
      return;
    }
    default:
      reference::store_kv(x, n, type, dst);
      return;
  }
}

void load_kv(const void* src, int n, DType type, float* out) {
  switch (type) {
    case DType::kF16: {
      const auto* h = static_cast<const uint16_t*>(src);
      int i = 0;
      for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_cvtph_ps(load_128(h + i)));
      for (; i < n; ++i) out[i] = load_fp16(h + i);
      return;
    }
    case DType::kQ8_0: {
      const auto* blocks = static_cast<const BlockQ8_0*>(src);
      for (int b = 0; b < n / kQK; ++b) {
        const __m256 d = _mm256_set1_ps(load_fp16(&blocks[b].d));
        for (int k = 0; k < 4; ++k) {
          const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(blocks[b].qs + 8 * k)));
          _mm256_storeu_ps(out + b * kQK + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), d));
        }
      }
      return;
    }
    default:
      reference::load_kv(src, n, type, out);
      return;
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
