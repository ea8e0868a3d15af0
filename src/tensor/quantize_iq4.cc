// IQ4_NL, IQ4_XS and MXFP4: 4-bit codes selecting one of 16 levels (iq_grids.h, mxfp4.h),
// times a per-block f16 scale (IQ4_NL, blocks of 32), a 6-bit sub-block scale times an f16
// super-block scale (IQ4_XS, blocks of 256) or a per-block power of two (MXFP4, blocks of
// 32); layouts in block_layouts.h.
#include <algorithm>
#include <cmath>

#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/iq_grids.h"
#include "tensor/mxfp4.h"
#include "tensor/quantize.h"
#include "tensor/quantize_rounding.h"

namespace strata {

namespace {

// The code of the level nearest to t (the first in table order on ties).
int nearest_level(const int8_t* levels, float t) {
  int best = 0;
  for (int i = 1; i < 16; ++i) {
    if (std::fabs(t - levels[i]) < std::fabs(t - levels[best])) best = i;
  }
  return best;
}

// 32 elements to nibbles of levels times scale. The scale comes from the extreme element
// (scale ~= x_e / -127), which takes level 0 (-127) even when a rounded scale would move it
// nearer to level 1, so a decoded block yields the same scale and codes again.
void encode_nibbles(const float* x, float scale, uint8_t* qs) {
  uint8_t code[32];
  for (int i = 0; i < 32; ++i) {
    code[i] = static_cast<uint8_t>(scale != 0 ? nearest_level(iq::kIq4nlValues, x[i] / scale) : 8);
  }
  if (scale != 0) code[largest_magnitude_index(x, 32)] = 0;
  for (int j = 0; j < 16; ++j) qs[j] = static_cast<uint8_t>(code[j] | (code[j + 16] << 4));
}

// 32 elements from 16 bytes of nibbles (low nibbles first), each level times scale.
void decode_nibbles(const int8_t* levels, float scale, const uint8_t* qs, float* y) {
  for (int j = 0; j < 16; ++j) {
    y[j] = scale * levels[qs[j] & 0x0f];
    y[j + 16] = scale * levels[qs[j] >> 4];
  }
}

// MXFP4's exponent for a block whose largest magnitude is amax > 0, as ggml and the OCP
// specification choose it: the scale 2^(floor(log2 amax) - 3) (the E2M1 scale 2^(floor(log2
// amax) - 2), halved for the doubled levels), so amax / scale is in [8, 16): the top level 12
// is the nearest for all but the top quarter of that range, which clips to it. frexp gives
// floor(log2 amax) exactly (amax = m * 2^p, m in [0.5, 1): p - 1), and mxfp4_scale(e) is
// 2^(e - 128), so e = p - 1 - 3 + 128: at most 252 for a finite float, below 0 for amax under
// 2^-125, where e = 0 (the smallest scale) is the nearest there is.
uint8_t mxfp4_exponent(float amax) {
  int p = 0;
  std::frexp(amax, &p);
  return static_cast<uint8_t>(std::clamp(p + 124, 0, 254));
}

}  // namespace

void quantize_row_iq4_nl(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockIQ4_NL*>(dst);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float* x = src + b * kBlock32;
    blocks[b].d = float_to_half(x[largest_magnitude_index(x, kBlock32)] / -127.0f);
    encode_nibbles(x, half_to_float(blocks[b].d), blocks[b].qs);
  }
}

// Codes round to the nearest level of x / scale (exact: the scale is a power of two), as
// ggml's reference quantizer does. An all-zero block keeps e = 0 and zero codes. A decoded
// block encodes again to its values: its largest level is 8 or 12 times its scale (the same
// e again) or, if smaller, a level whose multiples by the power of two the new e adds are
// levels too.
void quantize_row_mxfp4(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockMXFP4*>(dst);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    const float* x = src + b * kBlock32;
    const float amax = std::fabs(x[largest_magnitude_index(x, kBlock32)]);
    BlockMXFP4& blk = blocks[b];
    blk.e = amax > 0 ? mxfp4_exponent(amax) : 0;
    const float scale = mxfp4_scale(blk.e);
    for (int j = 0; j < 16; ++j) {
      const int lo = amax > 0 ? nearest_level(kMxfp4Values, x[j] / scale) : 0;
      const int hi = amax > 0 ? nearest_level(kMxfp4Values, x[j + 16] / scale) : 0;
      blk.qs[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

// Sub-block j wants scale s_j = x_e / -127; the super-block scale d makes the largest |s_j|
// the 6-bit scale -32, and each sub-block rounds s_j / d to the nearest of -32..31.
void quantize_row_iq4_xs(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockIQ4_XS*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float* x = src + b * kBlock256;
    BlockIQ4_XS& blk = blocks[b];
    float s[8];
    for (int j = 0; j < 8; ++j) s[j] = x[32 * j + largest_magnitude_index(x + 32 * j, 32)] / -127.0f;
    blk.d = float_to_half(s[largest_magnitude_index(s, 8)] / -32.0f);
    const float d = half_to_float(blk.d);
    blk.scales_h = 0;
    std::fill(std::begin(blk.scales_l), std::end(blk.scales_l), uint8_t{0});
    for (int j = 0; j < 8; ++j) {
      const int ls = d != 0 ? std::clamp(static_cast<int>(std::lround(s[j] / d)), -32, 31) : 0;
      const int stored = ls + 32;
      blk.scales_l[j / 2] = static_cast<uint8_t>(blk.scales_l[j / 2] | ((stored & 0x0f) << (4 * (j % 2))));
      blk.scales_h = static_cast<uint16_t>(blk.scales_h | ((stored >> 4) << (2 * j)));
      encode_nibbles(x + 32 * j, d * ls, blk.qs + 16 * j);
    }
  }
}

void dequantize_row_iq4_nl(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockIQ4_NL*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    decode_nibbles(iq::kIq4nlValues, half_to_float(blocks[b].d), blocks[b].qs, dst + b * kBlock32);
  }
}

void dequantize_row_iq4_xs(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockIQ4_XS*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const BlockIQ4_XS& blk = blocks[b];
    const float d = half_to_float(blk.d);
    for (int ib = 0; ib < 8; ++ib) {
      const int ls = ((blk.scales_l[ib / 2] >> (4 * (ib % 2))) & 0x0f) | (((blk.scales_h >> (2 * ib)) & 3) << 4);
      decode_nibbles(iq::kIq4nlValues, d * (ls - 32), blk.qs + 16 * ib, dst + b * kBlock256 + 32 * ib);
    }
  }
}

void dequantize_row_mxfp4(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockMXFP4*>(src);
  for (size_t b = 0; b < n / kBlock32; ++b) {
    decode_nibbles(kMxfp4Values, mxfp4_scale(blocks[b].e), blocks[b].qs, dst + b * kBlock32);
  }
}

}  // namespace strata
