// TQ1_0 and TQ2_0, ggml's ternary types (BitNet b1.58): every weight of a 256-element block is
// -d, 0 or +d with d the block's largest magnitude (block_layouts.h has the layouts).
//
// The encoders are ggml's reference quantizers (quantize_row_tq1_0_ref / _tq2_0_ref) in
// effect, so they write the same bytes: d = max |x| stored as f16, each x * (1 / max |x|)
// (the float, not the f16) rounded half away from zero to -1, 0 or 1, and TQ1_0's trits
// packed five (four in qh) to a byte as the ceiling of their base-3 value times 256 / 243.
#include <cmath>
#include <cstring>

#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};

// Trit n (0 = the most significant) of a TQ1_0 byte: shifting the stored fraction up n trits
// is a multiply by 3^n modulo 256, and its top trit is the integer part of 3 times it.
int ternary_trit(uint8_t q, int n) {
  const auto shifted = static_cast<uint8_t>(q * kPow3[n]);
  return (shifted * 3) >> 8;
}

// x * id rounded as lroundf rounds (half away from zero), 0..2 for -1..1. |x * id| <= 1 up to
// a rounding of id, so only those three values occur; a NaN gives the middle one.
int ternary_code(float x, float id) {
  const float v = x * id;
  if (v >= 0.5f) return 2;
  if (v <= -0.5f) return 0;
  return 1;
}

// The block's largest magnitude (NaNs skipped) and its inverse (0 for an all-zero block).
float block_amax(const float* x, float* id) {
  float amax = 0.0f;
  for (int i = 0; i < kBlock256; ++i) {
    if (std::fabs(x[i]) > amax) amax = std::fabs(x[i]);
  }
  *id = amax != 0.0f ? 1.0f / amax : 0.0f;
  return amax;
}

// Packs `count` codes (0..2; the first the most significant trit) and `pad` trailing zero
// trits into one byte, as the ceiling of their base-3 value * 256 / 243.
uint8_t pack_trits(const int* codes, int count, int pad) {
  int v = 0;
  for (int i = 0; i < count; ++i) v = v * 3 + codes[i];
  for (int i = 0; i < pad; ++i) v *= 3;
  return static_cast<uint8_t>((v * 256 + 242) / 243);
}

// Packs elements base + m + stride * n (n < 5) of x into byte m of out, for m < count.
void pack_group_of_five(const float* x, float id, int base, int stride, int count, uint8_t* out) {
  for (int m = 0; m < count; ++m) {
    int codes[5];
    for (int n = 0; n < 5; ++n) codes[n] = ternary_code(x[base + m + stride * n], id);
    out[m] = pack_trits(codes, 5, 0);
  }
}

}  // namespace

void quantize_row_tq1_0(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockTQ1_0*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float* x = src + b * kBlock256;
    float id;
    blocks[b].d = float_to_half(block_amax(x, &id));
    pack_group_of_five(x, id, 0, 32, 32, blocks[b].qs);
    pack_group_of_five(x, id, 160, 16, 16, blocks[b].qs + 32);
    for (int j = 0; j < 4; ++j) {
      int codes[4];
      for (int m = 0; m < 4; ++m) codes[m] = ternary_code(x[240 + j + 4 * m], id);
      blocks[b].qh[j] = pack_trits(codes, 4, 1);
    }
  }
}

void dequantize_row_tq1_0(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockTQ1_0*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float d = half_to_float(blocks[b].d);
    float* y = dst + b * kBlock256;
    for (int t = 0; t < 5; ++t) {
      for (int m = 0; m < 32; ++m) y[32 * t + m] = static_cast<float>(ternary_trit(blocks[b].qs[m], t) - 1) * d;
      for (int m = 0; m < 16; ++m) {
        y[160 + 16 * t + m] = static_cast<float>(ternary_trit(blocks[b].qs[32 + m], t) - 1) * d;
      }
    }
    for (int t = 0; t < 4; ++t) {
      for (int j = 0; j < 4; ++j) y[240 + 4 * t + j] = static_cast<float>(ternary_trit(blocks[b].qh[j], t) - 1) * d;
    }
  }
}

void quantize_row_tq2_0(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockTQ2_0*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float* x = src + b * kBlock256;
    float id;
    blocks[b].d = float_to_half(block_amax(x, &id));
    for (int h = 0; h < 2; ++h) {
      for (int m = 0; m < 32; ++m) {
        int q = 0;
        for (int l = 0; l < 4; ++l) q |= ternary_code(x[128 * h + 32 * l + m], id) << (2 * l);
        blocks[b].qs[32 * h + m] = static_cast<uint8_t>(q);
      }
    }
  }
}

void dequantize_row_tq2_0(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockTQ2_0*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float d = half_to_float(blocks[b].d);
    float* y = dst + b * kBlock256;
    for (int h = 0; h < 2; ++h) {
      for (int l = 0; l < 4; ++l) {
        for (int m = 0; m < 32; ++m) {
          const int c = (blocks[b].qs[32 * h + m] >> (2 * l)) & 3;
          y[128 * h + 32 * l + m] = static_cast<float>(c - 1) * d;
        }
      }
    }
  }
}

}  // namespace strata
