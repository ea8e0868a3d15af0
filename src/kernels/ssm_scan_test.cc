// ssm_scan (a Mamba-2 head's step): every table against the float64 formula, the SIMD tables
// against the scalar reference over many steps on one state, and the bit-exactness contract
// (same inputs, same bits; a row's bits never depend on the other rows; the AVX-512 build gives the
// AVX2 bits).
#include <gtest/gtest.h>

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

constexpr double kScanRoundoff = 1.0 / (1 << 24);  // float32's

// Heads of every tail length class (n % 8 of 0, 1, 7; an odd and an even number of whole blocks
// before the tail), Granite 4.0-H's and Nemotron-H's 64 and 80 rows of 128, and lopsided ones.
struct ScanHead {
  int n, p;
};
constexpr ScanHead kScanHeads[] = {{1, 1},   {7, 7},    {8, 8},   {15, 15}, {25, 25},  {33, 33},
                                   {128, 64}, {128, 80}, {256, 5}, {5, 128}, {512, 3}, {3, 512}};

// One position's inputs: a decay in (0, 1], a time step of a softplus's size, x, B and C.
struct ScanInputs {
  std::vector<float> x, B, C;
  float decay = 0.9f, dt = 0.5f;
};

ScanInputs make_scan_inputs(int n, int p, uint32_t seed) {
  ScanInputs in;
  in.x = random_floats(p, seed);
  in.B = random_floats(n, seed + 1);
  in.C = random_floats(n, seed + 2);
  in.decay = 0.2f + 0.79f * static_cast<float>(seed % 7) / 6.0f;
  in.dt = 0.05f + 2.0f * static_cast<float>(seed % 5) / 4.0f;
  return in;
}

void run_scan_step(const KernelTable& t, const ScanInputs& in, int n, int p, std::vector<float>& state,
              std::vector<float>& out) {
  out.assign(p, 0.0f);
  t.ssm_scan(state.data(), in.x.data(), in.B.data(), in.C.data(), in.decay, in.dt, n, p, out.data());
}

// The step in float64 from a float32 state, with first-order bounds on how far a float32 kernel
// that sums each row's n products in any fixed order may land: a sum of n terms is off by at most
// (n - 1) u times the sum of their magnitudes, each other operation by u of its result.
struct ScanFloat64 {
  std::vector<double> state, out, state_bound, out_bound;
};

ScanFloat64 ssm_scan_float64(const std::vector<float>& state, const ScanInputs& in, int n, int p) {
  const double u = kScanRoundoff;
  ScanFloat64 r{std::vector<double>(state.size()), std::vector<double>(p), std::vector<double>(state.size()),
                std::vector<double>(p)};
  for (int i = 0; i < p; ++i) {
    const double xdt = static_cast<double>(in.dt) * in.x[i];
    double read = 0.0, read_bound = 0.0;
    for (int j = 0; j < n; ++j) {
      const size_t e = static_cast<size_t>(i) * n + j;
      const double decayed = static_cast<double>(in.decay) * state[e], written = xdt * in.B[j];
      r.state[e] = decayed + written;
      r.state_bound[e] = 4 * u * (std::fabs(decayed) + std::fabs(written));
      read += r.state[e] * in.C[j];
      read_bound += ((n + 1) * u * std::fabs(r.state[e]) + r.state_bound[e]) * std::fabs(in.C[j]);
    }
    r.out[i] = read;
    r.out_bound[i] = read_bound;
  }
  return r;
}

TEST(SsmScan, EveryTableMatchesTheFloat64Formula) {
  for (const KernelTable* t : runnable_tables()) {
    for (const ScanHead& h : kScanHeads) {
      const std::vector<float> state0 = random_floats(static_cast<size_t>(h.n) * h.p, h.n * 31 + h.p);
      const ScanInputs in = make_scan_inputs(h.n, h.p, h.n + 7 * h.p);
      const ScanFloat64 want = ssm_scan_float64(state0, in, h.n, h.p);
      std::vector<float> state = state0, out;
      run_scan_step(*t, in, h.n, h.p, state, out);
      for (int i = 0; i < h.p; ++i) {
        ASSERT_NEAR(out[i], want.out[i], 2 * want.out_bound[i])
            << t->name << " n=" << h.n << " p=" << h.p << " i=" << i;
      }
      for (size_t e = 0; e < state.size(); ++e) {
        ASSERT_NEAR(state[e], want.state[e], 2 * want.state_bound[e]) << t->name << " n=" << h.n << " e=" << e;
      }
    }
  }
}

