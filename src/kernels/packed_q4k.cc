#include "kernels/packed_q4k.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

namespace {

// Row i of the group's super-block `out` from its Q4_K or Q5_K block b.
template <class Block>
void pack_row_block(const Block& b, int i, std::byte* out) {
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
  // qs[32p + l] holds input 64p + l in its low nibble and 64p + 32 + l in its high nibble:
  // exactly the byte the layout wants for l = 4t + k, so lines take qs 4 bytes at a time.
  auto* lines = reinterpret_cast<uint8_t*>(out + kPackedQ4KCodesOffset);
  for (int p = 0; p < 4; ++p) {
    for (int t = 0; t < 8; ++t) std::memcpy(lines + 64 * (8 * p + t) + 4 * i, b.qs + 32 * p + 4 * t, 4);
  }
  if constexpr (std::is_same_v<Block, BlockQ5_K>) {
    // Q5_K's qh[l] bit 2p / 2p + 1: the 5th bit of input 64p + l / 64p + 32 + l.
    auto* high = reinterpret_cast<uint8_t*>(out + kPackedQ5KHighOffset);
    for (int p = 0; p < 4; ++p) {
      for (int t = 0; t < 8; ++t) {
        for (int k = 0; k < 4; ++k) {
          const uint8_t bits = b.qh[4 * t + k] >> (2 * p);
          high[64 * (2 * p + t / 4) + 4 * i + k] |= static_cast<uint8_t>((bits & 3) << (2 * (t % 4)));
        }
      }
    }
  }
}

}  // namespace

size_t packed_q4_k_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQKK, kPackedQ4KBlockBytes);
}

size_t packed_q5_k_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQKK, kPackedQ5KBlockBytes);
}

void pack_q4_k(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQKK, kPackedQ4KBlockBytes, sizeof(BlockQ4_K), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src != nullptr) pack_row_block(*reinterpret_cast<const BlockQ4_K*>(src), i, out);
  });
}

void pack_q5_k(const WeightMatrix& w, std::byte* dst) {
  pack_groups(w, kQKK, kPackedQ5KBlockBytes, sizeof(BlockQ5_K), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src != nullptr) pack_row_block(*reinterpret_cast<const BlockQ5_K*>(src), i, out);
  });
}

namespace reference {

namespace {

// One output row (lane i of its group) against one activation super-block: the float
// steps of packed_q4k.h on acc. kFive: Q5_K (codes take their 5th bit from the high lines).
template <bool kFive>
float super_block_step(const std::byte* blk, int i, const int8_t* xq, float xd, const int16_t* sum16, float acc) {
  uint16_t d_bits, dmin_bits;
  std::memcpy(&d_bits, blk + 2 * i, 2);
  std::memcpy(&dmin_bits, blk + 32 + 2 * i, 2);
  const auto* scales = reinterpret_cast<const uint8_t*>(blk + kPackedQ4KScalesOffset);
  const auto* mins = reinterpret_cast<const uint8_t*>(blk + kPackedQ4KMinsOffset);
  const auto* lines = reinterpret_cast<const uint8_t*>(blk + kPackedQ4KCodesOffset);
  const auto* high = reinterpret_cast<const uint8_t*>(blk + kPackedQ5KHighOffset);
  int32_t dots = 0, min_terms = 0;
  for (int j = 0; j < 8; ++j) {
    const int p = j / 2, half = j % 2;
    int32_t dot = 0;
    for (int t = 0; t < 8; ++t) {
      for (int k = 0; k < 4; ++k) {
        const uint8_t byte = lines[64 * (8 * p + t) + 4 * i + k];
        int code = half == 0 ? byte & 0x0f : byte >> 4;
        if constexpr (kFive) code |= ((high[64 * (2 * p + t / 4) + 4 * i + k] >> (2 * (t % 4) + half)) & 1) << 4;
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
  packed_oracle_rows(a, o_begin, o_end, kQKK, kPackedQ4KBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       return super_block_step<false>(blk, i, x.q + s * kQKK, x.d[s], x.sum16 + s * 16, acc);
                     });
}

void matmul_packed_q5_k_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQKK, kPackedQ5KBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       return super_block_step<true>(blk, i, x.q + s * kQKK, x.d[s], x.sum16 + s * 16, acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
