#include "sampling/logprobs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace strata {
namespace {

TEST(Logprobs, ArgmaxBreaksTiesTowardTheLowestIdAndSkipsNonFinite) {
  EXPECT_EQ(argmax_token(std::vector<float>{1.0f, 3.0f, 3.0f, 2.0f}), 1);
  EXPECT_EQ(argmax_token(std::vector<float>{NAN, -INFINITY, -5.0f}), 2);
  EXPECT_EQ(argmax_token(std::vector<float>{-INFINITY, NAN}), -1);
}

TEST(Logprobs, LogSumExpIsStableForLargeLogits) {
  std::vector<float> logits = {1000.0f, 1000.0f, -INFINITY};
  EXPECT_NEAR(log_sum_exp(logits), 1000.0 + std::log(2.0), 1e-9);
  EXPECT_TRUE(std::isinf(log_sum_exp(std::vector<float>{-INFINITY})));
}

TEST(Logprobs, TopLogprobsAreBestFirstWithTiesByLowestId) {
  std::vector<float> logits = {std::log(0.1f), std::log(0.4f), std::log(0.1f), std::log(0.4f), -INFINITY};
  double lse = log_sum_exp(logits);
  TokenLogprob out[3];
  ASSERT_EQ(top_logprobs(logits, lse, out), 3u);
  EXPECT_EQ(out[0].token, 1);
  EXPECT_EQ(out[1].token, 3);
  EXPECT_EQ(out[2].token, 0);
  EXPECT_NEAR(out[0].logprob, std::log(0.4), 1e-6);
  EXPECT_NEAR(out[2].logprob, std::log(0.1), 1e-6);
}

TEST(Logprobs, TopLogprobsStopsAtTheFiniteTokens) {
  std::vector<float> logits = {0.0f, -INFINITY, NAN};
  TokenLogprob out[3];
  ASSERT_EQ(top_logprobs(logits, log_sum_exp(logits), out), 1u);
  EXPECT_EQ(out[0].token, 0);
  EXPECT_EQ(out[0].logprob, 0.0f);
}

}  // namespace
}  // namespace strata
