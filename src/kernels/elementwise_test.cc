// rmsnorm, layernorm, silu_mul, gelu_mul, rope and argmax against float64 formulas, and SIMD against scalar.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/reference/reference.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::random_floats;
using testing::runnable_tables;

TEST(RmsNorm, MatchesFloat64FormulaOnEveryTable) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : {1, 7, 64, 100, 2048}) {
      const std::vector<float> x = random_floats(n, 1), w = random_floats(n, 2);
      std::vector<float> out(n);
      t->rmsnorm(x.data(), w.data(), n, 1e-5f, out.data());
      double ss = 0.0;
      for (float v : x) ss += static_cast<double>(v) * v;
      const double scale = 1.0 / std::sqrt(ss / n + 1e-5);
      for (int i = 0; i < n; ++i) {
        const double want = x[i] * scale * w[i];
        // float32 sum of n squares (relative error <= n * 2^-24), a rounded sqrt and two
        // rounded multiplies.
        EXPECT_NEAR(out[i], want, std::fabs(want) * (n + 8) * 6e-8) << t->name << " n=" << n << " i=" << i;
      }
    }
  }
}

TEST(LayerNorm, MatchesFloat64FormulaAndCanAliasItsInput) {
  for (int n : {1, 7, 64, 2048}) {
    std::vector<float> x = random_floats(n, 5), w = random_floats(n, 6), out(n);
    for (float& v : x) v += 3.0f;  // a mean far from 0, which the norm must take out
    layernorm(x.data(), w.data(), n, 1e-5f, out.data());
    double mean = 0.0, var = 0.0;
    for (float v : x) mean += v;
    mean /= n;
    for (float v : x) var += (v - mean) * (v - mean);
    var /= n;
    const double scale = 1.0 / std::sqrt(var + 1e-5);
    for (int i = 0; i < n; ++i) {
      const double want = (x[i] - mean) * scale * w[i];
      EXPECT_NEAR(out[i], want, 1e-5 * (std::fabs(want) + 1.0)) << "n=" << n << " i=" << i;
    }
    layernorm(x.data(), w.data(), n, 1e-5f, x.data());
    EXPECT_EQ(std::memcmp(x.data(), out.data(), sizeof(float) * n), 0) << n;
  }
}

TEST(RmsNorm, OutputCanAliasInput) {
  std::vector<float> x = random_floats(64, 3), w = random_floats(64, 4), want(64);
  active_table().rmsnorm(x.data(), w.data(), 64, 1e-6f, want.data());
  active_table().rmsnorm(x.data(), w.data(), 64, 1e-6f, x.data());
  EXPECT_EQ(0, std::memcmp(x.data(), want.data(), sizeof(float) * 64));
}

TEST(SiluMul, MatchesFloat64FormulaOnEveryTable) {
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> g = random_floats(203, 5, 4.0f), u = random_floats(203, 6);
    g[0] = -100.0f;  // exp overflow region
    g[1] = 100.0f;
    g[2] = 0.0f;
    std::vector<float> out = g;
    t->silu_mul(out.data(), u.data(), 203);
    for (int i = 0; i < 203; ++i) {
      const double want = g[i] / (1.0 + std::exp(-static_cast<double>(g[i]))) * u[i];
      // exp within 2 ulp, then a divide and a multiply.
      EXPECT_NEAR(out[i], want, std::fabs(want) * 5e-7 + 1e-30) << t->name << " g=" << g[i];
    }
  }
}

// The tanh form in float64. Tables differ in form (the scalar one computes 1 + tanh(u), which
// cancels for negative g; the SIMD ones g / (1 + e^-2u)), so the bound has an absolute part
// of a few float ulps of g * u besides the relative one.
TEST(GeluMul, MatchesFloat64FormulaOnEveryTable) {
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> g = random_floats(203, 7, 4.0f), u = random_floats(203, 8);
    g[0] = -100.0f;  // exp overflow region
    g[1] = 100.0f;
    g[2] = 0.0f;
    std::vector<float> out = g;
    t->gelu_mul(out.data(), u.data(), 203);
    for (int i = 0; i < 203; ++i) {
      const double x = g[i];
      const double want = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x))) * u[i];
      EXPECT_NEAR(out[i], want, std::fabs(want) * 2e-6 + std::fabs(x * u[i]) * 2e-7) << t->name << " g=" << g[i];
    }
  }
}

