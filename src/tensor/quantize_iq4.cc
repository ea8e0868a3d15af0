// IQ4_NL and IQ4_XS: 4-bit codes selecting one of 16 non-uniform levels (iq_grids.h),
// times a per-block f16 scale (IQ4_NL, blocks of 32) or a 6-bit sub-block scale times an
// f16 super-block scale (IQ4_XS, blocks of 256); layouts in block_layouts.h.
#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/iq_grids.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

// 32 elements from 16 bytes of nibbles (low nibbles first), each level times scale.
void decode_nibbles(float scale, const uint8_t* qs, float* y) {
  for (int j = 0; j < 16; ++j) {
    y[j] = scale * iq::kIq4nlValues[qs[j] & 0x0f];
    y[j + 16] = scale * iq::kIq4nlValues[qs[j] >> 4];
  }
}

}  // namespace

void dequantize_row_iq4_nl(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockIQ4_NL*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    decode_nibbles(half_to_float(blocks[b].d), blocks[b].qs, dst + b * kBlock32);
  }
}

void dequantize_row_iq4_xs(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockIQ4_XS*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const BlockIQ4_XS& blk = blocks[b];
    const float d = half_to_float(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      const int ls = ((blk.scales_l[ib / 2] >> (4 * (ib % 2))) & 0x0f) | (((blk.scales_h >> (2 * ib)) & 3) << 4);
      decode_nibbles(d * (ls - 32), blk.qs + 16 * ib, dst + b * kBlock256 + 32 * ib);
    }
  }
}

}  // namespace strata
