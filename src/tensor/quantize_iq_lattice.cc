// Round-to-nearest encoders of IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS and IQ3_S (layouts in
// block_layouts.h, the decoders in dequantize_iq_lattice.cc). Per sub-block the scale comes
// from its largest magnitude (quantize_iq_lattice_scale.h); each group of 8 (IQ2) or 4
// (IQ3) magnitudes |x| / scale takes the exact nearest grid entry (quantize_iq_lattice_search.h)
// and the signs are stored as the format has them (IQ2_S / IQ3_S: 8 bits; the others 7 bits
// with an even number of minus signs, made so by flipping the cheapest element). No error
// search and no importance matrix: enough for generated models. Stateless; any thread.
#include <cmath>
#include <cstring>

#include "tensor/block_layouts.h"
#include "tensor/quantize.h"
#include "tensor/quantize_iq_lattice_scale.h"
#include "tensor/quantize_iq_lattice_search.h"

namespace strata {

namespace {

using iq::LatticeSearch;
using iq::SubScaleRule;

constexpr SubScaleRule kIq2Scale{0.5f, 1.0f, 0.25f, 15};   // d * (0.5 + s) * 0.25
constexpr SubScaleRule kIq3xxsScale{0.5f, 1.0f, 0.5f, 15}; // d * (0.5 + s) * 0.5
constexpr SubScaleRule kIq3sScale{1.0f, 2.0f, 1.0f, 15};   // d * (1 + 2 s)

// The nearest entry to the magnitudes |x| / scale of search.dims() elements; writes the
// entry's coordinates to magnitude.
int nearest_magnitudes(const LatticeSearch& search, const float* x, float scale, float* magnitude) {
  float t[LatticeSearch::kMaxDims];
  for (int j = 0; j < search.dims(); ++j) t[j] = scale > 0 ? std::fabs(x[j]) / scale : 0.0f;
  const int index = search.nearest(t);
  std::memcpy(magnitude, search.entry(index), sizeof(float) * search.dims());
  return index;
}

// Per sub-block of `sub` elements of a 256-element block: the scale wished for (largest
// magnitude on the grid's top level), the f16 super-block scale, and each sub-block's code.
struct BlockScales {
  uint16_t d_bits;
  int code[16];
  float scale[16];
};

BlockScales block_scales(const float* x, int sub, const SubScaleRule& rule, float top_level) {
  const int n_sub = kBlock256 / sub;
  float wanted[16];
  for (int i = 0; i < n_sub; ++i) wanted[i] = iq::max_magnitude(x + sub * i, sub) / top_level;
  BlockScales s{};
  s.d_bits = rule.super_scale(wanted, n_sub);
  const float d = half_to_float(s.d_bits);
  for (int i = 0; i < n_sub; ++i) {
    s.code[i] = rule.code(wanted[i], d);
    s.scale[i] = rule.scale(d, s.code[i]);
  }
  return s;
}

void store_u32(void* p, uint32_t v) { std::memcpy(p, &v, sizeof v); }

void encode_iq2_xxs(const float* x, BlockIQ2_XXS& b) {
  const LatticeSearch& search = iq::iq2xxs_search();
  const BlockScales s = block_scales(x, 32, kIq2Scale, search.top_level());
  b.d = s.d_bits;
  for (int ib = 0; ib < 8; ++ib) {
    uint32_t indices = 0, signs_scale = static_cast<uint32_t>(s.code[ib]) << 28;
    for (int l = 0; l < 4; ++l) {
      const float* g = x + 32 * ib + 8 * l;
      float magnitude[8];
      indices |= static_cast<uint32_t>(nearest_magnitudes(search, g, s.scale[ib], magnitude)) << (8 * l);
      signs_scale |= static_cast<uint32_t>(iq::even_sign_bits(g, magnitude) & 127) << (7 * l);
    }
    store_u32(b.qs + 4 * ib, indices);
    store_u32(b.qs + 4 * ib + 2, signs_scale);
  }
}

void encode_iq2_xs(const float* x, BlockIQ2_XS& b) {
  const LatticeSearch& search = iq::iq2xs_search();
  const BlockScales s = block_scales(x, 16, kIq2Scale, search.top_level());
  b.d = s.d_bits;
  for (int ib = 0; ib < 8; ++ib) {
    b.scales[ib] = static_cast<uint8_t>(s.code[2 * ib] | (s.code[2 * ib + 1] << 4));
    for (int l = 0; l < 4; ++l) {
      const float* g = x + 32 * ib + 8 * l;
      float magnitude[8];
      const int index = nearest_magnitudes(search, g, s.scale[2 * ib + l / 2], magnitude);
      b.qs[4 * ib + l] = static_cast<uint16_t>(index | ((iq::even_sign_bits(g, magnitude) & 127) << 9));
    }
  }
}

void encode_iq2_s(const float* x, BlockIQ2_S& b) {
  const LatticeSearch& search = iq::iq2s_search();
  const BlockScales s = block_scales(x, 16, kIq2Scale, search.top_level());
  b.d = s.d_bits;
  uint8_t* signs = b.qs + kBlock256 / 8;
  for (int ib = 0; ib < 8; ++ib) {
    b.scales[ib] = static_cast<uint8_t>(s.code[2 * ib] | (s.code[2 * ib + 1] << 4));
    b.qh[ib] = 0;
    for (int l = 0; l < 4; ++l) {
      const float* g = x + 32 * ib + 8 * l;
      float magnitude[8];
      const int index = nearest_magnitudes(search, g, s.scale[2 * ib + l / 2], magnitude);
      b.qs[4 * ib + l] = static_cast<uint8_t>(index & 0xff);
      b.qh[ib] = static_cast<uint8_t>(b.qh[ib] | ((index >> 8) << (2 * l)));
      signs[4 * ib + l] = iq::sign_bits(g, 8);
    }
  }
}

void encode_iq3_xxs(const float* x, BlockIQ3_XXS& b) {
  const LatticeSearch& search = iq::iq3xxs_search();
  const BlockScales s = block_scales(x, 32, kIq3xxsScale, search.top_level());
  b.d = s.d_bits;
  uint8_t* scales_and_signs = b.qs + kBlock256 / 4;
  for (int ib = 0; ib < 8; ++ib) {
    uint32_t aux = static_cast<uint32_t>(s.code[ib]) << 28;
    for (int l = 0; l < 4; ++l) {
      const float* g = x + 32 * ib + 8 * l;
      float magnitude[8];
      b.qs[8 * ib + 2 * l] = static_cast<uint8_t>(nearest_magnitudes(search, g, s.scale[ib], magnitude));
      b.qs[8 * ib + 2 * l + 1] = static_cast<uint8_t>(nearest_magnitudes(search, g + 4, s.scale[ib], magnitude + 4));
      aux |= static_cast<uint32_t>(iq::even_sign_bits(g, magnitude) & 127) << (7 * l);
    }
    store_u32(scales_and_signs + 4 * ib, aux);
  }
}

void encode_iq3_s(const float* x, BlockIQ3_S& b) {
  const LatticeSearch& search = iq::iq3s_search();
  const BlockScales s = block_scales(x, 32, kIq3sScale, search.top_level());
  b.d = s.d_bits;
  std::memset(b.scales, 0, sizeof b.scales);
  for (int ib = 0; ib < 8; ++ib) {
    b.scales[ib / 2] = static_cast<uint8_t>(b.scales[ib / 2] | (s.code[ib] << (4 * (ib % 2))));
    b.qh[ib] = 0;
    for (int l = 0; l < 4; ++l) {
      const float* g = x + 32 * ib + 8 * l;
      float magnitude[8];
      const int index0 = nearest_magnitudes(search, g, s.scale[ib], magnitude);
      const int index1 = nearest_magnitudes(search, g + 4, s.scale[ib], magnitude + 4);
      b.qs[8 * ib + 2 * l] = static_cast<uint8_t>(index0 & 0xff);
      b.qs[8 * ib + 2 * l + 1] = static_cast<uint8_t>(index1 & 0xff);
      b.qh[ib] = static_cast<uint8_t>(b.qh[ib] | ((index0 >> 8) << (2 * l)) | ((index1 >> 8) << (2 * l + 1)));
      b.signs[4 * ib + l] = iq::sign_bits(g, 8);
    }
  }
}

template <typename Block, void (*kEncode)(const float*, Block&)>
void encode_lattice_row(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<Block*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) kEncode(src + b * kBlock256, blocks[b]);
}

}  // namespace

void quantize_row_iq2_xxs(const float* src, void* dst, size_t n) {
  encode_lattice_row<BlockIQ2_XXS, encode_iq2_xxs>(src, dst, n);
}
void quantize_row_iq2_xs(const float* src, void* dst, size_t n) { encode_lattice_row<BlockIQ2_XS, encode_iq2_xs>(src, dst, n); }
void quantize_row_iq2_s(const float* src, void* dst, size_t n) { encode_lattice_row<BlockIQ2_S, encode_iq2_s>(src, dst, n); }
void quantize_row_iq3_xxs(const float* src, void* dst, size_t n) {
  encode_lattice_row<BlockIQ3_XXS, encode_iq3_xxs>(src, dst, n);
}
void quantize_row_iq3_s(const float* src, void* dst, size_t n) { encode_lattice_row<BlockIQ3_S, encode_iq3_s>(src, dst, n); }

}  // namespace strata