// Many positions on one state, each table its own copy: with decay <= 1 a step shrinks a state
// error, so a row's drift from the reference is at most the sum of the steps' rounding.
TEST(SsmScan, SimdTablesTrackTheReferenceOverManySteps) {
  constexpr int kSteps = 24;
  for (const KernelTable* t : runnable_tables()) {
    if (t == &reference_table()) continue;
    for (const ScanHead& h : kScanHeads) {
      std::vector<float> ref_state = random_floats(static_cast<size_t>(h.n) * h.p, h.n + h.p, 0.5f);
      std::vector<float> state = ref_state, ref_out, out;
      std::vector<double> drift(static_cast<size_t>(h.n) * h.p, 0.0);
      for (int step = 0; step < kSteps; ++step) {
        const ScanInputs in = make_scan_inputs(h.n, h.p, 1000 + step * 3);
        const ScanFloat64 bound = ssm_scan_float64(ref_state, in, h.n, h.p);
        run_scan_step(reference_table(), in, h.n, h.p, ref_state, ref_out);
        run_scan_step(*t, in, h.n, h.p, state, out);
        for (int i = 0; i < h.p; ++i) {
          double out_tol = 4 * bound.out_bound[i];
          for (int j = 0; j < h.n; ++j) {
            const size_t e = static_cast<size_t>(i) * h.n + j;
            drift[e] += 4 * bound.state_bound[e];
            ASSERT_NEAR(state[e], ref_state[e], drift[e]) << t->name << " n=" << h.n << " step=" << step << " e=" << e;
            out_tol += drift[e] * std::fabs(in.C[j]);
          }
          ASSERT_NEAR(out[i], ref_out[i], out_tol) << t->name << " n=" << h.n << " step=" << step << " i=" << i;
        }
      }
    }
  }
}

TEST(SsmScan, SameInputsGiveTheSameBits) {
  for (const KernelTable* t : runnable_tables()) {
    for (const ScanHead& h : kScanHeads) {
      const std::vector<float> state0 = random_floats(static_cast<size_t>(h.n) * h.p, 3);
      const ScanInputs in = make_scan_inputs(h.n, h.p, 4);
      std::vector<float> a = state0, b = state0, out_a, out_b;
      run_scan_step(*t, in, h.n, h.p, a, out_a);
      run_scan_step(*t, in, h.n, h.p, b, out_b);
      EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << t->name << " n=" << h.n;
      EXPECT_EQ(0, std::memcmp(out_a.data(), out_b.data(), out_a.size() * sizeof(float))) << t->name << " n=" << h.n;
    }
  }
}

// Row i computed among p rows, among p rows whose other rows (and x values) differ, and alone
// (p = 1, the SIMD tables' single-row path rather than their four-row one): the same bits.
TEST(SsmScan, ARowsBitsDoNotDependOnTheOtherRows) {
  for (const KernelTable* t : runnable_tables()) {
    for (int n : {7, 33, 45, 63, 128}) {
      constexpr int kP = 11;
      const size_t row_floats = static_cast<size_t>(n);
      const std::vector<float> state0 = random_floats(row_floats * kP, 5);
      const ScanInputs in = make_scan_inputs(n, kP, 6);
      std::vector<float> all = state0, all_out;
      run_scan_step(*t, in, n, kP, all, all_out);
      for (int i = 0; i < kP; ++i) {
        std::vector<float> others = random_floats(row_floats * kP, 100 + i);
        std::copy_n(state0.begin() + i * row_floats, row_floats, others.begin() + i * row_floats);
        ScanInputs other_in = in;
        other_in.x = random_floats(kP, 200 + i);
        other_in.x[i] = in.x[i];
        std::vector<float> others_out;
        run_scan_step(*t, other_in, n, kP, others, others_out);
        ScanInputs alone_in = in;
        alone_in.x = {in.x[i]};
        std::vector<float> alone(state0.begin() + i * row_floats, state0.begin() + (i + 1) * row_floats), alone_out;
        run_scan_step(*t, alone_in, n, 1, alone, alone_out);
        EXPECT_EQ(0, std::memcmp(&all_out[i], &others_out[i], sizeof(float))) << t->name << " n=" << n << " row " << i;
        EXPECT_EQ(0, std::memcmp(&all_out[i], &alone_out[0], sizeof(float))) << t->name << " n=" << n << " row " << i;
        EXPECT_EQ(0, std::memcmp(all.data() + i * row_floats, alone.data(), row_floats * sizeof(float)))
            << t->name << " n=" << n << " row " << i;
      }
    }
  }
}

// The AVX-512 build compiles the same source with wider ISA flags and no contraction: same bits.
TEST(SsmScan, Avx512GivesTheAvx2Bits) {
  if (avx2_table() == nullptr || avx512_table() == nullptr) GTEST_SKIP() << "no AVX-512 VNNI on this CPU";
  for (const ScanHead& h : kScanHeads) {
    std::vector<float> a = random_floats(static_cast<size_t>(h.n) * h.p, 7), b = a, out_a, out_b;
    for (int step = 0; step < 4; ++step) {
      const ScanInputs in = make_scan_inputs(h.n, h.p, 8 + step);
      run_scan_step(*avx2_table(), in, h.n, h.p, a, out_a);
      run_scan_step(*avx512_table(), in, h.n, h.p, b, out_b);
      ASSERT_EQ(0, std::memcmp(out_a.data(), out_b.data(), out_a.size() * sizeof(float)))
          << "n=" << h.n << " step " << step;
      ASSERT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << "n=" << h.n << " step " << step;
    }
  }
}

}  // namespace
}  // namespace strata::kernels
