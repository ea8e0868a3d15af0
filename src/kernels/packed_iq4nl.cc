#include "kernels/packed_iq4nl.h"

#include <cmath>
#include <cstddef>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/packed_groups.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"

namespace strata::kernels {

size_t packed_iq4_nl_bytes(int64_t n_out, int64_t n_in) { return packed_q4_0_bytes(n_out, n_in); }

void pack_iq4_nl(const WeightMatrix& w, std::byte* dst) {
  static_assert(sizeof(BlockIQ4_NL) == sizeof(BlockQ4_0) && offsetof(BlockIQ4_NL, d) == offsetof(BlockQ4_0, d) &&
                offsetof(BlockIQ4_NL, qs) == offsetof(BlockQ4_0, qs));
  pack_q4_0(w, dst);
}

namespace reference {

namespace {

// Lane k's exact dot of one row (lane i of its group) with the block's activations.
int32_t lane_dot(const std::byte* blk, int i, const int8_t* xq, int k) {
  const auto* line = reinterpret_cast<const uint8_t*>(blk + kPackedIQ4NLCodesOffset) + 64 * (k % 4) + 4 * i;
  int32_t dot = 0;
  for (int e = 0; e < 4; ++e) {
    const int code = k < 4 ? line[e] & 0x0f : line[e] >> 4;
    dot += iq::kIq4nlValues[code] * xq[4 * k + e];
  }
  return dot;
}

// One output row against one activation row: the arithmetic of packed_iq4nl.h.
float row_dot(const std::byte* group, int64_t n_blocks, int i, const Q8Row& x) {
  float lane[8] = {};
  for (int64_t s = 0; s < n_blocks; ++s) {
    const std::byte* blk = group + s * kPackedIQ4NLBlockBytes;
    uint16_t d_bits;
    std::memcpy(&d_bits, blk + 2 * i, 2);
    const float scale = fp16_to_fp32(d_bits) * x.d[s];
    for (int k = 0; k < 8; ++k) {
      lane[k] = std::fma(static_cast<float>(lane_dot(blk, i, x.q + s * kQK, k)), scale, lane[k]);
    }
  }
  return ((lane[0] + lane[4]) + (lane[2] + lane[6])) + ((lane[1] + lane[5]) + (lane[3] + lane[7]));
}

}  // namespace

void matmul_packed_iq4_nl_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / kQK;
  const auto* packed = static_cast<const std::byte*>(w.packed);
  for (int r = 0; r < a.n_rows; ++r) {
    const Q8Row x = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
    for (int64_t o = o_begin; o < o_end; ++o) {
      const std::byte* group = packed + (o / kPackedGroupRows) * n_blocks * kPackedIQ4NLBlockBytes;
      a.y[static_cast<int64_t>(r) * w.n_out + o] = row_dot(group, n_blocks, static_cast<int>(o % kPackedGroupRows), x);
    }
  }
}

}  // namespace reference
}  // namespace strata::kernels
