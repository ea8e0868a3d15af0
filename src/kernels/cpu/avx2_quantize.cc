// AVX2 activation quantisation (float row -> Q8RowLayout), bit-identical to the scalar one.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"

namespace strata::kernels::cpu::STRATA_SIMD {

void quantize_q8_row(const float* x, int64_t n_in, int block, std::byte* dst) {
  const Q8RowLayout layout = make_q8_row_layout(n_in, block);
  auto* q = reinterpret_cast<int8_t*>(dst);
  auto* d = reinterpret_cast<float*>(dst + layout.d_offset);
  auto* sum16 = reinterpret_cast<int16_t*>(dst + layout.sum_offset);
  for (int64_t b = 0; b < n_in / block; ++b) {
    d[b] = abs_max(x + b * block, block) / 127.0f;
    const float id = inverse_scale(d[b]);
    for (int64_t i = b * block; i < (b + 1) * block; i += kQK) {
      const Codes32 c = codes32(x + i, id);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), c.codes);
      sum16[i / 16] = static_cast<int16_t>(c.sum_lo);
      sum16[i / 16 + 1] = static_cast<int16_t>(c.sum_hi);
    }
  }
}

}  // namespace strata::kernels::cpu::STRATA_SIMD
