// delta_rule and delta_rule_keys (its decay per key): every table against the float64 formula,
// the SIMD tables against the scalar reference over many steps on one state, and the
// bit-exactness contract (same inputs, same bits; a row's bits never depend on the other rows or
// on dv; the AVX-512 build gives the AVX2 bits). Each check is one function run for both forms,
// the scalar decay's inputs exactly as before the per-key form existed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/kernel_table.h"
#include "kernels/table_list.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::random_floats;
using testing::runnable_tables;

// float32's unit roundoff.
constexpr double kUnitRoundoff = 1.0 / (1 << 24);

// Square heads of every tail length class (dk % 8 of 0, 1, 7; an odd and an even number of
// whole blocks before the tail), Qwen3.5's 128 and twice that, and lopsided heads up to 512.
struct HeadSize {
  int dk, dv;
};
constexpr HeadSize kHeadSizes[] = {{1, 1},   {7, 7},   {8, 8},     {15, 15},  {25, 25}, {33, 33},
                                   {128, 128}, {256, 256}, {128, 5}, {5, 128}, {512, 3}, {3, 512}};

// q and k of unit length, as the model feeds them (l2-normalised).
std::vector<float> unit_vector(int n, uint32_t seed) {
  std::vector<float> x = random_floats(n, seed);
  double norm = 0.0;
  for (float f : x) norm += static_cast<double>(f) * f;
  for (float& f : x) f = static_cast<float>(f / std::sqrt(norm));
  return x;
}

// The vectors and scalars of one position. key_decay empty: the scalar decay (delta_rule); else
// one decay per key (delta_rule_keys), and `decay` is unused.
struct DeltaRuleStepInputs {
  std::vector<float> q, k, v;
  float decay = 0.93f, beta = 0.7f, scale = 1.0f;
  std::vector<float> key_decay;
};

DeltaRuleStepInputs make_step_inputs(int dk, int dv, uint32_t seed) {
  DeltaRuleStepInputs in;
  in.q = unit_vector(dk, seed);
  in.k = unit_vector(dk, seed + 1);
  in.v = random_floats(dv, seed + 2);
  in.decay = 0.8f + 0.19f * static_cast<float>(seed % 7) / 6.0f;
  in.beta = 0.1f + 0.8f * static_cast<float>(seed % 5) / 4.0f;
  in.scale = 1.0f / std::sqrt(static_cast<float>(dk));
  return in;
}

// The same with a decay per key shaped as Kimi Delta Attention's, exp(-5 sigmoid(x)): spread
// over [e^-5, 1], a different factor in every column.
DeltaRuleStepInputs make_key_step_inputs(int dk, int dv, uint32_t seed) {
  DeltaRuleStepInputs in = make_step_inputs(dk, dv, seed);
  for (float x : random_floats(dk, seed + 3, 3.0f)) {
    in.key_decay.push_back(static_cast<float>(std::exp(-5.0 / (1.0 + std::exp(-static_cast<double>(x))))));
  }
  return in;
}

using StepMaker = DeltaRuleStepInputs (*)(int dk, int dv, uint32_t seed);

// Key j's decay.
double decay_of(const DeltaRuleStepInputs& in, int j) {
  return in.key_decay.empty() ? in.decay : in.key_decay[static_cast<size_t>(j)];
}

void run_step(const KernelTable& t, const DeltaRuleStepInputs& in, int dk, int dv, std::vector<float>& state,
              std::vector<float>& out) {
  out.assign(dv, 0.0f);
  if (in.key_decay.empty()) {
    t.delta_rule(state.data(), in.q.data(), in.k.data(), in.v.data(), in.decay, in.beta, in.scale, dk, dv, out.data());
  } else {
    t.delta_rule_keys(state.data(), in.q.data(), in.k.data(), in.v.data(), in.key_decay.data(), in.beta, in.scale,
                      dk, dv, out.data());
  }
}

// The step in float64 from a float32 state, with first-order bounds on how far a float32
// kernel that sums each row's dk products in any fixed order may land from it: a sum of n
// terms is off by at most (n - 1) u times the sum of their magnitudes, each other operation
// by u of its result (a term of the recall, s g k, is two roundings whichever product comes
// first).
struct Float64Step {
  std::vector<double> state, out;
  std::vector<double> state_bound, out_bound;
};

