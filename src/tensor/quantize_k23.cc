// Q2_K and Q3_K: 16 sub-blocks of 16 with 2-bit codes (plus a high bit for Q3_K); layouts
// in block_layouts.h. The float expressions follow the GGUF tools' order.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/quantize.h"
#include "tensor/quantize_rounding.h"

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

// Packs the 2 low bits of codes v[256] (0..3) in the Q2_K / Q3_K order (see low2()).
void pack_low2(const uint8_t* v, uint8_t* qs) {
  std::memset(qs, 0, kBlock256 / 4);
  for (int e = 0; e < kBlock256; ++e) {
    const int half = e / 128, j = (e % 128) / 32, l = e % 32;
    qs[32 * half + l] = static_cast<uint8_t>(qs[32 * half + l] | ((v[e] & 3) << (2 * j)));
  }
}

// Q2_K sub-block j: codes 0..3 over [lo, hi] with lo = min(0, min x) (mins are stored as
// offsets -lo >= 0). Returns the codes in v; the minimum (when negative) takes code 0 and
// the maximum code 3, so a decoded block yields the same scales and codes again.
void encode_q2_k_sub(const float* x, float scale, float min, bool negative, uint8_t* v) {
  for (int i = 0; i < 16; ++i) v[i] = static_cast<uint8_t>(scale > 0 ? round_clamped((x[i] + min) / scale, 0, 3) : 0);
  if (scale <= 0) return;
  v[std::max_element(x, x + 16) - x] = 3;
  if (negative) v[std::min_element(x, x + 16) - x] = 0;
}

}  // namespace

void quantize_row_q2_k(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ2_K*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float* x = src + b * kBlock256;
    BlockQ2_K& blk = blocks[b];
    float step[16], offset[16], max_step = 0, max_offset = 0;
    for (int j = 0; j < 16; ++j) {
      const float lo = std::min(0.0f, *std::min_element(x + 16 * j, x + 16 * j + 16));
      const float hi = *std::max_element(x + 16 * j, x + 16 * j + 16);
      step[j] = (hi - lo) / 3.0f;
      offset[j] = -lo;
      max_step = std::max(max_step, step[j]);
      max_offset = std::max(max_offset, offset[j]);
    }
    blk.d = float_to_half(max_step / 15.0f);
    blk.dmin = float_to_half(max_offset / 15.0f);
    const float d = half_to_float(blk.d), dmin = half_to_float(blk.dmin);
    uint8_t v[kBlock256];
    for (int j = 0; j < 16; ++j) {
      const int sc = d > 0 ? round_clamped(step[j] / d, 0, 15) : 0;
      const int m = dmin > 0 ? round_clamped(offset[j] / dmin, 0, 15) : 0;
      blk.scales[j] = static_cast<uint8_t>(sc | (m << 4));
      encode_q2_k_sub(x + 16 * j, d * sc, dmin * m, offset[j] > 0, v + 16 * j);
    }
    pack_low2(v, blk.qs);
  }
}

// Q3_K sub-block j wants scale s_j = x_e / -4 (its extreme element at code -4); the
// super-block scale d makes the largest |s_j| the 6-bit scale -32, and each sub-block
// rounds s_j / d to the nearest of -32..31. The extreme element keeps code -4, so a decoded
// block yields the same scales and codes again.
void quantize_row_q3_k(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ3_K*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float* x = src + b * kBlock256;
    BlockQ3_K& blk = blocks[b];
    float s[16];
    for (int j = 0; j < 16; ++j) s[j] = x[16 * j + largest_magnitude_index(x + 16 * j, 16)] / -4.0f;
    blk.d = float_to_half(s[largest_magnitude_index(s, 16)] / -32.0f);
    const float d = half_to_float(blk.d);
    std::memset(blk.scales, 0, sizeof blk.scales);
    std::memset(blk.hmask, 0, sizeof blk.hmask);
    uint8_t v[kBlock256];  // code + 4, 0..7
    for (int j = 0; j < 16; ++j) {
      const int ls = d != 0 ? round_clamped(s[j] / d, -32, 31) : 0;
      const int stored = ls + 32;
      blk.scales[j % 8] = static_cast<uint8_t>(blk.scales[j % 8] | ((stored & 0x0f) << (j < 8 ? 0 : 4)));
      blk.scales[8 + j % 4] = static_cast<uint8_t>(blk.scales[8 + j % 4] | ((stored >> 4) << (2 * (j / 4))));
      const float dl = d * ls;
      for (int i = 0; i < 16; ++i) {
        v[16 * j + i] = static_cast<uint8_t>((dl != 0 ? round_clamped(x[16 * j + i] / dl, -4, 3) : 0) + 4);
      }
      if (dl != 0) v[16 * j + largest_magnitude_index(x + 16 * j, 16)] = 0;
    }
    pack_low2(v, blk.qs);
    for (int e = 0; e < kBlock256; ++e) {
      const int half = e / 128, j = (e % 128) / 32, l = e % 32;
      if (v[e] >= 4) blk.hmask[l] = static_cast<uint8_t>(blk.hmask[l] | (1 << (4 * half + j)));
    }
  }
}

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
