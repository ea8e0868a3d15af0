// matmul_many(): every job gets exactly the bits matmul() gives it alone (memcmp), whatever the
// other jobs, their types, a shared input, packed or file layout; jobs past the limit are NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "kernels/kernels.h"
#include "kernels/test_weights.h"

namespace strata::kernels {
namespace {

using testing::TestWeights;

// A matrix of `type` in the layout the active kernels read (packed where they pack).
struct Weights {
  Weights(DType type, int64_t n_out, int64_t n_in, uint32_t seed) : raw(type, n_out, n_in, seed), w(raw.matrix()) {
    if (const size_t bytes = packed_matrix_bytes(w); bytes > 0) {
      packed.resize(bytes);
      pack_matrix(w, packed.data());
      w.packed = packed.data();
    }
  }
  TestWeights raw;
  WeightMatrix w;
  AlignedBuffer packed;
};

TEST(MatmulMany, EveryJobMatchesMatmulAloneForEveryType) {
  constexpr int64_t kIn = 512;
  std::vector<std::unique_ptr<Weights>> weights;
  std::vector<std::vector<float>> inputs;
  std::vector<MatmulJob> jobs;
  std::vector<std::vector<float>> outputs;
  uint32_t seed = 1;
  for (DType type : testing::matmul_types()) {
    for (int64_t n_out : {16, 75, 130}) {
      const int n_rows = 1 + static_cast<int>(seed % 5);
      weights.push_back(std::make_unique<Weights>(type, n_out, kIn, seed));
      inputs.push_back(testing::random_floats(static_cast<size_t>(n_rows) * kIn, seed + 100));
      outputs.emplace_back(static_cast<size_t>(n_rows * n_out));
      ++seed;
    }
  }
  for (size_t j = 0; j < weights.size(); ++j) {
    const int n_rows = static_cast<int>(inputs[j].size() / kIn);
    jobs.push_back({&weights[j]->w, inputs[j].data(), n_rows, outputs[j].data()});
  }
  ThreadPool pool(3);
  AlignedBuffer scratch;
  matmul_many(jobs, scratch, pool);
  ThreadPool single(1);
  for (size_t j = 0; j < jobs.size(); ++j) {
    std::vector<float> alone(outputs[j].size());
    matmul(*jobs[j].w, jobs[j].x, jobs[j].n_rows, alone.data(), scratch, single);
    EXPECT_EQ(std::memcmp(alone.data(), outputs[j].data(), alone.size() * sizeof(float)), 0)
        << "job " << j << " (" << dtype_name(jobs[j].w->type) << ", " << jobs[j].w->n_out << " rows)";
  }
}

TEST(MatmulMany, JobsSharingAnInputMatchMatmulAlone) {
  // Gate and up of one expert read the same rows: one quantised copy serves both.
  Weights gate(DType::kQ4_K, 48, 256, 3), up(DType::kQ4_K, 48, 256, 4), down(DType::kQ8_0, 256, 48 * 2, 5);
  const std::vector<float> x = testing::random_floats(4 * 256, 9);
  const std::vector<float> x2 = testing::random_floats(4 * 96, 10);
  std::vector<float> g(4 * 48), u(4 * 48), d(4 * 256);
  std::vector<MatmulJob> jobs = {{&gate.w, x.data(), 4, g.data()}, {&up.w, x.data(), 4, u.data()},
                                 {&down.w, x2.data(), 4, d.data()}};
  ThreadPool pool(2);
  AlignedBuffer scratch;
  EXPECT_LT(matmul_many_scratch_bytes(jobs), matmul_scratch_bytes(DType::kQ4_K, 256, 4) * 2 +
                                                 matmul_scratch_bytes(DType::kQ8_0, 96, 4));
  matmul_many(jobs, scratch, pool);
  for (const MatmulJob& job : jobs) {
    std::vector<float> alone(static_cast<size_t>(job.n_rows * job.w->n_out));
    matmul(*job.w, job.x, job.n_rows, alone.data(), scratch, pool);
    EXPECT_EQ(std::memcmp(alone.data(), job.y, alone.size() * sizeof(float)), 0) << dtype_name(job.w->type);
  }
}

// A float job before a quantised one on the same input (q in F32, k in Q8_0: a mixed file)
// quantises nothing, so the quantised job gets Q8 rows of its own.
TEST(MatmulMany, AQuantisedJobAfterAFloatJobOnTheSameInputQuantisesItsOwn) {
  for (DType first : {DType::kF32, DType::kF16, DType::kBF16}) {
    Weights a(first, 40, 256, 6), b(DType::kQ8_0, 24, 256, 7), c(DType::kMXFP4, 16, 256, 8);
    const std::vector<float> x = testing::random_floats(3 * 256, 11);
    std::vector<float> ya(3 * 40), yb(3 * 24), yc(3 * 16);
    std::vector<MatmulJob> jobs = {{&a.w, x.data(), 3, ya.data()}, {&b.w, x.data(), 3, yb.data()},
                                   {&c.w, x.data(), 3, yc.data()}};
    ThreadPool pool(2);
    AlignedBuffer scratch;
    matmul_many(jobs, scratch, pool);
    for (const MatmulJob& job : jobs) {
      std::vector<float> alone(static_cast<size_t>(job.n_rows * job.w->n_out));
      matmul(*job.w, job.x, job.n_rows, alone.data(), scratch, pool);
      EXPECT_EQ(std::memcmp(alone.data(), job.y, alone.size() * sizeof(float)), 0)
          << dtype_name(first) << " then " << dtype_name(job.w->type);
    }
  }
}

TEST(MatmulMany, EmptyJobsAreSkippedAndJobsPastTheLimitAreNaN) {
  Weights w(DType::kQ8_0, 16, 64, 2);
  const std::vector<float> x = testing::random_floats(64, 3);
  std::vector<float> y(static_cast<size_t>(kMaxMatmulJobs + 1) * 16, 0.0f);
  std::vector<MatmulJob> jobs;
  jobs.push_back({&w.w, x.data(), 0, nullptr});  // no rows: nothing written
  for (int j = 1; j <= kMaxMatmulJobs; ++j) jobs.push_back({&w.w, x.data(), 1, y.data() + (j - 1) * 16});
  ThreadPool pool(2);
  AlignedBuffer scratch;
  matmul_many(jobs, scratch, pool);
  std::vector<float> alone(16);
  matmul(w.w, x.data(), 1, alone.data(), scratch, pool);
  EXPECT_EQ(std::memcmp(alone.data(), y.data(), sizeof(float) * 16), 0);
  EXPECT_EQ(std::memcmp(alone.data(), y.data() + (kMaxMatmulJobs - 2) * 16, sizeof(float) * 16), 0);
  EXPECT_TRUE(std::isnan(y[static_cast<size_t>(kMaxMatmulJobs - 1) * 16]));
}

}  // namespace
}  // namespace strata::kernels
