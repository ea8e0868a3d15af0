#include "kernels/packed_q4_0.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

size_t packed_q4_0_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQK, kPackedQ40BlockBytes);
}

void pack_q4_0(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQK, kPackedQ40BlockBytes, sizeof(BlockQ4_0), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src == nullptr) return;
    const auto* b = reinterpret_cast<const BlockQ4_0*>(src);
    std::memcpy(out + 2 * i, &b->d, 2);
    for (int c = 0; c < 4; ++c) std::memcpy(out + kPackedQ40CodesOffset + 64 * c + 4 * i, b->qs + 4 * c, 4);
  });
}

namespace reference {

void matmul_packed_q4_0_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQK, kPackedQ40BlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       uint16_t d_bits;
                       std::memcpy(&d_bits, blk + 2 * i, 2);
                       const auto* lines = reinterpret_cast<const uint8_t*>(blk + kPackedQ40CodesOffset);
                       const int8_t* xq = x.q + s * kQK;
                       int32_t dot = 0;
                       for (int c = 0; c < 4; ++c) {
                         for (int k = 0; k < 4; ++k) {
                           const uint8_t byte = lines[64 * c + 4 * i + k];
                           dot += ((byte & 0x0f) - 8) * xq[4 * c + k] + ((byte >> 4) - 8) * xq[16 + 4 * c + k];
                         }
                       }
                       return std::fma(static_cast<float>(dot), fp16_to_fp32(d_bits) * x.d[s], acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
