// K-quant encoders and decoders (Q4_K, Q5_K, Q6_K); layouts in block_layouts.h.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/quantize.h"
#include "tensor/quantize_rounding.h"

namespace strata {

namespace {

constexpr int kSubBlocks = 8;  // Q4_K / Q5_K sub-blocks of 32

// Inverse of scale_min(): packs eight 6-bit scales and mins into 12 bytes.
void pack_scale_min(const uint8_t* sc, const uint8_t* m, uint8_t* scales) {
  for (int j = 0; j < 4; ++j) {
    scales[j] = static_cast<uint8_t>((sc[j] & 63) | ((sc[j + 4] >> 4) << 6));
    scales[j + 4] = static_cast<uint8_t>((m[j] & 63) | ((m[j + 4] >> 4) << 6));
    scales[j + 8] = static_cast<uint8_t>((sc[j + 4] & 0x0f) | ((m[j + 4] & 0x0f) << 4));
  }
}

// The 6-bit scale and min of sub-block j: j < 4 in the low 6 bits of bytes j and j + 4;
// j >= 4 in the nibbles of byte j + 4 plus the top 2 bits of bytes j - 4 and j.
void scale_min(const uint8_t* scales, int j, int* sc, int* m) {
  if (j < 4) {
    *sc = scales[j] & 63;
    *m = scales[j + 4] & 63;
  } else {
    *sc = (scales[j + 4] & 0x0f) | ((scales[j - 4] >> 6) << 4);
    *m = (scales[j + 4] >> 4) | ((scales[j] >> 6) << 4);
  }
}

// Chooses d, dmin and the 6-bit sub-block scales/mins for a super-block whose codes run
// 0..max_code, then the codes q[256] with x ~= (d * sc) * q - dmin * m.
void fit_k_block(const float* x, int max_code, uint16_t* d_out, uint16_t* dmin_out, uint8_t* scales,
                 uint8_t* q) {
  float step[kSubBlocks], offset[kSubBlocks];
  float max_step = 0, max_offset = 0;
  for (int j = 0; j < kSubBlocks; ++j) {
    const float* xs = x + j * 32;
    float lo = std::min(0.0f, *std::min_element(xs, xs + 32));  // mins are stored as -m, m >= 0
    float hi = *std::max_element(xs, xs + 32);
    step[j] = std::max(hi - lo, 0.0f) / static_cast<float>(max_code);
    offset[j] = -lo;
    max_step = std::max(max_step, step[j]);
    max_offset = std::max(max_offset, offset[j]);
  }
  *d_out = float_to_half(max_step / 63.0f);
  *dmin_out = float_to_half(max_offset / 63.0f);
  float d = half_to_float(*d_out), dmin = half_to_float(*dmin_out);
  uint8_t sc[kSubBlocks], m[kSubBlocks];
  for (int j = 0; j < kSubBlocks; ++j) {
    sc[j] = static_cast<uint8_t>(d > 0 ? round_clamped(step[j] / d, 0, 63) : 0);
    m[j] = static_cast<uint8_t>(dmin > 0 ? round_clamped(offset[j] / dmin, 0, 63) : 0);
  }
  pack_scale_min(sc, m, scales);
  for (int j = 0; j < kSubBlocks; ++j) {
    float scale = d * sc[j], min = dmin * m[j];
    for (int l = 0; l < 32; ++l) {
      q[j * 32 + l] = static_cast<uint8_t>(scale > 0 ? round_clamped((x[j * 32 + l] + min) / scale, 0, max_code) : 0);
    }
  }
}

}  // namespace

void quantize_row_q4_k(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ4_K*>(dst);
  uint8_t q[kBlock256];
  for (size_t b = 0; b < n / kBlock256; ++b) {
    BlockQ4_K& blk = blocks[b];
    fit_k_block(src + b * kBlock256, 15, &blk.d, &blk.dmin, blk.scales, q);
    for (int c = 0; c < 4; ++c) {
      for (int l = 0; l < 32; ++l) blk.qs[32 * c + l] = static_cast<uint8_t>(q[64 * c + l] | (q[64 * c + 32 + l] << 4));
    }
  }
}

void quantize_row_q5_k(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ5_K*>(dst);
  uint8_t q[kBlock256];
  for (size_t b = 0; b < n / kBlock256; ++b) {
    BlockQ5_K& blk = blocks[b];
    fit_k_block(src + b * kBlock256, 31, &blk.d, &blk.dmin, blk.scales, q);
    std::memset(blk.qh, 0, sizeof(blk.qh));
    for (int c = 0; c < 4; ++c) {
      for (int l = 0; l < 32; ++l) {
        int lo = q[64 * c + l], hi = q[64 * c + 32 + l];
        blk.qs[32 * c + l] = static_cast<uint8_t>((lo & 0x0f) | ((hi & 0x0f) << 4));
        blk.qh[l] |= static_cast<uint8_t>(((lo >> 4) << (2 * c)) | ((hi >> 4) << (2 * c + 1)));
      }
    }
  }
}

// Shared by Q4_K and Q5_K: high_bits is null for Q4_K.
template <typename Block>
void dequantize_k(const Block& blk, const uint8_t* high_bits, float* y) {
  float d = half_to_float(blk.d), dmin = half_to_float(blk.dmin);
  for (int c = 0; c < 4; ++c) {
    int sc0, m0, sc1, m1;
    scale_min(blk.scales, 2 * c, &sc0, &m0);
    scale_min(blk.scales, 2 * c + 1, &sc1, &m1);
    float d0 = d * sc0, min0 = dmin * m0, d1 = d * sc1, min1 = dmin * m1;
    for (int l = 0; l < 32; ++l) {
      int lo = blk.qs[32 * c + l] & 0x0f, hi = blk.qs[32 * c + l] >> 4;
      if (high_bits != nullptr) {
        lo |= ((high_bits[l] >> (2 * c)) & 1) << 4;
        hi |= ((high_bits[l] >> (2 * c + 1)) & 1) << 4;
      }
      y[64 * c + l] = d0 * lo - min0;
      y[64 * c + 32 + l] = d1 * hi - min1;
    }
  }
}

void dequantize_row_q4_k(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ4_K*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) dequantize_k(blocks[b], nullptr, dst + b * kBlock256);
}

