// Round-to-nearest encoders of IQ1_S and IQ1_M (layouts in block_layouts.h, decoders in
// dequantize_iq_lattice.cc): x = scale * (g + delta), g an octet of {-1, 0, 1} from the IQ1
// grid and delta = +-kIq1Delta, one sign per 32 elements (IQ1_S) or per group of 8 (IQ1_M).
// The sub-block scale puts its largest magnitude at 1 + kIq1Delta; each group takes, for
// both shift signs, the exact nearest grid entry to x / scale - delta, and the shift sign
// with the smaller squared distance (plus on ties). Stateless; any thread.
#include <cstring>

#include "tensor/block_layouts.h"
#include "tensor/iq_grids.h"
#include "tensor/quantize.h"
#include "tensor/quantize_iq_lattice_scale.h"
#include "tensor/quantize_iq_lattice_search.h"

namespace strata {

namespace {

using iq::kIq1Delta;

constexpr iq::SubScaleRule kIq1Scale{1.0f, 2.0f, 1.0f, 7};  // d * (2 s + 1)

struct ShiftedGroup {
  int index;
  float distance2;
};

// The nearest grid entry to x / scale - delta for 8 elements.
ShiftedGroup nearest_shifted(const float* x, float scale, float delta) {
  float t[8];
  for (int j = 0; j < 8; ++j) t[j] = (scale > 0 ? x[j] / scale : 0.0f) - delta;
  ShiftedGroup g{};
  g.index = iq::iq1s_search().nearest(t, &g.distance2);
  return g;
}

// Sub-block codes and scales for sub-blocks of `sub` elements; returns the f16 bits of d.
uint16_t iq1_scales(const float* x, int sub, int* code, float* scale) {
  const int n_sub = kBlock256 / sub;
  float wanted[16];
  for (int i = 0; i < n_sub; ++i) wanted[i] = iq::max_magnitude(x + sub * i, sub) / (1.0f + kIq1Delta);
  const uint16_t d_bits = kIq1Scale.super_scale(wanted, n_sub);
  const float d = half_to_float(d_bits);
  for (int i = 0; i < n_sub; ++i) {
    code[i] = kIq1Scale.code(wanted[i], d);
    scale[i] = kIq1Scale.scale(d, code[i]);
  }
  return d_bits;
}

void encode_iq1_s(const float* x, BlockIQ1_S& b) {
  int code[8];
  float scale[8];
  b.d = iq1_scales(x, 32, code, scale);
  for (int ib = 0; ib < 8; ++ib) {
    ShiftedGroup plus[4], minus[4];
    float plus_d2 = 0, minus_d2 = 0;
    for (int l = 0; l < 4; ++l) {
      plus[l] = nearest_shifted(x + 32 * ib + 8 * l, scale[ib], kIq1Delta);
      minus[l] = nearest_shifted(x + 32 * ib + 8 * l, scale[ib], -kIq1Delta);
      plus_d2 += plus[l].distance2;
      minus_d2 += minus[l].distance2;
    }
    const bool use_minus = minus_d2 < plus_d2;
    auto qh = static_cast<uint16_t>((code[ib] << 12) | (use_minus ? 0x8000 : 0));
    for (int l = 0; l < 4; ++l) {
      const int index = use_minus ? minus[l].index : plus[l].index;
      b.qs[4 * ib + l] = static_cast<uint8_t>(index & 0xff);
      qh = static_cast<uint16_t>(qh | ((index >> 8) << (3 * l)));
    }
    b.qh[ib] = qh;
  }
}

void encode_iq1_m(const float* x, BlockIQ1_M& b) {
  int code[16];
  float scale[16];
  const uint16_t d_bits = iq1_scales(x, 16, code, scale);
  uint16_t sc[4] = {};
  for (int ib = 0; ib < 8; ++ib) {
    const int shift = 6 * (ib % 2);
    sc[ib / 2] = static_cast<uint16_t>(sc[ib / 2] | (code[2 * ib] << shift) | (code[2 * ib + 1] << (shift + 3)));
    for (int l = 0; l < 4; ++l) {
      const float* g = x + 32 * ib + 8 * l;
      const ShiftedGroup plus = nearest_shifted(g, scale[2 * ib + l / 2], kIq1Delta);
      const ShiftedGroup minus = nearest_shifted(g, scale[2 * ib + l / 2], -kIq1Delta);
      const bool use_minus = minus.distance2 < plus.distance2;
      const int index = use_minus ? minus.index : plus.index;
      const int nibble = (index >> 8) | (use_minus ? 8 : 0);
      b.qs[4 * ib + l] = static_cast<uint8_t>(index & 0xff);
      uint8_t& qh = b.qh[2 * ib + l / 2];
      qh = static_cast<uint8_t>(l % 2 == 0 ? nibble : (qh | (nibble << 4)));
    }
  }
  // The f16 super-block scale sits in the top nibbles of the four u16, lowest nibble first.
  for (int i = 0; i < 4; ++i) sc[i] = static_cast<uint16_t>(sc[i] | (((d_bits >> (4 * i)) & 0x0f) << 12));
  std::memcpy(b.scales, sc, sizeof sc);
}

template <typename Block, void (*kEncode)(const float*, Block&)>
void encode_iq1_row(const float* src, void* dst, size_t n) {
  auto* blocks = static_cast<Block*>(dst);
  for (size_t b = 0; b < n / kBlock256; ++b) kEncode(src + b * kBlock256, blocks[b]);
}

}  // namespace

void quantize_row_iq1_s(const float* src, void* dst, size_t n) { encode_iq1_row<BlockIQ1_S, encode_iq1_s>(src, dst, n); }
void quantize_row_iq1_m(const float* src, void* dst, size_t n) { encode_iq1_row<BlockIQ1_M, encode_iq1_m>(src, dst, n); }

}  // namespace strata