Float64Step delta_rule_float64(const std::vector<float>& state, const DeltaRuleStepInputs& in, int dk, int dv) {
  const double u = kUnitRoundoff;
  Float64Step r{std::vector<double>(state.size()), std::vector<double>(dv), std::vector<double>(state.size()),
                std::vector<double>(dv)};
  for (int i = 0; i < dv; ++i) {
    const size_t row = static_cast<size_t>(i) * dk;
    double recalled = 0.0, recalled_mag = std::fabs(in.v[i]);
    for (int j = 0; j < dk; ++j) {
      const double s = decay_of(in, j) * state[row + j];
      recalled += s * in.k[j];
      recalled_mag += std::fabs(s * in.k[j]);
    }
    const double delta = in.beta * (in.v[i] - recalled);
    const double delta_bound = in.beta * (dk + 3) * u * recalled_mag;
    double read = 0.0, read_bound = 0.0;
    for (int j = 0; j < dk; ++j) {
      const double s1 = decay_of(in, j) * state[row + j];
      const double s2 = s1 + delta * in.k[j];
      r.state[row + j] = s2;
      r.state_bound[row + j] = 3 * u * (std::fabs(s1) + std::fabs(delta * in.k[j])) + delta_bound * std::fabs(in.k[j]);
      read += s2 * in.q[j];
      read_bound += ((dk + 3) * u * std::fabs(s2) + r.state_bound[row + j]) * std::fabs(in.q[j]);
    }
    r.out[i] = in.scale * read;
    r.out_bound[i] = in.scale * read_bound + u * std::fabs(r.out[i]);
  }
  return r;
}

void expect_every_table_matches_the_float64_formula(StepMaker make) {
  for (const KernelTable* t : runnable_tables()) {
    for (const HeadSize& h : kHeadSizes) {
      const std::vector<float> state0 = random_floats(static_cast<size_t>(h.dk) * h.dv, h.dk * 31 + h.dv);
      const DeltaRuleStepInputs in = make(h.dk, h.dv, h.dk + 7 * h.dv);
      const Float64Step want = delta_rule_float64(state0, in, h.dk, h.dv);
      std::vector<float> state = state0, out;
      run_step(*t, in, h.dk, h.dv, state, out);
      // Twice the first-order bound: room for the second-order terms, still tight (the bound is
      // a few times dk u relative to the terms' magnitudes).
      for (int i = 0; i < h.dv; ++i) {
        ASSERT_NEAR(out[i], want.out[i], 2 * want.out_bound[i]) << t->name << " dk=" << h.dk << " dv=" << h.dv << " i=" << i;
      }
      for (size_t e = 0; e < state.size(); ++e) {
        ASSERT_NEAR(state[e], want.state[e], 2 * want.state_bound[e]) << t->name << " dk=" << h.dk << " dv=" << h.dv << " e=" << e;
      }
    }
  }
}

TEST(DeltaRule, EveryTableMatchesTheFloat64Formula) { expect_every_table_matches_the_float64_formula(make_step_inputs); }

TEST(DeltaRuleKeys, EveryTableMatchesTheFloat64Formula) {
  expect_every_table_matches_the_float64_formula(make_key_step_inputs);
}

// Many positions on one state, each table its own copy. With unit k, decays <= 1 and beta <= 1 a
// step maps a state error e (a row) to e G (I - beta k k^T), G the diagonal of the decays, no
// longer than e, so a row's drift from the reference is at most the sum of the steps' rounding
// (E below, in the 2-norm), and an output's is its own step's rounding plus scale * E.
void expect_simd_tables_track_the_reference(StepMaker make) {
  constexpr int kSteps = 24;
  for (const KernelTable* t : runnable_tables()) {
    if (t == &reference_table()) continue;
    for (const HeadSize& h : kHeadSizes) {
      std::vector<float> ref_state = random_floats(static_cast<size_t>(h.dk) * h.dv, h.dk + h.dv, 0.5f);
      std::vector<float> state = ref_state, ref_out, out;
      std::vector<double> drift(h.dv, 0.0);
      for (int step = 0; step < kSteps; ++step) {
        const DeltaRuleStepInputs in = make(h.dk, h.dv, 1000 + step * 3);
        const Float64Step bound = delta_rule_float64(ref_state, in, h.dk, h.dv);
        run_step(reference_table(), in, h.dk, h.dv, ref_state, ref_out);
        run_step(*t, in, h.dk, h.dv, state, out);
        for (int i = 0; i < h.dv; ++i) {
          const double tol = 4 * bound.out_bound[i] + in.scale * drift[i];
          ASSERT_NEAR(out[i], ref_out[i], tol) << t->name << " dk=" << h.dk << " dv=" << h.dv << " step=" << step << " i=" << i;
          double step_bound_sq = 0.0, diff_sq = 0.0;
          for (int j = 0; j < h.dk; ++j) {
            const size_t e = static_cast<size_t>(i) * h.dk + j;
            step_bound_sq += bound.state_bound[e] * bound.state_bound[e];
            diff_sq += (static_cast<double>(state[e]) - ref_state[e]) * (static_cast<double>(state[e]) - ref_state[e]);
          }
          drift[i] += 4 * std::sqrt(step_bound_sq);
          ASSERT_LE(std::sqrt(diff_sq), drift[i]) << t->name << " dk=" << h.dk << " dv=" << h.dv << " step=" << step << " row=" << i;
        }
      }
    }
  }
}