// Both clamps matter: the gate's from above only (a very negative gate still gives ~0), the
// linear part's on both sides.
TEST(SwigluOai, MatchesFloat64FormulaWithItsClampsOnEveryTable) {
  for (const KernelTable* t : runnable_tables()) {
    std::vector<float> g = random_floats(203, 9, 10.0f), u = random_floats(203, 10, 10.0f);
    g[0] = 50.0f, u[0] = 0.5f;    // gate clamped to 7
    g[1] = -50.0f, u[1] = 3.0f;   // not clamped below: sigmoid ~ 0
    g[2] = 2.0f, u[2] = 20.0f;    // linear part clamped to 7
    g[3] = 2.0f, u[3] = -20.0f;   // ... and to -7
    g[200] = 30.0f, u[200] = -9.0f;  // the scalar tail of a SIMD table: both clamps
    std::vector<float> out = g;
    t->swiglu_oai(out.data(), u.data(), 203);
    for (int i = 0; i < 203; ++i) {
      const double x = std::min<double>(g[i], 7.0);
      const double y = std::clamp<double>(u[i], -7.0, 7.0);
      const double want = x / (1.0 + std::exp(-1.702 * x)) * (y + 1.0);
      EXPECT_NEAR(out[i], want, std::fabs(want) * 2e-6 + 1e-30) << t->name << " g=" << g[i] << " u=" << u[i];
    }
    EXPECT_FLOAT_EQ(out[2], static_cast<float>(2.0 / (1.0 + std::exp(-3.404)) * 8.0)) << t->name;
  }
}

// Step 3.5's clamped SwiGLU: silu(g) clamped from above only, u on both sides, at limit 5.
TEST(SiluMulClamped, MatchesFloat64FormulaWithItsClamps) {
  std::vector<float> g = random_floats(203, 11, 10.0f), u = random_floats(203, 12, 10.0f);
  g[0] = 50.0f, u[0] = 0.5f;    // silu(g) clamped to 5
  g[1] = -50.0f, u[1] = 3.0f;   // not clamped below: silu ~ 0
  g[2] = 2.0f, u[2] = 20.0f;    // linear part clamped to 5
  g[3] = 2.0f, u[3] = -20.0f;   // ... and to -5
  std::vector<float> out = g;
  silu_mul_clamped(out.data(), u.data(), 203, 5.0f);
  for (int i = 0; i < 203; ++i) {
    const double silu = g[i] / (1.0 + std::exp(-static_cast<double>(g[i])));
    const double want = std::min(silu, 5.0) * std::clamp<double>(u[i], -5.0, 5.0);
    EXPECT_NEAR(out[i], want, std::fabs(want) * 5e-7 + 1e-30) << "g=" << g[i] << " u=" << u[i];
  }
  EXPECT_FLOAT_EQ(out[0], 2.5f);
  EXPECT_FLOAT_EQ(out[2], static_cast<float>(2.0 / (1.0 + std::exp(-2.0)) * 5.0));
}

std::vector<float> naive_rope(const std::vector<float>& x, int n_heads, int pos, const RopeParams& p) {
  std::vector<float> out = x;
  for (int h = 0; h < n_heads; ++h) {
    for (int i = 0; i < p.n_rot / 2; ++i) {
      const double theta = p.freq_scale * pos * std::pow(static_cast<double>(p.freq_base), -2.0 * i / p.n_rot);
      const int i0 = h * p.head_dim + (p.neox ? i : 2 * i);
      const int i1 = h * p.head_dim + (p.neox ? i + p.n_rot / 2 : 2 * i + 1);
      out[i0] = static_cast<float>(x[i0] * std::cos(theta) - x[i1] * std::sin(theta));
      out[i1] = static_cast<float>(x[i0] * std::sin(theta) + x[i1] * std::cos(theta));
    }
  }
  return out;
}

TEST(Rope, NormalAndNeoxMatchTheRotationFormula) {
  for (bool neox : {false, true}) {
    for (int n_rot : {64, 32}) {
      RopeParams p;
      p.head_dim = 64;
      p.n_rot = n_rot;
      p.neox = neox;
      p.freq_base = 10000.0f;
      const std::vector<float> x = random_floats(3 * 64, 7);
      for (int pos : {0, 1, 17, 2047}) {
        std::vector<float> got = x;
        rope(got.data(), 3, pos, p);
        const std::vector<float> want = naive_rope(x, 3, pos, p);
        for (size_t i = 0; i < x.size(); ++i) {
          EXPECT_NEAR(got[i], want[i], 2e-6 * (1 + std::fabs(want[i]))) << "neox=" << neox << " pos=" << pos << " i=" << i;
        }
        if (n_rot < 64) {
          for (int h = 0; h < 3; ++h) {
            EXPECT_EQ(0, std::memcmp(&got[h * 64 + n_rot], &x[h * 64 + n_rot], sizeof(float) * (64 - n_rot)))
                << "dims past n_rot must not move";
          }
        }
      }
    }
  }
}

