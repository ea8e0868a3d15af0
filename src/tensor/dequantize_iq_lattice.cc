// Decoders of the lattice i-quants (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S);
// layouts in block_layouts.h, codebooks in iq_grids.h. Each group of 8 (or 4) elements is a
// grid point times a scale, with signs (IQ2/IQ3) or a shift (IQ1). The float expressions
// follow the GGUF tools' order ((d * s) * grid * sign), so results match bit for bit.
#include <cstring>

#include "tensor/block_layouts.h"
#include "tensor/half.h"
#include "tensor/iq_grids.h"
#include "tensor/quantize.h"

namespace strata {

namespace {

using iq::grid_byte;
using iq::sign_set_from7;

// y[j] = scale * grid byte j, negated where bit j of signs is set, for j < n.
void signed_group(float scale, uint64_t grid_entry, uint8_t signs, int n, float* y) {
  for (int j = 0; j < n; ++j) {
    y[j] = scale * grid_byte(grid_entry, j) * ((signs >> j) & 1 ? -1.0f : 1.0f);
  }
}

uint32_t load_u32(const void* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void decode_iq2_xxs(const BlockIQ2_XXS& b, float* y) {
  const float d = half_to_float(b.d);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const uint32_t indices = load_u32(b.qs + 4 * ib);
    const uint32_t signs_scale = load_u32(b.qs + 4 * ib + 2);
    const float db = d * (0.5f + (signs_scale >> 28)) * 0.25f;
    for (int l = 0; l < 4; ++l) {
      const uint8_t signs = sign_set_from7(signs_scale >> (7 * l));
      signed_group(db, iq::kIq2xxsGrid[(indices >> (8 * l)) & 0xff], signs, 8, y + 8 * l);
    }
  }
}

void decode_iq2_xs(const BlockIQ2_XS& b, float* y) {
  const float d = half_to_float(b.d);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const float db[2] = {d * (0.5f + (b.scales[ib] & 0x0f)) * 0.25f, d * (0.5f + (b.scales[ib] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const uint16_t q = b.qs[4 * ib + l];
      signed_group(db[l / 2], iq::kIq2xsGrid[q & 511], sign_set_from7(q >> 9), 8, y + 8 * l);
    }
  }
}

void decode_iq2_s(const BlockIQ2_S& b, float* y) {
  const float d = half_to_float(b.d);
  const uint8_t* signs = b.qs + kBlock256 / 8;
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const float db[2] = {d * (0.5f + (b.scales[ib] & 0x0f)) * 0.25f, d * (0.5f + (b.scales[ib] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const int index = b.qs[4 * ib + l] | ((b.qh[ib] << (8 - 2 * l)) & 0x300);
      signed_group(db[l / 2], iq::kIq2sGrid[index], signs[4 * ib + l], 8, y + 8 * l);
    }
  }
}

void decode_iq3_xxs(const BlockIQ3_XXS& b, float* y) {
  const float d = half_to_float(b.d);
  const uint8_t* scales_and_signs = b.qs + kBlock256 / 4;
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const uint32_t aux = load_u32(scales_and_signs + 4 * ib);
    const float db = d * (0.5f + (aux >> 28)) * 0.5f;
    const uint8_t* qs = b.qs + 8 * ib;
    for (int l = 0; l < 4; ++l) {
      const uint8_t signs = sign_set_from7(aux >> (7 * l));
      signed_group(db, iq::kIq3xxsGrid[qs[2 * l]], signs, 4, y + 8 * l);
      signed_group(db, iq::kIq3xxsGrid[qs[2 * l + 1]], static_cast<uint8_t>(signs >> 4), 4, y + 8 * l + 4);
    }
  }
}

void decode_iq3_s(const BlockIQ3_S& b, float* y) {
  const float d = half_to_float(b.d);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const int scale = (b.scales[ib / 2] >> (4 * (ib % 2))) & 0x0f;
    const float db = d * (1 + 2 * scale);
    const uint8_t* qs = b.qs + 8 * ib;
    const int qh = b.qh[ib];
    for (int l = 0; l < 4; ++l) {
      const uint8_t signs = b.signs[4 * ib + l];
      const int index0 = qs[2 * l] | ((qh << (8 - 2 * l)) & 256);
      const int index1 = qs[2 * l + 1] | ((qh << (7 - 2 * l)) & 256);
      signed_group(db, iq::kIq3sGrid[index0], signs, 4, y + 8 * l);
      signed_group(db, iq::kIq3sGrid[index1], static_cast<uint8_t>(signs >> 4), 4, y + 8 * l + 4);
    }
  }
}

// y[j] = scale * (grid value j + delta) for one IQ1 group of 8.
void shifted_group(float scale, float delta, uint64_t grid_entry, float* y) {
  for (int j = 0; j < 8; ++j) y[j] = scale * (static_cast<int8_t>(grid_byte(grid_entry, j)) + delta);
}

void decode_iq1_s(const BlockIQ1_S& b, float* y) {
  const float d = half_to_float(b.d);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const uint16_t qh = b.qh[ib];
    const float dl = d * (2 * ((qh >> 12) & 7) + 1);
    const float delta = (qh & 0x8000) != 0 ? -iq::kIq1Delta : iq::kIq1Delta;
    for (int l = 0; l < 4; ++l) {
      const int index = b.qs[4 * ib + l] | (((qh >> (3 * l)) & 7) << 8);
      shifted_group(dl, delta, iq::kIq1sGrid[index], y + 8 * l);
    }
  }
}

void decode_iq1_m(const BlockIQ1_M& b, float* y) {
  uint16_t sc[4];
  std::memcpy(sc, b.scales, sizeof sc);
  const auto d_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) |
                                            (sc[3] & 0xf000));
  const float d = half_to_float(d_bits);
  for (int ib = 0; ib < 8; ++ib, y += 32) {
    const int shift = 6 * (ib % 2);
    const float dl[2] = {d * (2 * ((sc[ib / 2] >> shift) & 7) + 1), d * (2 * ((sc[ib / 2] >> (shift + 3)) & 7) + 1)};
    const uint8_t* qs = b.qs + 4 * ib;
    const uint8_t* qh = b.qh + 2 * ib;
    for (int l = 0; l < 4; ++l) {
      // Group l's 3 high index bits and shift sign sit in the low (even l) or high nibble of qh[l / 2].
      const int nibble = (qh[l / 2] >> (4 * (l % 2))) & 0x0f;
      const int index = qs[l] | ((nibble & 7) << 8);
      const float delta = (nibble & 8) != 0 ? -iq::kIq1Delta : iq::kIq1Delta;
      shifted_group(dl[l / 2], delta, iq::kIq1sGrid[index], y + 8 * l);
    }
  }
}