TEST(DeltaRule, SimdTablesTrackTheReferenceOverManySteps) { expect_simd_tables_track_the_reference(make_step_inputs); }

TEST(DeltaRuleKeys, SimdTablesTrackTheReferenceOverManySteps) {
  expect_simd_tables_track_the_reference(make_key_step_inputs);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void expect_same_inputs_give_the_same_bits(StepMaker make) {
  for (const KernelTable* t : runnable_tables()) {
    for (const HeadSize& h : kHeadSizes) {
      const std::vector<float> state0 = random_floats(static_cast<size_t>(h.dk) * h.dv, 3);
      const DeltaRuleStepInputs in = make(h.dk, h.dv, 4);
      std::vector<float> a = state0, b = state0, out_a, out_b;
      run_step(*t, in, h.dk, h.dv, a, out_a);
      run_step(*t, in, h.dk, h.dv, b, out_b);
      EXPECT_TRUE(same_bits(a, b)) << t->name << " dk=" << h.dk << " dv=" << h.dv;
      EXPECT_TRUE(same_bits(out_a, out_b)) << t->name << " dk=" << h.dk << " dv=" << h.dv;
    }
  }
}

TEST(DeltaRule, SameInputsGiveTheSameBits) { expect_same_inputs_give_the_same_bits(make_step_inputs); }

TEST(DeltaRuleKeys, SameInputsGiveTheSameBits) { expect_same_inputs_give_the_same_bits(make_key_step_inputs); }

// Row i computed among dv rows, among dv rows whose other rows (and values) are different, and
// alone (dv = 1, the SIMD tables' single-row path rather than their four-row one): the same
// bits each time.
void expect_rows_independent_of_the_other_rows(StepMaker make) {
  for (const KernelTable* t : runnable_tables()) {
    for (int dk : {7, 33, 45, 63, 128}) {
      constexpr int kDv = 11;
      const size_t row_floats = static_cast<size_t>(dk);
      const std::vector<float> state0 = random_floats(row_floats * kDv, 5);
      const DeltaRuleStepInputs in = make(dk, kDv, 6);
      std::vector<float> all = state0, all_out;
      run_step(*t, in, dk, kDv, all, all_out);
      for (int i = 0; i < kDv; ++i) {
        std::vector<float> others = random_floats(row_floats * kDv, 100 + i);
        std::copy_n(state0.begin() + i * row_floats, row_floats, others.begin() + i * row_floats);
        DeltaRuleStepInputs other_in = in;
        other_in.v = random_floats(kDv, 200 + i);
        other_in.v[i] = in.v[i];
        std::vector<float> others_out;
        run_step(*t, other_in, dk, kDv, others, others_out);
        DeltaRuleStepInputs alone_in = in;
        alone_in.v = {in.v[i]};
        std::vector<float> alone(state0.begin() + i * row_floats, state0.begin() + (i + 1) * row_floats), alone_out;
        run_step(*t, alone_in, dk, 1, alone, alone_out);
        const std::vector<float> row(all.begin() + i * row_floats, all.begin() + (i + 1) * row_floats);
        EXPECT_EQ(0, std::memcmp(&all_out[i], &others_out[i], sizeof(float))) << t->name << " dk=" << dk << " row " << i;
        EXPECT_EQ(0, std::memcmp(&all_out[i], &alone_out[0], sizeof(float))) << t->name << " dk=" << dk << " row " << i;
        EXPECT_EQ(0, std::memcmp(row.data(), &others[i * row_floats], row_floats * sizeof(float)))
            << t->name << " dk=" << dk << " row " << i;
        EXPECT_TRUE(same_bits(row, alone)) << t->name << " dk=" << dk << " row " << i;
      }
    }
  }
}

TEST(DeltaRule, ARowsBitsDoNotDependOnTheOtherRows) { expect_rows_independent_of_the_other_rows(make_step_inputs); }

TEST(DeltaRuleKeys, ARowsBitsDoNotDependOnTheOtherRowsOrDv) {
  expect_rows_independent_of_the_other_rows(make_key_step_inputs);
}

// The AVX-512 table is the AVX2 source built with AVX-512 flags; its contract is the AVX2 bits.
void expect_avx512_gives_the_avx2_bits(StepMaker make) {
  if (avx2_table() == nullptr || avx512_table() == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (const HeadSize& h : kHeadSizes) {
    std::vector<float> a = random_floats(static_cast<size_t>(h.dk) * h.dv, 7), b = a, out_a, out_b;
    for (int step = 0; step < 4; ++step) {
      const DeltaRuleStepInputs in = make(h.dk, h.dv, 8 + step);
      run_step(*avx2_table(), in, h.dk, h.dv, a, out_a);
      run_step(*avx512_table(), in, h.dk, h.dv, b, out_b);
      ASSERT_TRUE(same_bits(out_a, out_b)) << "dk=" << h.dk << " dv=" << h.dv << " step " << step;
      ASSERT_TRUE(same_bits(a, b)) << "dk=" << h.dk << " dv=" << h.dv << " step " << step;
    }
  }
}

TEST(DeltaRule, Avx512GivesTheAvx2Bits) { expect_avx512_gives_the_avx2_bits(make_step_inputs); }

TEST(DeltaRuleKeys, Avx512GivesTheAvx2Bits) { expect_avx512_gives_the_avx2_bits(make_key_step_inputs); }

// The decay is per key, i.e. per column of the state: a key with decay 0 and k_j = 0 has its
// column cleared in every row (0 s + delta 0, exactly), while the other columns keep their
// decayed values and take the update.
TEST(DeltaRuleKeys, AZeroDecayClearsItsKeysColumnInEveryRow) {
  constexpr int kDk = 37, kDv = 9, kCleared = 19;
  for (const KernelTable* t : runnable_tables()) {
    DeltaRuleStepInputs in = make_key_step_inputs(kDk, kDv, 11);
    in.key_decay[kCleared] = 0.0f;
    in.k[kCleared] = 0.0f;
    std::vector<float> state = random_floats(static_cast<size_t>(kDk) * kDv, 12), out;
    run_step(*t, in, kDk, kDv, state, out);
    for (int i = 0; i < kDv; ++i) {
      for (int j = 0; j < kDk; ++j) {
        const float s = state[static_cast<size_t>(i) * kDk + j];
        if (j == kCleared) {
          EXPECT_EQ(s, 0.0f) << t->name << " row " << i;
        } else {
          EXPECT_NE(s, 0.0f) << t->name << " row " << i << " key " << j;
        }
      }
    }
  }
}

// dk past kMaxDeltaRuleKeys (the SIMD tables' stack copy of the decayed keys): NaN outputs and
// the state as it was, on every table, instead of a write past the copy.
TEST(DeltaRuleKeys, MoreKeysThanTheBoundGiveNanAndLeaveTheState) {
  constexpr int kDk = kMaxDeltaRuleKeys + 1, kDv = 3;
  for (const KernelTable* t : runnable_tables()) {
    const DeltaRuleStepInputs in = make_key_step_inputs(kDk, kDv, 13);
    const std::vector<float> state0 = random_floats(static_cast<size_t>(kDk) * kDv, 14);
    std::vector<float> state = state0, out;
    run_step(*t, in, kDk, kDv, state, out);
    EXPECT_TRUE(same_bits(state, state0)) << t->name;
    for (float o : out) EXPECT_TRUE(std::isnan(o)) << t->name;
  }
}

}  // namespace
}  // namespace strata::kernels
