// The lattice i-quant encoders (quantize_iq_lattice*.cc): the search finds the exact nearest
// grid entry, each encoded group decodes to the nearest entry of its scaled values, values
// on the grid come back as the same floats and bytes, Gaussian rows stay within a measured
// error bound, and partial blocks are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "tensor/half.h"
#include "tensor/iq_grids.h"
#include "tensor/quantize.h"
#include "tensor/quantize_iq_lattice_search.h"
#include "tensor/quantize_test_rows.h"

namespace strata {
// Named so that the helpers below do not clash with quantize_lowbit_test.cc's in a unity build.
namespace iq_lattice_test {
namespace {

using iq::LatticeSearch;

constexpr DType kTypes[] = {DType::kIQ2_XXS, DType::kIQ2_XS, DType::kIQ2_S, DType::kIQ3_XXS,
                            DType::kIQ3_S,   DType::kIQ1_S,  DType::kIQ1_M};

const LatticeSearch& search_of(DType type) {
  switch (type) {
    case DType::kIQ2_XXS: return iq::iq2xxs_search();
    case DType::kIQ2_XS: return iq::iq2xs_search();
    case DType::kIQ2_S: return iq::iq2s_search();
    case DType::kIQ3_XXS: return iq::iq3xxs_search();
    case DType::kIQ3_S: return iq::iq3s_search();
    default: return iq::iq1s_search();
  }
}

bool is_iq1(DType type) { return type == DType::kIQ1_S || type == DType::kIQ1_M; }

// The brute force: every entry's distance2 to the clamped query, the lowest index on ties.
int brute_nearest(const LatticeSearch& s, const float* t) {
  float c[8];
  for (int j = 0; j < s.dims(); ++j) c[j] = s.clamp(t[j]);
  int best = 0;
  for (int e = 1; e < s.size(); ++e) {
    if (s.distance2(c, e) < s.distance2(c, best)) best = e;
  }
  return best;
}

TEST(IqLatticeSearchTest, FindsTheNearestEntryAsABruteForceDoes) {
  std::mt19937 rng(3);
  for (DType type : {DType::kIQ2_XXS, DType::kIQ2_XS, DType::kIQ2_S, DType::kIQ3_XXS, DType::kIQ3_S, DType::kIQ1_S}) {
    const LatticeSearch& s = search_of(type);
    const float lo = is_iq1(type) ? -1.25f : 0.0f, hi = s.top_level() + (is_iq1(type) ? 0.25f : 0.0f);
    std::uniform_real_distribution<float> wide(lo - 0.2f * (hi - lo), hi + 0.2f * (hi - lo));
    std::normal_distribution<float> near_zero(0.0f, 0.2f * (hi - lo));
    std::vector<float> points;  // levels and midpoints: exact ties between entries
    for (int e = 0; e < s.size(); ++e) points.insert(points.end(), s.entry(e), s.entry(e) + s.dims());
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    for (size_t k = 0, n = points.size(); k + 1 < n; ++k) points.push_back((points[k] + points[k + 1]) * 0.5f);
    std::uniform_int_distribution<size_t> pick(0, points.size() - 1);
    for (int q = 0; q < 600; ++q) {
      float t[8];
      for (int j = 0; j < s.dims(); ++j) {
        t[j] = q % 3 == 0 ? wide(rng) : q % 3 == 1 ? std::fabs(near_zero(rng)) * (is_iq1(type) ? 0.5f : 1.0f)
                                                   : points[pick(rng)];
      }
      float d2 = -1;
      const int got = s.nearest(t, &d2);
      const int want = brute_nearest(s, t);
      ASSERT_EQ(got, want) << dtype_name(type) << " query " << q;
      float c[8];
      for (int j = 0; j < s.dims(); ++j) c[j] = s.clamp(t[j]);
      EXPECT_EQ(d2, s.distance2(c, want));
    }
  }
}

using quantize_test::decode;
using quantize_test::encode;
using quantize_test::weights_row;

uint16_t u16_at(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
uint32_t u32_at(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// What the format stores for group g (8 elements) of block b: its scale (with the decoder's
// float expression) and, for IQ1, its shift. Offsets from block_layouts.h.
struct GroupScale {
  float scale;
  float delta;
};

GroupScale group_scale(DType type, const uint8_t* b, int g) {
  const int ib = g / 4, half = (g % 4) / 2;
  const float d = half_to_float(u16_at(b));
  switch (type) {
    case DType::kIQ2_XXS: return {d * (0.5f + (u32_at(b + 2 + 8 * ib + 4) >> 28)) * 0.25f, 0};
    case DType::kIQ2_XS: return {d * (0.5f + ((b[66 + ib] >> (4 * half)) & 15)) * 0.25f, 0};
    case DType::kIQ2_S: return {d * (0.5f + ((b[74 + ib] >> (4 * half)) & 15)) * 0.25f, 0};
    case DType::kIQ3_XXS: return {d * (0.5f + (u32_at(b + 66 + 4 * ib) >> 28)) * 0.5f, 0};
    case DType::kIQ3_S: return {d * (1 + 2 * ((b[106 + ib / 2] >> (4 * (ib % 2))) & 15)), 0};
    case DType::kIQ1_S: {
      const uint16_t qh = u16_at(b + 34 + 2 * ib);
      return {d * (2 * ((qh >> 12) & 7) + 1), (qh & 0x8000) != 0 ? -iq::kIq1Delta : iq::kIq1Delta};
    }
    default: {  // IQ1_M
      uint16_t sc[4];
      std::memcpy(sc, b + 48, 8);
      const auto d_bits = static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0xf0) | ((sc[2] >> 4) & 0xf00) |
                                                (sc[3] & 0xf000));
      const int code = (sc[ib / 2] >> (6 * (ib % 2) + 3 * half)) & 7;
      const bool minus = ((b[32 + 2 * ib + half] >> (4 * (g % 2))) & 8) != 0;
      return {half_to_float(d_bits) * (2 * code + 1), minus ? -iq::kIq1Delta : iq::kIq1Delta};
    }
  }
}

// Each group decodes to scale times the brute-force nearest entry of its scaled values
// (|x| / scale for IQ2 / IQ3, x / scale - delta for IQ1), with x's signs except at most one
// flipped element where the format keeps an even number of minus signs.
TEST(QuantizeIqLatticeTest, EachGroupIsTheNearestEntryOfItsScaledValues) {
  for (DType type : kTypes) {
    const LatticeSearch& s = search_of(type);
    const std::vector<float> x = weights_row(4 * 256, 17);
    const std::vector<uint8_t> bytes = encode(type, x);
    const std::vector<float> y = decode(type, bytes.data(), x.size());
    const size_t block_bytes = bytes.size() / 4;
    for (int g = 0; g < 128; ++g) {
      const GroupScale gs = group_scale(type, bytes.data() + block_bytes * (g / 32), g % 32);
      const float* xg = x.data() + 8 * g;
      float want[8];
      for (int h = 0; h < 8; h += s.dims()) {
        float t[8];
        for (int j = 0; j < s.dims(); ++j) {
          t[j] = is_iq1(type) ? xg[h + j] / gs.scale - gs.delta : std::fabs(xg[h + j]) / gs.scale;
        }
        const float* e = s.entry(brute_nearest(s, t));
        for (int j = 0; j < s.dims(); ++j) want[h + j] = is_iq1(type) ? gs.scale * (e[j] + gs.delta) : gs.scale * e[j];
      }
      float got[8];
      int flipped = 0;
      for (int j = 0; j < 8; ++j) {
        got[j] = is_iq1(type) ? y[8 * g + j] : std::fabs(y[8 * g + j]);
        flipped += !is_iq1(type) && (y[8 * g + j] < 0) != (xg[j] < 0);
      }
      EXPECT_EQ(0, std::memcmp(got, want, sizeof got)) << dtype_name(type) << " group " << g;
      const bool parity_type = type == DType::kIQ2_XXS || type == DType::kIQ2_XS || type == DType::kIQ3_XXS;
      EXPECT_LE(flipped, parity_type ? 1 : 0) << dtype_name(type) << " group " << g;
    }
  }
}

// The first entry whose element 0 is the grid's top level (IQ1: +1), an index below 256.
int top_entry(DType type) {
  const LatticeSearch& s = search_of(type);
  int e = 0;
  while (s.entry(e)[0] != s.top_level()) ++e;
  return e;
}

void set_u32_top_nibble(uint8_t* p, uint32_t nibble) {
  const uint32_t v = (u32_at(p) & 0x0fffffffu) | (nibble << 28);
  std::memcpy(p, &v, 4);
}

// A random block the encoder can find again: every scale unit (sub-block) holds an element
// at the top of the grid (IQ1: at 1 + delta, the shift plus), sub-block 0 has the largest
// code (so the f16 scale is found again), and d is a normal f16.
std::vector<uint8_t> on_grid_block(DType type, std::mt19937& rng) {
  std::vector<uint8_t> b(*dtype_row_bytes(type, 256));
  for (auto& v : b) v = static_cast<uint8_t>(rng());
  const uint16_t d = float_to_half(std::uniform_real_distribution<float>(0.5e-3f, 2e-3f)(rng));
  const auto top = static_cast<uint8_t>(top_entry(type));
  if (type != DType::kIQ1_M) std::memcpy(b.data(), &d, 2);
  for (int ib = 0; ib < 8; ++ib) {
    switch (type) {
      case DType::kIQ2_XXS: b[2 + 8 * ib] = top; break;
      case DType::kIQ2_XS:
        for (int l : {0, 2}) b[2 + 2 * (4 * ib + l)] = top, b[3 + 2 * (4 * ib + l)] &= 0xfe;
        break;
      case DType::kIQ2_S:
        b[2 + 4 * ib] = b[2 + 4 * ib + 2] = top;
        b[66 + ib] &= 0xcc;  // the high index bits of groups 0 and 2
        break;
      case DType::kIQ3_XXS: b[2 + 8 * ib] = top; break;
      case DType::kIQ3_S: b[2 + 8 * ib] = top, b[66 + ib] &= 0xfe; break;
      case DType::kIQ1_S:
        b[2 + 4 * ib] = top;
        b[34 + 2 * ib] &= 0xf8, b[35 + 2 * ib] &= 0x7f;  // high index bits of group 0, shift plus
        break;
      default:  // IQ1_M: groups 0 and 2, high index bits and shift sign in the low nibbles
        b[4 * ib] = b[4 * ib + 2] = top;
        b[32 + 2 * ib] &= 0xf0, b[33 + 2 * ib] &= 0xf0;
        break;
    }
  }
  switch (type) {
    case DType::kIQ2_XXS: set_u32_top_nibble(b.data() + 6, 15); break;
    case DType::kIQ2_XS: b[66] |= 0x0f; break;
    case DType::kIQ2_S: b[74] |= 0x0f; break;
    case DType::kIQ3_XXS: set_u32_top_nibble(b.data() + 66, 15); break;
    case DType::kIQ3_S: b[106] |= 0x0f; break;
    case DType::kIQ1_S: b[35] |= 0x70; break;
    default: {
      uint16_t sc[4];
      std::memcpy(sc, b.data() + 48, 8);
      sc[0] |= 7;
      for (int i = 0; i < 4; ++i) sc[i] = static_cast<uint16_t>((sc[i] & 0x0fff) | (((d >> (4 * i)) & 15) << 12));
      std::memcpy(b.data() + 48, sc, 8);
    }
  }
  return b;
}

TEST(QuantizeIqLatticeTest, ValuesOnTheGridComeBackAsTheSameFloatsAndBytes) {
  std::mt19937 rng(7);
  for (DType type : kTypes) {
    for (int trial = 0; trial < 50; ++trial) {
      const std::vector<uint8_t> block = on_grid_block(type, rng);
      const std::vector<float> y = decode(type, block.data(), 256);
      const std::vector<uint8_t> again = encode(type, y);
      const std::vector<float> y2 = decode(type, again.data(), 256);
      ASSERT_EQ(0, std::memcmp(y.data(), y2.data(), 256 * sizeof(float))) << dtype_name(type) << " trial " << trial;
      EXPECT_EQ(block, again) << dtype_name(type) << " trial " << trial;
    }
  }
}

double rms_rel(const std::vector<float>& x, const std::vector<float>& y) {
  double err = 0, signal = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    err += (static_cast<double>(y[i]) - x[i]) * (y[i] - x[i]);
    signal += static_cast<double>(x[i]) * x[i];
  }
  return std::sqrt(err / signal);
}

// RMS error over RMS signal on Gaussian rows with outliers (8x every 61st element, so about
// every other 32-element sub-block holds one). Round to nearest with the scale from each
// sub-block's largest magnitude puts the grid's top level on that outlier, and the bulk of
// the sub-block falls onto the lowest levels: the fewer the levels, the larger the error.
// Measured: IQ3_S 0.183 (8 levels, dense grid), IQ3_XXS 0.234 (8 levels, sparse grid),
// IQ2_S 0.397 / IQ2_XS 0.416 (3 levels, scale per 16 elements; denser grid, lower),
// IQ2_XXS 0.566 (scale per 32), IQ1_M 0.502 (shift per 8), IQ1_S 0.663 (shift per 32).
// Bounds ~1.05x those; all-zero codes give 1.0.
double rms_bound(DType type) {
  switch (type) {
    case DType::kIQ3_S: return 0.20;
    case DType::kIQ3_XXS: return 0.25;
    case DType::kIQ2_S: return 0.42;
    case DType::kIQ2_XS: return 0.44;
    case DType::kIQ2_XXS: return 0.60;
    case DType::kIQ1_M: return 0.53;
    default: return 0.70;  // IQ1_S
  }
}

TEST(QuantizeIqLatticeTest, GaussianRowsStayWithinTheTypesErrorBound) {
  const std::vector<float> x = weights_row(8192, 11);
  for (DType type : kTypes) {
    const double rel = rms_rel(x, decode(type, encode(type, x).data(), x.size()));
    const std::vector<uint8_t> zero_codes(*dtype_row_bytes(type, x.size()), 0);
    EXPECT_LT(rel, rms_bound(type)) << dtype_name(type);
    EXPECT_LT(rel, rms_rel(x, decode(type, zero_codes.data(), x.size()))) << dtype_name(type);
    RecordProperty(std::string(dtype_name(type)) + "_rms_rel", std::to_string(rel));
  }
}

TEST(QuantizeIqLatticeTest, RefusesPartialBlocksNamingTheType) {
  std::vector<float> x(300, 0.5f);
  std::vector<uint8_t> out(4096);
  for (DType type : kTypes) {
    EXPECT_TRUE(can_quantize(type)) << dtype_name(type);
    const Status st = quantize_row(type, x.data(), out.data(), 300);
    EXPECT_EQ(st.code(), Code::kInvalidArgument) << dtype_name(type);
    EXPECT_NE(st.message().find(std::string(dtype_name(type)) + ": 300 elements are not whole blocks of 256"),
              std::string::npos)
        << st.message();
  }
}

TEST(QuantizeIqLatticeTest, NonFiniteAndZeroInputDoNotCrash) {
  std::vector<float> x(256, 0.0f);
  std::vector<uint8_t> out(4096);
  for (DType type : kTypes) {
    EXPECT_TRUE(quantize_row(type, x.data(), out.data(), 256).ok());
    const std::vector<float> y = decode(type, out.data(), 256);
    EXPECT_EQ(y, x) << dtype_name(type);  // a zero block decodes to zeros
  }
  x[3] = std::nanf("");
  x[9] = INFINITY;
  for (DType type : kTypes) EXPECT_TRUE(quantize_row(type, x.data(), out.data(), 256).ok());
}

}  // namespace
}  // namespace iq_lattice_test
}  // namespace strata
