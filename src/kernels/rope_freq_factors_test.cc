// rope with per-pair frequency factors (Llama 3.1's rope_freqs.weight): each pair's angle
// is divided by its factor before linear/YaRN scaling, and all-ones factors change no bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::random_floats;

RopeParams params(int head_dim, bool neox) {
  RopeParams p;
  p.head_dim = head_dim;
  p.n_rot = head_dim;
  p.neox = neox;
  return p;
}

std::vector<float> rotated(const std::vector<float>& x, int n_heads, int pos, const RopeParams& p) {
  std::vector<float> out = x;
  rope(out.data(), n_heads, pos, p);
  return out;
}

TEST(RopeFreqFactors, AllOnesAreBitIdenticalToNone) {
  const std::vector<float> ones(32, 1.0f);
  const std::vector<float> x = random_floats(3 * 64, 21);
  for (bool neox : {false, true}) {
    for (bool yarn : {false, true}) {
      RopeParams plain = params(64, neox);
      if (yarn) {
        plain.freq_scale = 0.25f;
        plain.yarn_orig_ctx = 256;
        plain.yarn_ext_factor = 1.0f;
      }
      RopeParams with_ones = plain;
      with_ones.freq_factors = ones.data();
      for (int pos : {0, 1, 37, 5000}) {
        const std::vector<float> want = rotated(x, 3, pos, plain);
        const std::vector<float> got = rotated(x, 3, pos, with_ones);
        EXPECT_EQ(0, std::memcmp(got.data(), want.data(), sizeof(float) * x.size()))
            << "neox=" << neox << " yarn=" << yarn << " pos=" << pos;
      }
    }
  }
}

// head_dim 4: pair 0 turns base^0 = 1 rad per position, pair 1 turns 1e4^-0.5 = 0.01 rad.
// Factors {2, 8} at position 3 give angles 3 / 2 = 1.5 and 0.03 / 8 = 0.00375 rad.
TEST(RopeFreqFactors, DivideEachPairsAngleInBothLayouts) {
  const float factors[2] = {2.0f, 8.0f};
  RopeParams p = params(4, false);
  p.freq_factors = factors;
  std::vector<float> x = {1, 0, 0, 1};
  rope(x.data(), 1, 3, p);
  EXPECT_NEAR(x[0], std::cos(1.5), 1e-6);
  EXPECT_NEAR(x[1], std::sin(1.5), 1e-6);
  EXPECT_NEAR(x[2], -std::sin(0.00375), 1e-6);
  EXPECT_NEAR(x[3], std::cos(0.00375), 1e-6);

  p.neox = true;
  std::vector<float> y = {1, 0, 0, 1};  // pairs (0, 2) and (1, 3)
  rope(y.data(), 1, 3, p);
  EXPECT_NEAR(y[0], std::cos(1.5), 1e-6);
  EXPECT_NEAR(y[2], std::sin(1.5), 1e-6);
  EXPECT_NEAR(y[1], -std::sin(0.00375), 1e-6);
  EXPECT_NEAR(y[3], std::cos(0.00375), 1e-6);
}

// Random factors on a 64-wide head, against angle_i = pos * base^(-2i/64) / factor_i, and
// dims past n_rot stay put.
TEST(RopeFreqFactors, MatchTheRotationFormulaPerPair) {
  std::vector<float> factors(16);
  for (size_t i = 0; i < factors.size(); ++i) factors[i] = 0.5f + 0.5f * static_cast<float>(i % 7);
  const std::vector<float> x = random_floats(2 * 64, 22);
  for (bool neox : {false, true}) {
    RopeParams p = params(64, neox);
    p.n_rot = 32;
    p.freq_factors = factors.data();
    const int pos = 300;
    const std::vector<float> got = rotated(x, 2, pos, p);
    for (int h = 0; h < 2; ++h) {
      for (int i = 0; i < 16; ++i) {
        const double theta = pos * std::pow(10000.0, -2.0 * i / 32) / factors[i];
        const int i0 = h * 64 + (neox ? i : 2 * i);
        const int i1 = h * 64 + (neox ? i + 16 : 2 * i + 1);
        const double want0 = x[i0] * std::cos(theta) - x[i1] * std::sin(theta);
        const double want1 = x[i0] * std::sin(theta) + x[i1] * std::cos(theta);
        EXPECT_NEAR(got[i0], want0, 2e-6 * (1 + std::fabs(want0))) << "neox=" << neox << " pair " << i;
        EXPECT_NEAR(got[i1], want1, 2e-6 * (1 + std::fabs(want1))) << "neox=" << neox << " pair " << i;
      }
      EXPECT_EQ(0, std::memcmp(&got[h * 64 + 32], &x[h * 64 + 32], sizeof(float) * 32)) << "dims past n_rot moved";
    }
  }
}

// Factors divide the unscaled angle, then linear scaling multiplies it: factor 2 with
// freq_scale 0.5 at position 40 is position 10 unscaled (all steps exact powers of two).
TEST(RopeFreqFactors, ComposeWithLinearScaling) {
  const std::vector<float> twos(32, 2.0f);
  RopeParams p = params(64, false);
  p.freq_factors = twos.data();
  p.freq_scale = 0.5f;
  const std::vector<float> x = random_floats(64, 23);
  const std::vector<float> got = rotated(x, 1, 40, p);
  const std::vector<float> want = rotated(x, 1, 10, params(64, false));
  EXPECT_EQ(0, std::memcmp(got.data(), want.data(), sizeof(float) * 64));
}

// Under YaRN the factors apply before the ramp: the fast pair (extrapolated) turns by the
// factored angle unscaled, the slow pair (interpolated) by the factored angle times
// freq_scale, both with YaRN's magnitude correction.
TEST(RopeFreqFactors, ApplyBeforeTheYarnRamp) {
  std::vector<float> factors(64, 1.0f);
  factors[0] = 3.0f;
  factors[63] = 5.0f;
  RopeParams yarn = params(128, false);
  yarn.freq_factors = factors.data();
  yarn.freq_scale = 0.25f;
  yarn.yarn_orig_ctx = 4096;
  yarn.yarn_ext_factor = 1.0f;
  const int pos = 3000;
  const std::vector<float> x = random_floats(128, 24);
  const std::vector<float> got = rotated(x, 1, pos, yarn);
  const double mscale = 1.0 + 0.1 * std::log(4.0);
  for (int i : {0, 63}) {
    double theta = pos * std::pow(10000.0, -2.0 * i / 128) / factors[i];
    if (i == 63) theta *= 0.25;
    const double want0 = (x[2 * i] * std::cos(theta) - x[2 * i + 1] * std::sin(theta)) * mscale;
    const double want1 = (x[2 * i] * std::sin(theta) + x[2 * i + 1] * std::cos(theta)) * mscale;
    EXPECT_NEAR(got[2 * i], want0, 1e-5) << "pair " << i;
    EXPECT_NEAR(got[2 * i + 1], want1, 1e-5) << "pair " << i;
  }
}

}  // namespace
}  // namespace strata::kernels
