#include "kernels/packed_iq4nl.h"

#include <cmath>
#include <cstddef>
#include <cstring>

#include "kernels/fp16.h"
#include "kernels/packed_groups.h"
#include "kernels/quant_blocks.h"
#include "tensor/iq_grids.h"
#include "tensor/mxfp4.h"

namespace strata::kernels {

size_t packed_iq4_nl_bytes(int64_t n_out, int64_t n_in) { return packed_q4_0_bytes(n_out, n_in); }

size_t packed_mxfp4_bytes(int64_t n_out, int64_t n_in) { return packed_q4_0_bytes(n_out, n_in); }

void pack_iq4_nl(const WeightMatrix& w, std::byte* dst) {
  static_assert(sizeof(BlockIQ4_NL) == sizeof(BlockQ4_0) && offsetof(BlockIQ4_NL, d) == offsetof(BlockQ4_0, d) &&
                offsetof(BlockIQ4_NL, qs) == offsetof(BlockQ4_0, qs));
  pack_q4_0(w, dst);
}

void pack_mxfp4(const WeightMatrix& w, std::byte* dst) {
  // Padding rows stay all zero.
  pack_groups(w, kQK, kPackedMXFP4BlockBytes, sizeof(BlockMXFP4), dst, [](const std::byte* src, int i, std::byte* out) {
    if (src == nullptr) return;
    const auto* b = reinterpret_cast<const BlockMXFP4*>(src);
    const auto bf16 = static_cast<uint16_t>(float_to_bits(mxfp4_scale(b->e)) >> 16);  // exact
    std::memcpy(out + 2 * i, &bf16, 2);
    for (int c = 0; c < 4; ++c) std::memcpy(out + kPackedMXFP4CodesOffset + 64 * c + 4 * i, b->qs + 4 * c, 4);
  });
}

namespace reference {

namespace {

// What the two packed layouts differ in: the levels and row i's scale.
struct PackedLevels4 {
  const int8_t* levels;
  float (*scale)(const std::byte* blk, int i);
};

float iq4_nl_scale(const std::byte* blk, int i) {
  uint16_t d_bits;
  std::memcpy(&d_bits, blk + 2 * i, 2);
  return fp16_to_fp32(d_bits);
}

float mxfp4_row_scale(const std::byte* blk, int i) {
  uint16_t bf16;
  std::memcpy(&bf16, blk + 2 * i, 2);
  return bf16_to_fp32(bf16);
}

constexpr PackedLevels4 kPackedIq4NlFormat{iq::kIq4nlValues, iq4_nl_scale};
constexpr PackedLevels4 kPackedMxfp4Format{kMxfp4Values, mxfp4_row_scale};

// The exact int32 dot of one row (lane i of its group) with the block's 32 activations.
int32_t block_dot(const PackedLevels4& f, const std::byte* blk, int i, const int8_t* xq) {
  int32_t dot = 0;
  for (int c = 0; c < 4; ++c) {
    const auto* line = reinterpret_cast<const uint8_t*>(blk + kPackedIQ4NLCodesOffset) + 64 * c + 4 * i;
    for (int e = 0; e < 4; ++e) {
      dot += f.levels[line[e] & 0x0f] * xq[4 * c + e] + f.levels[line[e] >> 4] * xq[16 + 4 * c + e];
    }
  }
  return dot;
}

// One output row against one activation row: the arithmetic of packed_iq4nl.h.
float row_dot(const PackedLevels4& f, const std::byte* group, int64_t n_blocks, int i, const Q8Row& x) {
  float acc = 0.0f;
  for (int64_t s = 0; s < n_blocks; ++s) {
    const std::byte* blk = group + s * kPackedIQ4NLBlockBytes;
    acc = std::fma(static_cast<float>(block_dot(f, blk, i, x.q + s * kQK)), f.scale(blk, i) * x.d[s], acc);
  }
  return acc;
}

void packed_levels4_rows(const PackedLevels4& f, const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  const WeightMatrix& w = *a.w;
  const int64_t n_blocks = w.n_in / kQK;
  const auto* packed = static_cast<const std::byte*>(w.packed);
  for (int r = 0; r < a.n_rows; ++r) {
    const Q8Row x = q8_row(a.xq + static_cast<size_t>(r) * a.xq_layout.row_bytes, a.xq_layout);
    for (int64_t o = o_begin; o < o_end; ++o) {
      const std::byte* group = packed + (o / kPackedGroupRows) * n_blocks * kPackedIQ4NLBlockBytes;
      a.y[static_cast<int64_t>(r) * w.n_out + o] =
          row_dot(f, group, n_blocks, static_cast<int>(o % kPackedGroupRows), x);
    }
  }
}

}  // namespace

void matmul_packed_iq4_nl_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_levels4_rows(kPackedIq4NlFormat, a, o_begin, o_end);
}

void matmul_packed_mxfp4_rows(const MatmulArgs& a, int64_t o_begin, int64_t o_end) {
  packed_levels4_rows(kPackedMxfp4Format, a, o_begin, o_end);
}

}  // namespace reference
}  // namespace strata::kernels
