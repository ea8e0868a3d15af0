// Q2_K and Q3_K: 16 sub-blocks of 16 with 2-bit codes (plus a high bit for Q3_K); layouts
// in block_layouts.h. The float expressions follow the GGUF tools' order.
#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

// The 2-bit code of element e (0..255) of a Q2_K / Q3_K super-block.
int low2(const uint8_t* qs, int e) {
  const int half = e / 128, j = (e % 128) / 32, l = e % 32;
  return (qs[32 * half + l] >> (2 * j)) & 3;
}

// The 6-bit scale (0..63, stored offset by 32) of Q3_K sub-block s: low 4 bits in the
// nibbles of scales[0..7], high 2 bits in scales[8..11].
int q3_k_scale(const uint8_t* scales, int s) {
  const int low4 = s < 8 ? scales[s] & 0x0f : scales[s - 8] >> 4;
  const int high2 = (scales[8 + s % 4] >> (2 * (s / 4))) & 3;
  return low4 | (high2 << 4);
}

// Q3_K's high bit of element e: bit 4 * half + j of hmask[l] (see block_layouts.h).
bool q3_k_high(const uint8_t* hmask, int e) {
  const int half = e / 128, j = (e % 128) / 32, l = e % 32;
  return ((hmask[l] >> (4 * half + j)) & 1) != 0;
}

}  // namespace

void dequantize_row_q2_k(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ2_K*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const BlockQ2_K& blk = blocks[b];
    const float d = half_to_float(blk.d), dmin = half_to_float(blk.dmin);
    float* y = dst + b * kBlock256;
    for (int s = 0; s < 16; ++s) {
      const float dl = d * (blk.scales[s] & 0x0f), ml = dmin * (blk.scales[s] >> 4);
      for (int i = 16 * s; i < 16 * s + 16; ++i) y[i] = dl * low2(blk.qs, i) - ml;
    }
  }
}

void dequantize_row_q3_k(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ3_K*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const BlockQ3_K& blk = blocks[b];
    const float d = half_to_float(blk.d);
    float* y = dst + b * kBlock256;
    for (int s = 0; s < 16; ++s) {
      const float dl = d * (q3_k_scale(blk.scales, s) - 32);
      for (int i = 16 * s; i < 16 * s + 16; ++i) y[i] = dl * (low2(blk.qs, i) - (q3_k_high(blk.hmask, i) ? 0 : 4));
    }
  }
}

}  // namespace strata
