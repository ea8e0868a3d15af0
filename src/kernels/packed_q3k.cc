#include "kernels/packed_q3k.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

namespace {

// Scale j (0..15) of a Q3_K super-block, sc - 32: the low 4 bits are nibbles of bytes 0-7,
// the top 2 bits come from bytes 8-11 (as the dequantizer reads them).
int8_t q3_k_scale(const uint8_t* sc, int j) {
  const int low4 = j < 8 ? sc[j] & 0x0f : sc[j - 8] >> 4;
  const int high2 = (sc[8 + j % 4] >> (2 * (j / 4))) & 3;
  return static_cast<int8_t>((low4 | (high2 << 4)) - 32);
}

// Row i of the group's super-block `out` from its Q3_K block b.
void pack_row_block(const BlockQ3_K& b, int i, std::byte* out) {
  std::memcpy(out + 2 * i, &b.d, 2);
  auto* scales = reinterpret_cast<int8_t*>(out + kPackedQ3KScalesOffset);
  for (int j = 0; j < 16; ++j) scales[32 * (j / 2) + 2 * i + j % 2] = q3_k_scale(b.scales, j);
  // qs[32h + l] bits 2c..2c+1 and hmask[l] bit 4h + c belong to input 128h + 32c + l: both
  // are the bytes the layout wants for l = 4t + k, so lines take them 4 bytes at a time.
  auto* low = reinterpret_cast<uint8_t*>(out + kPackedQ3KLowOffset);
  auto* high = reinterpret_cast<uint8_t*>(out + kPackedQ3KHighOffset);
  for (int h = 0; h < 2; ++h) {
    for (int t = 0; t < 8; ++t) std::memcpy(low + 64 * (8 * h + t) + 4 * i, b.qs + 32 * h + 4 * t, 4);
  }
  for (int t = 0; t < 8; ++t) std::memcpy(high + 64 * t + 4 * i, b.hmask + 4 * t, 4);
}

}  // namespace

size_t packed_q3_k_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQKK, kPackedQ3KBlockBytes);
}

void pack_q3_k(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQKK, kPackedQ3KBlockBytes, sizeof(BlockQ3_K), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src != nullptr) pack_row_block(*reinterpret_cast<const BlockQ3_K*>(src), i, out);
  });
}

namespace reference {

namespace {

// Code (0..7) of input e of lane i, read back from the packed lines.
int packed_code(const std::byte* blk, int i, int e) {
  const int h = e / 128, c = (e % 128) / 32, t = (e % 32) / 4, k = e % 4;
  const auto* low = reinterpret_cast<const uint8_t*>(blk + kPackedQ3KLowOffset);
  const auto* high = reinterpret_cast<const uint8_t*>(blk + kPackedQ3KHighOffset);
  const int low2 = (low[64 * (8 * h + t) + 4 * i + k] >> (2 * c)) & 3;
  const int top = (high[64 * t + 4 * i + k] >> (4 * h + c)) & 1;
  return low2 | top << 2;
}

// One output row (lane i of its group) against one activation super-block: the float
// step of packed_q3k.h on acc.
float super_block_step(const std::byte* blk, int i, const int8_t* xq, float xd, const int16_t* sum16, float acc) {
  const auto* scales = reinterpret_cast<const int8_t*>(blk + kPackedQ3KScalesOffset);
  return scaled_sub_blocks_step(blk, i, scales, 4, [&](int e) { return packed_code(blk, i, e); }, xq, xd, sum16,
                                acc);
}

}  // namespace

void matmul_packed_q3_k_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQKK, kPackedQ3KBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       return super_block_step(blk, i, x.q + s * kQKK, x.d[s], x.sum16 + s * 16, acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
