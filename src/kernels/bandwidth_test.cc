// measure_read_bandwidth_gbs: a positive, finite figure on a small buffer (its speed is
// for benchmarks, not tests) and 0 for a buffer too small to split.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/bandwidth.h"

namespace strata::kernels {
namespace {

TEST(ReadBandwidth, ReportsAPositiveRateForEveryThreadCount) {
  for (int n = 1; n <= 3; ++n) {
    ThreadPool pool(n);
    const double gbs = measure_read_bandwidth_gbs(pool, size_t{8} << 20);
    EXPECT_GT(gbs, 0.0) << n << " threads";
    EXPECT_TRUE(std::isfinite(gbs));
  }
}

TEST(ReadBandwidth, ZeroForABufferSmallerThanOneLinePerThread) {
  ThreadPool pool(2);
  EXPECT_EQ(0.0, measure_read_bandwidth_gbs(pool, 64));
}

}  // namespace
}  // namespace strata::kernels
