// Kimi Delta Attention's elementwise kernels, kda_decay, kda_softplus_decay (Kimi Linear's) and
// sigmoid_mul: every table within a first-order error bound of the float64 formula over tail
// lengths and a wide range of inputs, the same bits on every call, a tail element the same as
// inside a full block, and the AVX-512 build giving the AVX2 bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/table_list.h"

namespace strata::kernels {
namespace {

using testing::runnable_tables;

constexpr double kFloatUnitRoundoff = 1.0 / (1 << 24);  // float32's
// Relative error of e^x in float: exp_ps is within 2 ulp of expf, expf within 1 ulp of e^x, and
// an ulp is at most 2u of the value (std::exp in the reference is within the last part alone).
constexpr double kExpError = 6 * kFloatUnitRoundoff;

// The lengths: one lane, a tail alone, one block, a block and a tail, four blocks and a tail,
// and a head of 512 keys.
constexpr int kLengths[] = {1, 7, 8, 9, 33, 512};

// n floats of random sign and magnitude log-uniform over [1e-3, 1e3], with the edges of exp's
// range (its clamps at -87 and 88), far past them, and 0 at positions that depend on the seed.
std::vector<float> wide_floats(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> exponent(-3.0, 3.0);
  std::vector<float> x(n);
  for (float& v : x) v = static_cast<float>(std::pow(10.0, exponent(rng)) * (rng() % 2 == 0 ? 1 : -1));
  constexpr float kEdges[] = {0.0f, 87.5f, -87.5f, 88.5f, -88.5f, 1e30f, -1e30f, 20.0f, -20.0f};
  for (size_t e = 0; e < std::size(kEdges); ++e) x[(seed + 5 * e) % n] = kEdges[e];
  return x;
}

bool same_float_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

struct DecayParams {
  float rate, bound;
};
// Ling 3.0's bound of -5 with rates of both signs, and a tighter and a looser bound.
constexpr DecayParams kDecayParams[] = {{1.0f, -5.0f}, {-0.37f, -5.0f}, {3.5f, -1.0f}, {0.8f, -20.0f}};

std::vector<float> run_kda_decay(const KernelTable& t, const std::vector<float>& f, const std::vector<float>& bias,
                                 DecayParams p) {
  std::vector<float> decay(f.size());
  t.kda_decay(f.data(), bias.data(), p.rate, p.bound, static_cast<int>(f.size()), decay.data());
  return decay;
}

// exp(bound sigmoid(x)), x = rate (f + bias), in float64 from the float inputs, and a first-order
// bound on a float kernel's relative error: x carries 2u (an add, a multiply), e^-x that plus
// kExpError, y = bound sigmoid(x) = bound / (1 + e^-x) takes (1 - s) of e^-x's error and 2u of
// its own, and e^y kExpError plus y's absolute error. That last term is e^y's condition number
// |y| at work, which any float evaluation has (the reference too): over a million inputs the
// worst error is about 3 ulp at bound -1, 9 at Ling 3.0's -5 and 35 at -20, 0.47, 0.62 and 0.80
// of this bound (the SIMD tables; the reference's are the same or lower).
struct Float64Decay {
  double value, bound;
};

Float64Decay kda_decay_float64(float f, float bias, DecayParams p) {
  const double u = kFloatUnitRoundoff;
  const double x = static_cast<double>(p.rate) * (static_cast<double>(f) + bias);
  const double s = 1.0 / (1.0 + std::exp(-x));
  const double y = p.bound * s;
  const double y_error = (1.0 - s) * (kExpError + 2 * u * std::fabs(x)) + 2 * u;
  const double value = std::exp(y);
  return {value, value * (kExpError + std::fabs(y) * y_error)};
}

TEST(KdaDecay, EveryTableIsWithinItsBoundOfTheFloat64Formula) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : kLengths) {
      for (const DecayParams& p : kDecayParams) {
        const std::vector<float> f = wide_floats(n, n), bias = wide_floats(n, n + 1);
        const std::vector<float> decay = run_kda_decay(*t, f, bias, p);
        for (int j = 0; j < n; ++j) {
          const Float64Decay want = kda_decay_float64(f[j], bias[j], p);
          ASSERT_NEAR(decay[j], want.value, want.bound)
              << t->name << " n=" << n << " rate=" << p.rate << " bound=" << p.bound << " f=" << f[j] << " bias=" << bias[j];
        }
      }
    }
  }
}