TEST(Rope, AdjacentPairsForNormalHalvesForNeox) {
  RopeParams p;
  p.head_dim = 4;
  p.n_rot = 4;
  std::vector<float> x = {1, 0, 1, 0};
  rope(x.data(), 1, 1, p);  // pair 0 turns by 1 rad, pair 1 by 1e4^-0.5 = 0.01 rad
  EXPECT_NEAR(x[0], std::cos(1.0), 1e-6);
  EXPECT_NEAR(x[1], std::sin(1.0), 1e-6);
  EXPECT_NEAR(x[2], std::cos(0.01), 1e-6);
  EXPECT_NEAR(x[3], std::sin(0.01), 1e-6);
  p.neox = true;
  std::vector<float> y = {1, 1, 0, 0};
  rope(y.data(), 1, 1, p);  // pairs (0, 2) and (1, 3)
  EXPECT_NEAR(y[0], std::cos(1.0), 1e-6);
  EXPECT_NEAR(y[2], std::sin(1.0), 1e-6);
  EXPECT_NEAR(y[1], std::cos(0.01), 1e-6);
  EXPECT_NEAR(y[3], std::sin(0.01), 1e-6);
}

TEST(Rope, LinearScalingCompressesPositions) {
  RopeParams p;
  p.head_dim = 64;
  p.n_rot = 64;
  const std::vector<float> x = random_floats(64, 8);
  std::vector<float> scaled = x, plain = x;
  p.freq_scale = 0.25f;
  rope(scaled.data(), 1, 40, p);
  p.freq_scale = 1.0f;
  rope(plain.data(), 1, 10, p);
  EXPECT_EQ(0, std::memcmp(scaled.data(), plain.data(), sizeof(float) * 64));
}

TEST(Rope, YarnKeepsFastDimsExtrapolatesSlowOnesAndScalesMagnitude) {
  RopeParams p;
  p.head_dim = 128;
  p.n_rot = 128;
  p.freq_scale = 0.25f;
  p.yarn_orig_ctx = 4096;
  p.yarn_ext_factor = 1.0f;
  const int pos = 3000;
  const std::vector<float> x = random_floats(128, 9);
  std::vector<float> yarn = x;
  rope(yarn.data(), 1, pos, p);
  const double mscale = 1.0 + 0.1 * std::log(4.0);
  // Pair 0 turns fastest: below the ramp, so it rotates as if unscaled (extrapolation).
  RopeParams unscaled = p;
  unscaled.freq_scale = 1.0f;
  unscaled.yarn_ext_factor = 0.0f;
  std::vector<float> plain = x;
  rope(plain.data(), 1, pos, unscaled);
  EXPECT_NEAR(yarn[0], plain[0] * mscale, 1e-5);
  EXPECT_NEAR(yarn[1], plain[1] * mscale, 1e-5);
  // The last pair turns slowest: above the ramp, fully interpolated (linear scaling).
  RopeParams linear = unscaled;
  linear.freq_scale = 0.25f;
  std::vector<float> lin = x;
  rope(lin.data(), 1, pos, linear);
  EXPECT_NEAR(yarn[126], lin[126] * mscale, 1e-5);
  EXPECT_NEAR(yarn[127], lin[127] * mscale, 1e-5);
}

TEST(Argmax, FirstIndexOfTheLargestAndNansNeverWin) {
  for (const KernelTable* t : runnable_tables()) {
    const std::vector<float> a = {1, 3, 2, 3};
    EXPECT_EQ(1, t->argmax(a.data(), 4)) << t->name;
    const std::vector<float> b = {NAN, -5, -1, NAN};
    EXPECT_EQ(2, t->argmax(b.data(), 4)) << t->name;
    std::vector<float> c = random_floats(32000, 10);
    c[31999] = 1e9f;
    EXPECT_EQ(31999, t->argmax(c.data(), 32000)) << t->name;
  }
  EXPECT_EQ(-1, argmax(nullptr, 0));
}

}  // namespace
}  // namespace strata::kernels