template <typename Block, void (*kDecode)(const Block&, float*)>
void decode_row(const void* src, float* dst, size_t n) {
  const auto* blocks = static_cast<const Block*>(src);
  for (size_t b = 0; b < n / kBlock256; ++b) kDecode(blocks[b], dst + b * kBlock256);
}

}  // namespace

void dequantize_row_iq2_xxs(const void* src, float* dst, size_t n) {
  decode_row<BlockIQ2_XXS, decode_iq2_xxs>(src, dst, n);
}
void dequantize_row_iq2_xs(const void* src, float* dst, size_t n) {
  decode_row<BlockIQ2_XS, decode_iq2_xs>(src, dst, n);
}
void dequantize_row_iq2_s(const void* src, float* dst, size_t n) { decode_row<BlockIQ2_S, decode_iq2_s>(src, dst, n); }
void dequantize_row_iq3_xxs(const void* src, float* dst, size_t n) {
  decode_row<BlockIQ3_XXS, decode_iq3_xxs>(src, dst, n);
}
void dequantize_row_iq3_s(const void* src, float* dst, size_t n) { decode_row<BlockIQ3_S, decode_iq3_s>(src, dst, n); }
void dequantize_row_iq1_s(const void* src, float* dst, size_t n) { decode_row<BlockIQ1_S, decode_iq1_s>(src, dst, n); }
void dequantize_row_iq1_m(const void* src, float* dst, size_t n) { decode_row<BlockIQ1_M, decode_iq1_m>(src, dst, n); }

}  // namespace strata
