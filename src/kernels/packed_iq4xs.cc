#include "kernels/packed_iq4xs.h"

#include <cmath>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/packed_groups.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"

namespace strata::kernels {

namespace {

// The 4-bit code of element l (0..31) of sub-block j of an IQ4_XS block: qs[16 j + l] holds
// element l in its low nibble and element l + 16 in its high one.
int iq4_xs_code(const BlockIQ4_XS& b, int j, int l) {
  return l < 16 ? b.qs[16 * j + l] & 0x0f : b.qs[16 * j + l - 16] >> 4;
}

int iq4_xs_scale(const BlockIQ4_XS& b, int j) {
  return ((b.scales_l[j / 2] >> (4 * (j % 2))) & 0x0f) | (((b.scales_h >> (2 * j)) & 3) << 4);
}

// Row i of the group's super-block `out` from its IQ4_XS block b.
void pack_row_block(const BlockIQ4_XS& b, int i, std::byte* out) {
  std::memcpy(out + 2 * i, &b.d, 2);
  auto* scales = reinterpret_cast<int8_t*>(out + kPackedIQ4XSScalesOffset);
  for (int j = 0; j < 8; ++j) scales[32 * (j / 2) + 2 * i + j % 2] = static_cast<int8_t>(iq4_xs_scale(b, j) - 32);
  auto* lines = reinterpret_cast<uint8_t*>(out + kPackedIQ4XSCodesOffset);
  for (int p = 0; p < 4; ++p) {
    for (int t = 0; t < 8; ++t) {
      for (int k = 0; k < 4; ++k) {
        const int lo = iq4_xs_code(b, 2 * p, 4 * t + k), hi = iq4_xs_code(b, 2 * p + 1, 4 * t + k);
        lines[64 * (8 * p + t) + 4 * i + k] = static_cast<uint8_t>(lo | (hi << 4));
      }
    }
  }
}

}  // namespace

size_t packed_iq4_xs_bytes(int64_t n_out, int64_t n_in) {
  return packed_size(n_out, n_in, kQKK, kPackedIQ4XSBlockBytes);
}

void pack_iq4_xs(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQKK, kPackedIQ4XSBlockBytes, sizeof(BlockIQ4_XS), dst,
              [](const std::byte* src, int i, std::byte* out) {
                if (src != nullptr) pack_row_block(*reinterpret_cast<const BlockIQ4_XS*>(src), i, out);
              });
}

namespace reference {

namespace {

// One output row (lane i of its group) against one activation super-block: the float step
// of packed_iq4xs.h on acc.
float super_block_step(const std::byte* blk, int i, const int8_t* xq, float xd, float acc) {
  uint16_t d_bits;
  std::memcpy(&d_bits, blk + 2 * i, 2);
  const auto* scales = reinterpret_cast<const int8_t*>(blk + kPackedIQ4XSScalesOffset);
  const auto* lines = reinterpret_cast<const uint8_t*>(blk + kPackedIQ4XSCodesOffset);
  int32_t dots = 0;
  for (int j = 0; j < 8; ++j) {
    const int p = j / 2, half = j % 2;
    int32_t dot = 0;
    for (int t = 0; t < 8; ++t) {
      for (int k = 0; k < 4; ++k) {
        const uint8_t byte = lines[64 * (8 * p + t) + 4 * i + k];
        const int code = half == 0 ? byte & 0x0f : byte >> 4;
        dot += iq::kIq4nlValues[code] * xq[32 * j + 4 * t + k];
      }
    }
    dots += scales[32 * p + 2 * i + half] * dot;
  }
  return std::fma(static_cast<float>(dots), fp16_to_fp32(d_bits) * xd, acc);
}

}  // namespace

void matmul_packed_iq4_xs_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_oracle_rows(a, o_begin, o_end, kQKK, kPackedIQ4XSBlockBytes,
                     [](const std::byte* blk, int i, const Q8Row& x, int64_t s, float acc) {
                       return super_block_step(blk, i, x.q + s * kQKK, x.d[s], acc);
                     });
}

}  // namespace reference
}  // namespace strata::kernels
