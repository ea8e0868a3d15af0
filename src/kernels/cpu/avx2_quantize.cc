// AVX2 activation quantisation (float row -> Q8RowLayout), bit-identical to the scalar one.
#include "kernels/cpu/avx2.h"
#include "kernels/cpu/avx2_common.h"

namespace strata::kernels::cpu::avx2 {

void quantize_q8_row(const float* x, int64_t n_in, std::byte* dst) {
  const Q8RowLayout layout = make_q8_row_layout(n_in);
  auto* q = reinterpret_cast<int8_t*>(dst);
  auto* d = reinterpret_cast<float*>(dst + layout.d_offset);
  auto* sum16 = reinterpret_cast<int16_t*>(dst + layout.sum_offset);
  for (int64_t b = 0; b < n_in / kQK; ++b) {
    const QuantizedBlock qb = quantize_block32(x + b * kQK);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + b * kQK), qb.codes);
    d[b] = qb.d;
    sum16[2 * b] = static_cast<int16_t>(qb.sum_lo);
    sum16[2 * b + 1] = static_cast<int16_t>(qb.sum_hi);
  }
}

}  // namespace strata::kernels::cpu::avx2
