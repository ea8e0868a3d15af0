#include "kernels/packed_q8.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

size_t packed_q8_0_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQK, kPackedGroupBlockBytes);
}

void pack_q8_0(const WeightMatrix& w, std::byte* dst) {
  pack_groups(w, kQK, kPackedGroupBlockBytes, sizeof(BlockQ8_0), dst, [](const std::byte* src, int i, std::byte* out) {
    uint8_t* codes = reinterpret_cast<uint8_t*>(out + 32);
    if (src == nullptr) {
      // A padding row: scale 0 and codes of value 0, so it adds exactly nothing.
      for (int c = 0; c < 8; ++c) std::memset(codes + c * 64 + i * 4, 128, 4);
      return;
    }
    const auto* b = reinterpret_cast<const BlockQ8_0*>(src);
    std::memcpy(out + 2 * i, &b->d, 2);
    for (int c = 0; c < 8; ++c) {
      for (int k = 0; k < 4; ++k) codes[c * 64 + i * 4 + k] = static_cast<uint8_t>(b->qs[4 * c + k] + 128);
    }
  });
}

namespace reference {

void matmul_packed_q8_0_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQK, kPackedGroupBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       uint16_t d_bits;
                       std::memcpy(&d_bits, blk + 2 * i, 2);
                       const auto* codes = reinterpret_cast<const uint8_t*>(blk + 32);
                       int32_t dot = -128 * (x.sum16[2 * s] + x.sum16[2 * s + 1]);
                       for (int c = 0; c < 8; ++c) {
                         for (int k = 0; k < 4; ++k) dot += codes[c * 64 + i * 4 + k] * x.q[s * kQK + 4 * c + k];
                       }
                       return std::fma(static_cast<float>(dot), fp16_to_fp32(d_bits) * x.d[s], acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