TEST(KdaDecay, SameInputsGiveTheSameBits) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : kLengths) {
      const std::vector<float> f = wide_floats(n, 2 * n), bias = wide_floats(n, 2 * n + 1);
      EXPECT_TRUE(same_float_bits(run_kda_decay(*t, f, bias, kDecayParams[0]), run_kda_decay(*t, f, bias, kDecayParams[0])))
          << t->name << " n=" << n;
    }
  }
}

// The SIMD tables run the last n % 8 elements as one masked block of the same instructions, so an
// element's bits do not depend on where it sits: each tail element at every lane of a full block
// (the reference is per element anyway).
TEST(KdaDecay, ATailElementGetsTheBitsItHasInAFullBlock) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : {1, 7, 9, 33}) {
      const std::vector<float> f = wide_floats(n, 3 * n), bias = wide_floats(n, 3 * n + 1);
      const std::vector<float> decay = run_kda_decay(*t, f, bias, kDecayParams[1]);
      for (int j = n / 8 * 8; j < n; ++j) {
        for (int lane = 0; lane < 8; ++lane) {
          std::vector<float> block_f = wide_floats(8, j), block_bias = wide_floats(8, j + 1);
          block_f[lane] = f[j];
          block_bias[lane] = bias[j];
          const float in_block = run_kda_decay(*t, block_f, block_bias, kDecayParams[1])[lane];
          EXPECT_EQ(0, std::memcmp(&in_block, &decay[j], sizeof(float))) << t->name << " n=" << n << " j=" << j << " lane " << lane;
        }
      }
    }
  }
}

std::vector<float> run_sigmoid_mul(const KernelTable& t, std::vector<float> gate, const std::vector<float>& up) {
  t.sigmoid_mul(gate.data(), up.data(), static_cast<int>(gate.size()));
  return gate;
}

// u sigmoid(g) within (1 - s) kExpError + 2u of it (e^-g's error, then an add and a divide: at
// most 8u, 8 ulp; over a million inputs the worst is about 3 ulp, 0.75 of the bound), and
// where g is below exp_ps's clamp (-87: e^-g saturates at e^88) within the sigmoid's own size,
// which is then under 1.7e-38 |u|, plus one step of float's subnormals.
TEST(SigmoidMul, EveryTableIsWithinItsBoundOfTheFloat64Formula) {
  constexpr double kSmallestSubnormal = 1.4012984643248171e-45;
  for (const KernelTable* t : runnable_tables()) {
    for (int n : kLengths) {
      const std::vector<float> g = wide_floats(n, 4 * n), up = wide_floats(n, 4 * n + 1);
      const std::vector<float> out = run_sigmoid_mul(*t, g, up);
      for (int i = 0; i < n; ++i) {
        const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(g[i])));
        const double want = s * up[i];
        const double bound = std::fabs(want) * ((1.0 - s) * kExpError + 2 * kFloatUnitRoundoff) +
                             1.7e-38 * std::fabs(up[i]) + kSmallestSubnormal;
        ASSERT_NEAR(out[i], want, bound) << t->name << " n=" << n << " g=" << g[i] << " up=" << up[i];
      }
    }
  }
}

TEST(SigmoidMul, SameInputsGiveTheSameBits) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : kLengths) {
      const std::vector<float> g = wide_floats(n, 5 * n), up = wide_floats(n, 5 * n + 1);
      EXPECT_TRUE(same_float_bits(run_sigmoid_mul(*t, g, up), run_sigmoid_mul(*t, g, up))) << t->name << " n=" << n;
    }
  }
}

