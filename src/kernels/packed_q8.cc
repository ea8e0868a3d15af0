#include "kernels/packed_q8.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

namespace {
int64_t n_groups(int64_t n_out) { return (n_out + kPackedGroupRows - 1) / kPackedGroupRows; }
}  // namespace

size_t packed_q8_0_bytes(int64_t n_out, int64_t n_in) {
  return static_cast<size_t>(n_groups(n_out)) * static_cast<size_t>(n_in / kQK) * kPackedGroupBlockBytes;
}

void pack_q8_0(const WeightMatrix& w, std::byte* dst) {
  const int64_t n_blocks = w.n_in / kQK;
  for (int64_t g = 0; g < n_groups(w.n_out); ++g) {
    for (int64_t s = 0; s < n_blocks; ++s) {
      std::byte* out = dst + (g * n_blocks + s) * kPackedGroupBlockBytes;
      std::memset(out, 0, kPackedGroupBlockBytes);
      for (int i = 0; i < kPackedGroupRows; ++i) {
        const int64_t o = g * kPackedGroupRows + i;
        uint8_t* codes = reinterpret_cast<uint8_t*>(out + 32);
        if (o >= w.n_out) {
          // A padding row: scale 0 and codes of value 0, so it adds exactly nothing.
          for (int c = 0; c < 8; ++c) std::memset(codes + c * 64 + i * 4, 128, 4);
          continue;
        }
        const auto* b = reinterpret_cast<const BlockQ8_0*>(static_cast<const std::byte*>(w.data) + o * w.row_bytes) + s;
        std::memcpy(out + 2 * i, &b->d, 2);
        for (int c = 0; c < 8; ++c) {
          for (int k = 0; k < 4; ++k) codes[c * 64 + i * 4 + k] = static_cast<uint8_t>(b->qs[4 * c + k] + 128);
        }
      }
    }
  }
}

namespace reference {

void matmul_packed_q8_0_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / kQK;
  const auto* packed = static_cast<const std::byte*>(w.packed);
  for (int r = 0; r < a.n_rows; ++r) {
    const Q8Row x = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
    for (int64_t o = o_begin; o < o_end; ++o) {
      const int64_t g = o / kPackedGroupRows;
      const int i = static_cast<int>(o % kPackedGroupRows);
      float acc = 0.0f;
      for (int64_t s = 0; s < n_blocks; ++s) {
        const std::byte* blk = packed + (g * n_blocks + s) * kPackedGroupBlockBytes;
        uint16_t d_bits;
        std::memcpy(&d_bits, blk + 2 * i, 2);
        const auto* codes = reinterpret_cast<const uint8_t*>(blk + 32);
        int32_t dot = -128 * (x.sum16[2 * s] + x.sum16[2 * s + 1]);
        for (int c = 0; c < 8; ++c) {
          for (int k = 0; k < 4; ++k) dot += codes[c * 64 + i * 4 + k] * x.q[s * kQK + 4 * c + k];
        }
        acc = std::fma(static_cast<float>(dot), fp16_to_fp32(d_bits) * x.d[s], acc);
      }
      a.y[static_cast<int64_t>(r) * w.n_out + o] = acc;
    }
  }
}

}  // namespace reference
}  // namespace strata::kernels
