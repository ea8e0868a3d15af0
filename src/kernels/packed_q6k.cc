#include "kernels/packed_q6k.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/quant_blocks.h"

namespace strata::kernels {

namespace {

// Row i of the group's super-block `out` from its Q6_K block b. In each half hh of 128
// inputs, Q6_K keeps inputs 128hh + l and 128hh + 32 + l in the low nibbles of ql[64hh + l]
// and ql[64hh + 32 + l], inputs 128hh + 64 + l and 128hh + 96 + l in their high nibbles,
// and the four inputs' top 2 bits in bits 0-1, 2-3, 4-5, 6-7 of qh[32hh + l]. So code
// line 8p + t (p = 2hh + odd) takes its bytes from ql[64hh + 4t + k] and ql[64hh + 32 + 4t + k],
// and the top bits of both its codes are nibble `odd` of qh[32hh + 4t + k].
void pack_row_block(const BlockQ6_K& b, int i, std::byte* out) {
  std::memcpy(out + 2 * i, &b.d, 2);
  auto* scales = reinterpret_cast<int8_t*>(out + kPackedQ6KScalesOffset);
  for (int k = 0; k < 16; ++k) scales[32 * (k / 2) + 2 * i + k % 2] = b.scales[k];
  auto* low = reinterpret_cast<uint8_t*>(out + kPackedQ6KLowOffset);
  auto* high = reinterpret_cast<uint8_t*>(out + kPackedQ6KHighOffset);
  for (int p = 0; p < 4; ++p) {
    const int hh = p / 2, odd = p % 2;
    for (int t = 0; t < 8; ++t) {
      for (int k = 0; k < 4; ++k) {
        const int l = 4 * t + k;
        const uint8_t first = b.ql[64 * hh + l], second = b.ql[64 * hh + 32 + l];
        low[64 * (8 * p + t) + 4 * i + k] =
            static_cast<uint8_t>(odd ? (first >> 4) | (second & 0xf0) : (first & 0x0f) | (second << 4));
        const int tops = (b.qh[32 * hh + l] >> (4 * odd)) & 0x0f;
        high[64 * (4 * p + t / 2) + 4 * i + k] |= static_cast<uint8_t>(tops << (4 * (t % 2)));
      }
    }
  }
}

}  // namespace

size_t packed_q6_k_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQKK, kPackedQ6KBlockBytes);
}

void pack_q6_k(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQKK, kPackedQ6KBlockBytes, sizeof(BlockQ6_K), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src != nullptr) pack_row_block(*reinterpret_cast<const BlockQ6_K*>(src), i, out);
  });
}

namespace reference {

namespace {

// Code of input e of lane i, read back from the packed lines.
int packed_code(const std::byte* blk, int i, int e) {
  const int p = e / 64, half = (e % 64) / 32, t = (e % 32) / 4, k = e % 4;
  const auto* low = reinterpret_cast<const uint8_t*>(blk + kPackedQ6KLowOffset);
  const auto* high = reinterpret_cast<const uint8_t*>(blk + kPackedQ6KHighOffset);
  const uint8_t nibbles = low[64 * (8 * p + t) + 4 * i + k];
  const uint8_t tops = high[64 * (4 * p + t / 2) + 4 * i + k];
  const int top = (tops >> (4 * (t % 2) + 2 * half)) & 3;
  return (half == 0 ? nibbles & 0x0f : nibbles >> 4) | top << 4;
}

// One output row (lane i of its group) against one activation super-block: the float
// step of packed_q6k.h on acc.
float super_block_step(const std::byte* blk, int i, const int8_t* xq, float xd, const int16_t* sum16, float acc) {
  const auto* scales = reinterpret_cast<const int8_t*>(blk + kPackedQ6KScalesOffset);
  return scaled_sub_blocks_step(blk, i, scales, 32, [&](int e) { return packed_code(blk, i, e); }, xq, xd, sum16,
                                acc);
}

}  // namespace

void matmul_packed_q6_k_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQKK, kPackedQ6KBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       return super_block_step(blk, i, x.q + s * kQKK, x.d[s], x.sum16 + s * 16, acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