// As KdaDecay's: the masked tail block is the full block's instructions.
TEST(SigmoidMul, ATailElementGetsTheBitsItHasInAFullBlock) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : {1, 7, 9, 33}) {
      const std::vector<float> g = wide_floats(n, 6 * n), up = wide_floats(n, 6 * n + 1);
      const std::vector<float> out = run_sigmoid_mul(*t, g, up);
      for (int i = n / 8 * 8; i < n; ++i) {
        for (int lane = 0; lane < 8; ++lane) {
          std::vector<float> block_g = wide_floats(8, i), block_up = wide_floats(8, i + 1);
          block_g[lane] = g[i];
          block_up[lane] = up[i];
          const float in_block = run_sigmoid_mul(*t, block_g, block_up)[lane];
          EXPECT_EQ(0, std::memcmp(&in_block, &out[i], sizeof(float))) << t->name << " n=" << n << " i=" << i << " lane " << lane;
        }
      }
    }
  }
}

// Kimi Linear's decay, exp(rate softplus(f + bias)) (kda_softplus_decay). The checkpoints' rates
// are -exp(A_log), between about -16 and -1; -1e-3 makes the softplus past 20 matter (x itself,
// not e^x's clamp at 88) and -1e4 its value where e^x is tiny (log1p's correction), which a
// checkpoint's rate would hide under the decay's rounding near 1.
constexpr float kSoftplusRates[] = {-1.0f, -0.37f, -5.0f, -16.0f, -1e-3f, -1e4f};

struct SoftplusDecayInputs {
  std::vector<float> f, bias;
};

// n inputs with x = f + bias uniform over about [-101, 101], and at positions that depend on the
// seed (bias 0): the softplus's switch at 20 and the floats beside it, exp_ps's clamp, 0 and
// values near it, the ends of the range and far past them.
SoftplusDecayInputs softplus_decay_inputs(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> wide(-100.0f, 100.0f), small(-1.0f, 1.0f);
  SoftplusDecayInputs in{std::vector<float>(n), std::vector<float>(n)};
  for (int j = 0; j < n; ++j) {
    in.f[j] = wide(rng);
    in.bias[j] = small(rng);
  }
  constexpr float kEdges[] = {20.0f, 0x1.3ffffep+4f, 0x1.400002p+4f, 19.5f,  20.5f,   0.0f,  1e-4f, -1e-4f,
                              -15.0f, -87.5f,        -100.0f,        100.0f, 95.0f,   1e30f, -1e30f};
  for (size_t e = 0; e < std::size(kEdges); ++e) {
    const size_t j = (seed + 3 * e) % n;
    in.f[j] = kEdges[e];
    in.bias[j] = 0.0f;
  }
  return in;
}

std::vector<float> run_kda_softplus_decay(const KernelTable& t, const SoftplusDecayInputs& in, float rate) {
  std::vector<float> decay(in.f.size());
  t.kda_softplus_decay(in.f.data(), in.bias.data(), rate, static_cast<int>(in.f.size()), decay.data());
  return decay;
}

// A float softplus's own relative error: e^x's kExpError (log1p scales it by at most 1), log_ps's
// 2 ulp (4u), w = 1 + e^x's rounding and the divide and multiply of log1p's correction (the
// reference's expf and log1pf are within less).
constexpr double kSoftplusError = kExpError + 7 * kFloatUnitRoundoff;

// exp(rate softplus(x)), x = f + bias, in float64 from the float inputs, and a first-order bound on
// a float kernel's error: x's rounding u times the softplus's condition number sigmoid(x) |x| /
// softplus(x), kSoftplusError, y = rate softplus's u, then e^y's kExpError plus y's error times
// |y|. Below exp_ps's clamp at -87 the SIMD softplus is e^-87 rather than e^x (|rate| 1.7e-38
// more of y), and where y is below -87 the SIMD decay is e^-87 where std::exp gives a subnormal or
// 0: 1.7e-38 absolute, plus one subnormal step (that gap reaches 0.97 of it). Where y is above -86,
// over x in [-100, 100] in steps of 2^-10 and these rates, the worst error is 0.38 of the bound
// (the SIMD tables; the reference's 0.14), measured 2026-12-07.
Float64Decay kda_softplus_decay_float64(float f, float bias, float rate) {
  constexpr double kSmallestSubnormal = 1.4012984643248171e-45;
  const double u = kFloatUnitRoundoff;
  const double x = static_cast<double>(f) + bias;
  const double softplus = x > 40 ? x : std::log1p(std::exp(x));
  // (0 where e^x underflows float64: y is 0 there, so the term is too)
  const double condition = softplus > 0 ? std::fabs(x) / (1.0 + std::exp(-x)) / softplus : 0.0;
  const double y = rate * softplus;
  const double y_error = std::fabs(y) * (kSoftplusError + (condition + 1) * u) + std::fabs(rate) * 1.7e-38;
  const double value = std::exp(y);
  return {value, value * (kExpError + y_error) + 1.7e-38 + kSmallestSubnormal};
}

