#include "metrics/histogram.h"

#include <gtest/gtest.h>

#include "metrics/bucket_bounds.h"

namespace strata {
namespace {

TEST(Histogram, ValueOnABoundLandsInThatBucket) {
  Histogram h({1.0, 2.0});
  h.observe(1.0);
  h.observe(1.5);
  h.observe(2.0);
  h.observe(3.0);
  EXPECT_EQ(h.bucket(0), 1u);
  EXPECT_EQ(h.bucket(1), 2u);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.sum(), 7.5);
}

TEST(BucketBounds, OneTwoFiveSeriesStopsAtTheMaximum) {
  EXPECT_EQ(one_two_five_buckets(512), (std::vector<double>{1, 2, 5, 10, 20, 50, 100, 200, 500}));
  EXPECT_EQ(one_two_five_buckets(1000),
            (std::vector<double>{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}));
  EXPECT_EQ(one_two_five_buckets(1), (std::vector<double>{1}));
}

TEST(BucketBounds, IterationTokensDoubleFromSixteen) {
  EXPECT_EQ(iteration_token_buckets(),
            (std::vector<double>{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}));
}

}  // namespace
}  // namespace strata
