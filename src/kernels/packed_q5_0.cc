#include "kernels/packed_q5_0.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

size_t packed_q5_0_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQK, kPackedQ50BlockBytes);
}

void pack_q5_0(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQK, kPackedQ50BlockBytes, sizeof(BlockQ5_0), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src == nullptr) return;
    const auto* b = reinterpret_cast<const BlockQ5_0*>(src);
    std::memcpy(out + 2 * i, &b->d, 2);
    uint32_t qh;
    std::memcpy(&qh, b->qh, sizeof qh);
    auto* high = reinterpret_cast<uint8_t*>(out + kPackedQ50HighOffset);
    for (int c = 0; c < 4; ++c) {
      for (int k = 0; k < 4; ++k) {
        const uint32_t lo_bit = (qh >> (4 * c + k)) & 1u;
        const uint32_t hi_bit = (qh >> (16 + 4 * c + k)) & 1u;
        high[4 * i + k] = static_cast<uint8_t>(high[4 * i + k] | (lo_bit << (2 * c)) | (hi_bit << (2 * c + 1)));
      }
      std::memcpy(out + kPackedQ50CodesOffset + 64 * c + 4 * i, b->qs + 4 * c, 4);
    }
  });
}

namespace reference {

void matmul_packed_q5_0_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQK, kPackedQ50BlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       uint16_t d_bits;
                       std::memcpy(&d_bits, blk + 2 * i, 2);
                       const auto* high = reinterpret_cast<const uint8_t*>(blk + kPackedQ50HighOffset);
                       const auto* lines = reinterpret_cast<const uint8_t*>(blk + kPackedQ50CodesOffset);
                       const int8_t* xq = x.q + s * kQK;
                       int32_t dot = 0;
                       for (int c = 0; c < 4; ++c) {
                         for (int k = 0; k < 4; ++k) {
                           const uint8_t byte = lines[64 * c + 4 * i + k];
                           const uint8_t bits = high[4 * i + k];
                           const int lo = (byte & 0x0f) | (((bits >> (2 * c)) & 1) << 4);
                           const int hi = (byte >> 4) | (((bits >> (2 * c + 1)) & 1) << 4);
                           dot += (lo - 16) * xq[4 * c + k] + (hi - 16) * xq[16 + 4 * c + k];
                         }
                       }
                       return std::fma(static_cast<float>(dot), fp16_to_fp32(d_bits) * x.d[s], acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