void dequantize_row_q5_k(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ5_K*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) dequantize_k(blocks[b], blocks[b].qh, dst + b * kBlock256);
}

void quantize_row_q6_k(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<BlockQ6_K*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const float* x = src + b * kBlock256;
    BlockQ6_K& blk = blocks[b];
    float step[16], max_step = 0;
    for (int s = 0; s < 16; ++s) {
      float amax = 0;
      for (int i = 0; i < 16; ++i) amax = std::max(amax, std::fabs(x[16 * s + i]));
      step[s] = amax / 31.0f;  // codes -31..31 keep the range symmetric
      max_step = std::max(max_step, step[s]);
    }
    blk.d = float_to_half(max_step / 127.0f);
    float d = half_to_float(blk.d);
    uint8_t q[kBlock256];
    for (int s = 0; s < 16; ++s) {
      blk.scales[s] = static_cast<int8_t>(d > 0 ? round_clamped(step[s] / d, 0, 127) : 0);
      float scale = d * blk.scales[s];
      for (int i = 0; i < 16; ++i) {
        q[16 * s + i] = static_cast<uint8_t>((scale > 0 ? round_clamped(x[16 * s + i] / scale, -32, 31) : 0) + 32);
      }
    }
    for (int h = 0; h < 2; ++h) {
      const uint8_t* qq = q + 128 * h;
      for (int l = 0; l < 32; ++l) {
        blk.ql[64 * h + l] = static_cast<uint8_t>((qq[l] & 0x0f) | ((qq[l + 64] & 0x0f) << 4));
        blk.ql[64 * h + 32 + l] = static_cast<uint8_t>((qq[l + 32] & 0x0f) | ((qq[l + 96] & 0x0f) << 4));
        blk.qh[32 * h + l] = static_cast<uint8_t>((qq[l] >> 4) | ((qq[l + 32] >> 4) << 2) |
                                                  ((qq[l + 64] >> 4) << 4) | ((qq[l + 96] >> 4) << 6));
      }
    }
  }
}

void dequantize_row_q6_k(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const BlockQ6_K*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) {
    const BlockQ6_K& blk = blocks[b];
    float d = half_to_float(blk.d);
    for (int h = 0; h < 2; ++h) {
      const uint8_t* ql = blk.ql + 64 * h;
      const uint8_t* qh = blk.qh + 32 * h;
      const int8_t* sc = blk.scales + 8 * h;
      float* y = dst + b * kBlock256 + 128 * h;
      for (int l = 0; l < 32; ++l) {
        int s = l / 16;
        int q0 = ((ql[l] & 0x0f) | (((qh[l] >> 0) & 3) << 4)) - 32;
        int q1 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
        int q2 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
        int q3 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
        y[l] = d * sc[s] * q0;
        y[l + 32] = d * sc[s + 2] * q1;
        y[l + 64] = d * sc[s + 4] * q2;
        y[l + 96] = d * sc[s + 6] * q3;
      }
    }
  }
}

}  // namespace strata