void expect_softplus_decay_within_bound(const KernelTable& t, const SoftplusDecayInputs& in, float rate) {
  const std::vector<float> decay = run_kda_softplus_decay(t, in, rate);
  for (size_t j = 0; j < decay.size(); ++j) {
    const Float64Decay want = kda_softplus_decay_float64(in.f[j], in.bias[j], rate);
    ASSERT_NEAR(decay[j], want.value, want.bound)
        << t.name << " n=" << decay.size() << " rate=" << rate << " f=" << in.f[j] << " bias=" << in.bias[j];
  }
}

TEST(KdaSoftplusDecay, EveryTableIsWithinItsBoundOfTheFloat64Formula) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : kLengths) {
      for (float rate : kSoftplusRates) expect_softplus_decay_within_bound(*t, softplus_decay_inputs(n, n), rate);
    }
  }
}

// x from -100 to 100 in steps of 1/128 (exact floats), and every float in [19.9, 20.1], where
// the softplus switches to x.
TEST(KdaSoftplusDecay, EveryTableIsWithinItsBoundOverASweep) {
  SoftplusDecayInputs in;
  for (int k = -12800; k <= 12800; ++k) in.f.push_back(k / 128.0f);
  for (float x = 19.9f; x <= 20.1f; x = std::nextafter(x, 21.0f)) in.f.push_back(x);
  in.bias.assign(in.f.size(), 0.0f);
  for (const KernelTable* t : runnable_tables()) {
    for (float rate : kSoftplusRates) expect_softplus_decay_within_bound(*t, in, rate);
  }
}

// The masked tail block is the full block's instructions: element j of the first n gets the bits
// it gets among 19, for every n (tails of every length, inside and after full blocks).
TEST(KdaSoftplusDecay, AnElementsBitsDoNotDependOnN) {
  constexpr int kMax = 19;
  const SoftplusDecayInputs all = softplus_decay_inputs(kMax, 11);
  for (const KernelTable* t : runnable_tables()) {
    const std::vector<float> full = run_kda_softplus_decay(*t, all, kSoftplusRates[3]);
    for (int n = 1; n < kMax; ++n) {
      const SoftplusDecayInputs head{{all.f.begin(), all.f.begin() + n}, {all.bias.begin(), all.bias.begin() + n}};
      const std::vector<float> decay = run_kda_softplus_decay(*t, head, kSoftplusRates[3]);
      EXPECT_EQ(0, std::memcmp(decay.data(), full.data(), n * sizeof(float))) << t->name << " n=" << n;
    }
  }
}

// The AVX-512 table is the AVX2 source built with AVX-512 flags; its contract is the AVX2 bits.
TEST(KdaGates, Avx512GivesTheAvx2Bits) {
  if (avx2_table() == nullptr || avx512_table() == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (int n : kLengths) {
    const std::vector<float> a = wide_floats(n, 7 * n), b = wide_floats(n, 7 * n + 1);
    for (const DecayParams& p : kDecayParams) {
      EXPECT_TRUE(same_float_bits(run_kda_decay(*avx2_table(), a, b, p), run_kda_decay(*avx512_table(), a, b, p))) << "n=" << n;
    }
    EXPECT_TRUE(same_float_bits(run_sigmoid_mul(*avx2_table(), a, b), run_sigmoid_mul(*avx512_table(), a, b))) << "n=" << n;
    const SoftplusDecayInputs in = softplus_decay_inputs(n, 7 * n);
    for (float rate : kSoftplusRates) {
      EXPECT_TRUE(same_float_bits(run_kda_softplus_decay(*avx2_table(), in, rate), run_kda_softplus_decay(*avx512_table(), in, rate)))
          << "n=" << n << " rate=" << rate;
    }
  }
}

}  // namespace
}  // namespace strata::kernels
