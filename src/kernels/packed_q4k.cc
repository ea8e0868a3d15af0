#include "kernels/packed_q4k.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

namespace {

int64_t n_groups(int64_t n_out) { return (n_out + kPackedGroupRows - 1) / kPackedGroupRows; }

// Row i of the group's super-block `out` from its Q4_K block b.
void pack_row_block(const BlockQ4_K& b, int i, std::byte* out) {
  std::memcpy(out + 2 * i, &b.d, 2);
  std::memcpy(out + 32 + 2 * i, &b.dmin, 2);
  auto* scales = reinterpret_cast<uint8_t*>(out + kPackedQ4KScalesOffset);
  auto* mins = reinterpret_cast<uint8_t*>(out + kPackedQ4KMinsOffset);
  for (int j = 0; j < 8; ++j) {
    uint8_t sc, m;
    k_scale_min(b.scales, j, &sc, &m);
    scales[16 * j + i] = sc;
    mins[32 * (j / 2) + 2 * i + j % 2] = m;
  }
  // Q4_K's qs[32p + l] holds input 64p + l in its low nibble and 64p + 32 + l in its high
  // nibble: exactly the byte the layout wants for l = 4t + k, so lines take qs 4 bytes at a time.
  auto* lines = reinterpret_cast<uint8_t*>(out + kPackedQ4KCodesOffset);
  for (int p = 0; p < 4; ++p) {
    for (int t = 0; t < 8; ++t) std::memcpy(lines + 64 * (8 * p + t) + 4 * i, b.qs + 32 * p + 4 * t, 4);
  }
}

}  // namespace

size_t packed_q4_k_bytes(int64_t n_out, int64_t n_in) {
  return static_cast<size_t>(n_groups(n_out)) * static_cast<size_t>(n_in / kQKK) * kPackedQ4KBlockBytes;
}

void pack_q4_k(const WeightMatrix& w, std::byte* dst) {
  const int64_t n_blocks = w.n_in / kQKK;
  for (int64_t g = 0; g < n_groups(w.n_out); ++g) {
    for (int64_t s = 0; s < n_blocks; ++s) {
      std::byte* out = dst + (g * n_blocks + s) * kPackedQ4KBlockBytes;
      std::memset(out, 0, kPackedQ4KBlockBytes);  // padding rows stay all zero
      for (int i = 0; i < kPackedGroupRows && g * kPackedGroupRows + i < w.n_out; ++i) {
        const int64_t o = g * kPackedGroupRows + i;
        const auto* b = reinterpret_cast<const BlockQ4_K*>(static_cast<const std::byte*>(w.data) + o * w.row_bytes) + s;
        pack_row_block(*b, i, out);
      }
    }
  }
}

namespace reference {

namespace {

// One output row (lane i of its group) against one activation super-block: the float
// steps of packed_q4k.h on acc.
float super_block_step(const std::byte* blk, int i, const int8_t* xq, float xd, const int16_t* sum16, float acc) {
  uint16_t d_bits, dmin_bits;
  std::memcpy(&d_bits, blk + 2 * i, 2);
  std::memcpy(&dmin_bits, blk + 32 + 2 * i, 2);
  const auto* scales = reinterpret_cast<const uint8_t*>(blk + kPackedQ4KScalesOffset);
  const auto* mins = reinterpret_cast<const uint8_t*>(blk + kPackedQ4KMinsOffset);
  const auto* lines = reinterpret_cast<const uint8_t*>(blk + kPackedQ4KCodesOffset);
  int32_t dots = 0, min_terms = 0;
  for (int j = 0; j < 8; ++j) {
    const int p = j / 2, half = j % 2;
    int32_t dot = 0;
    for (int t = 0; t < 8; ++t) {
      for (int k = 0; k < 4; ++k) {
        const uint8_t byte = lines[64 * (8 * p + t) + 4 * i + k];
        const int code = half == 0 ? byte & 0x0f : byte >> 4;
        dot += code * xq[32 * j + 4 * t + k];
      }
    }
    dots += scales[16 * j + i] * dot;
    min_terms += mins[32 * p + 2 * i + half] * (sum16[2 * j] + sum16[2 * j + 1]);
  }
  acc = std::fma(static_cast<float>(dots), fp16_to_fp32(d_bits) * xd, acc);
  return std::fma(-static_cast<float>(min_terms), fp16_to_fp32(dmin_bits) * xd, acc);
}

}  // namespace

void matmul_packed_q4_k_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / kQKK;
  const auto* packed = static_cast<const std::byte*>(w.packed);
  for (int r = 0; r < a.n_rows; ++r) {
    const Q8Row x = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
    for (int64_t o = o_begin; o < o_end; ++o) {
      const int64_t g = o / kPackedGroupRows;
      const int i = static_cast<int>(o % kPackedGroupRows);
      float acc = 0.0f;
      for (int64_t s = 0; s < n_blocks; ++s) {
        const std::byte* blk = packed + (g * n_blocks + s) * kPackedQ4KBlockBytes;
        acc = super_block_step(blk, i, x.q + s * kQKK, x.d[s], x.sum16 + s * 16, acc);
      }
      a.y[static_cast<int64_t>(r) * w.n_out + o] = acc;
    }
  }
}

}  // namespace reference
}  // namespace strata::kernels
