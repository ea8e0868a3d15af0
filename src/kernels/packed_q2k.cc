#include "kernels/packed_q2k.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

namespace {

// Row i of the group's super-block `out` from its Q2_K block b.
void pack_row_block(const BlockQ2_K& b, int i, std::byte* out) {
  std::memcpy(out + 2 * i, &b.d, 2);
  std::memcpy(out + 32 + 2 * i, &b.dmin, 2);
  auto* scales = reinterpret_cast<uint8_t*>(out + kPackedQ2KScalesOffset);
  for (int j = 0; j < 16; ++j) scales[32 * (j / 2) + 2 * i + j % 2] = b.scales[j];
  // qs[32h + l] bits 2c..2c+1 hold input 128h + 32c + l: exactly the byte the layout wants
  // for l = 4t + k, so lines take qs 4 bytes at a time.
  auto* lines = reinterpret_cast<uint8_t*>(out + kPackedQ2KCodesOffset);
  for (int h = 0; h < 2; ++h) {
    for (int t = 0; t < 8; ++t) std::memcpy(lines + 64 * (8 * h + t) + 4 * i, b.qs + 32 * h + 4 * t, 4);
  }
}

}  // namespace

size_t packed_q2_k_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQKK, kPackedQ2KBlockBytes);
}

void pack_q2_k(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQKK, kPackedQ2KBlockBytes, sizeof(BlockQ2_K), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src != nullptr) pack_row_block(*reinterpret_cast<const BlockQ2_K*>(src), i, out);
  });
}

namespace reference {

namespace {

// Code (0..3) of input e of lane i, read back from the packed lines.
int packed_code(const std::byte* blk, int i, int e) {
  const int h = e / 128, c = (e % 128) / 32, t = (e % 32) / 4, k = e % 4;
  const auto* lines = reinterpret_cast<const uint8_t*>(blk + kPackedQ2KCodesOffset);
  return (lines[64 * (8 * h + t) + 4 * i + k] >> (2 * c)) & 3;
}

// One output row (lane i of its group) against one activation super-block: the float
// steps of packed_q2k.h on acc.
float super_block_step(const std::byte* blk, int i, const int8_t* xq, float xd, const int16_t* sum16, float acc) {
  uint16_t d_bits, dmin_bits;
  std::memcpy(&d_bits, blk + 2 * i, 2);
  std::memcpy(&dmin_bits, blk + 32 + 2 * i, 2);
  const auto* scales = reinterpret_cast<const uint8_t*>(blk + kPackedQ2KScalesOffset);
  int32_t dots = 0, min_terms = 0;
  for (int k = 0; k < 16; ++k) {
    int32_t dot = 0;
    for (int e = 16 * k; e < 16 * k + 16; ++e) dot += packed_code(blk, i, e) * xq[e];
    const uint8_t scale_min = scales[32 * (k / 2) + 2 * i + k % 2];
    dots += (scale_min & 0x0f) * dot;
    min_terms += (scale_min >> 4) * sum16[k];
  }
  acc = std::fma(static_cast<float>(dots), fp16_to_fp32(d_bits) * xd, acc);
  return std::fma(-static_cast<float>(min_terms), fp16_to_fp32(dmin_bits) * xd, acc);
}

}  // namespace

void matmul_packed_q2_k_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQKK, kPackedQ2KBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       return super_block_step(blk, i, x.q + s * kQKK, x.d[s], x.sum16 + s * 16, acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
