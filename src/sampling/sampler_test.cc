#include "sampling/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace strata {
namespace {

// Logits whose softmax at temperature 1 is {0.5, 0.25, 0.15, 0.1}.
std::vector<float> four_way() { return {std::log(0.5f), std::log(0.25f), std::log(0.15f), std::log(0.1f)}; }

int32_t sample_token(Sampler& s, const std::vector<float>& logits, const SamplingConfig& config,
                     const std::vector<int32_t>& history = {}, int64_t position = 0) {
  Result<SampleResult> r = s.sample(logits, config, history, position);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->token : -1;
}

// Sampling frequencies over many positions (one fixed seed).
std::vector<double> frequencies(const std::vector<float>& logits, const SamplingConfig& config, int n_draws) {
  Sampler s(static_cast<int>(logits.size()));
  std::vector<double> freq(logits.size(), 0.0);
  for (int pos = 0; pos < n_draws; ++pos) freq[sample_token(s, logits, config, {}, pos)] += 1.0 / n_draws;
  return freq;
}

TEST(Sampler, GreedyPicksTheArgmaxWithTiesToTheLowestId) {
  Sampler s(4);
  SamplingConfig greedy;
  EXPECT_EQ(sample_token(s, four_way(), greedy), 0);
  EXPECT_EQ(sample_token(s, {1.0f, 5.0f, 5.0f, 2.0f}, greedy), 1);
  EXPECT_EQ(sample_token(s, {NAN, 0.0f, NAN, -1.0f}, greedy), 1);
}

TEST(Sampler, GreedyAppliesPenaltiesAndBiasFirst) {
  Sampler s(4);
  SamplingConfig config;
  config.repeat_penalty = 4.0f;
  EXPECT_EQ(sample_token(s, {2.0f, 1.0f, 0.0f, 0.0f}, config, {0}), 1);
  config = SamplingConfig{};
  config.logit_bias = {{0, -INFINITY}, {3, 0.5f}};
  EXPECT_EQ(sample_token(s, {2.0f, 1.0f, 0.0f, 0.75f}, config), 3);
}

TEST(Sampler, SameSeedAndPositionGiveTheSameTokenWhateverElseRuns) {
  SamplingConfig config;
  config.temperature = 1.0f;
  config.seed = 99;
  std::vector<float> logits(64);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i));
  Sampler alone(64), batched(64);
  std::vector<int32_t> expected;
  for (int pos = 0; pos < 200; ++pos) expected.push_back(sample_token(alone, logits, config, {}, pos));
  SamplingConfig other = config;
  other.seed = 7;
  other.top_k = 5;
  for (int pos = 199; pos >= 0; --pos) {  // reverse order, interleaved with another request
    sample_token(batched, logits, other, {1, 2, 3}, pos);
    EXPECT_EQ(sample_token(batched, logits, config, {}, pos), expected[pos]) << "position " << pos;
  }
}

TEST(Sampler, DifferentSeedsGiveDifferentStreams) {
  SamplingConfig a, b;
  a.temperature = b.temperature = 1.0f;
  a.seed = 1;
  b.seed = 2;
  std::vector<float> logits(64, 0.0f);
  Sampler s(64);
  int same = 0;
  for (int pos = 0; pos < 100; ++pos) same += sample_token(s, logits, a, {}, pos) == sample_token(s, logits, b, {}, pos);
  EXPECT_LT(same, 20);  // about 100/64 expected
}

// 20000 draws: a frequency's standard deviation is at most 0.0036, the bound is 0.02.
TEST(Sampler, FrequenciesFollowTheSoftmax) {
  SamplingConfig config;
  config.temperature = 1.0f;
  config.seed = 1234;
  std::vector<double> f = frequencies(four_way(), config, 20000);
  EXPECT_NEAR(f[0], 0.5, 0.02);
  EXPECT_NEAR(f[1], 0.25, 0.02);
  EXPECT_NEAR(f[2], 0.15, 0.02);
  EXPECT_NEAR(f[3], 0.1, 0.02);
}

TEST(Sampler, TemperatureFlattensTheDistribution) {
  SamplingConfig config;
  config.temperature = 2.0f;
  config.seed = 5;
  std::vector<double> f = frequencies(four_way(), config, 20000);
  double z = std::sqrt(0.5) + std::sqrt(0.25) + std::sqrt(0.15) + std::sqrt(0.1);
  EXPECT_NEAR(f[0], std::sqrt(0.5) / z, 0.02);
  EXPECT_NEAR(f[3], std::sqrt(0.1) / z, 0.02);
}

TEST(Sampler, TopKTopPAndMinPRenormalizeWhatTheyKeep) {
  SamplingConfig config;
  config.temperature = 1.0f;
  config.seed = 77;
  config.top_k = 2;
  std::vector<double> f = frequencies(four_way(), config, 20000);
  EXPECT_NEAR(f[0], 2.0 / 3, 0.02);
  EXPECT_EQ(f[2] + f[3], 0.0);
  config.top_k = 0;
  config.top_p = 0.7f;
  f = frequencies(four_way(), config, 20000);
  EXPECT_NEAR(f[1], 1.0 / 3, 0.02);
  EXPECT_EQ(f[2] + f[3], 0.0);
  config.top_p = 1.0f;
  config.min_p = 0.25f;  // keeps p >= 0.125
  f = frequencies(four_way(), config, 20000);
  EXPECT_NEAR(f[2], 0.15 / 0.9, 0.02);
  EXPECT_EQ(f[3], 0.0);
}

TEST(Sampler, TinyTopPOrTopKOneIsGreedy) {
  Sampler s(4);
  SamplingConfig config;
  config.temperature = 1.5f;
  config.top_p = 0.01f;
  for (int pos = 0; pos < 50; ++pos) EXPECT_EQ(sample_token(s, four_way(), config, {}, pos), 0);
  config.top_p = 1.0f;
  config.top_k = 1;
  for (int pos = 0; pos < 50; ++pos) EXPECT_EQ(sample_token(s, four_way(), config, {}, pos), 0);
}

TEST(Sampler, LogprobsDescribeThePenalizedDistributionBeforeTemperature) {
  Sampler s(4);
  SamplingConfig config;
  config.temperature = 5.0f;
  config.top_k = 1;
  config.n_top_logprobs = 2;
  TokenLogprob top[4];
  Result<SampleResult> r = s.sample(four_way(), config, {}, 0, top);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->token, 0);
  EXPECT_NEAR(r->logprob, std::log(0.5), 1e-6);
  ASSERT_EQ(r->n_top, 2);
  EXPECT_EQ(top[0].token, 0);
  EXPECT_EQ(top[1].token, 1);
  EXPECT_NEAR(top[1].logprob, std::log(0.25), 1e-6);
}

TEST(Sampler, LogprobsAreOnlyComputedWhenAsked) {
  Sampler s(4);
  SamplingConfig config;
  Result<SampleResult> r = s.sample(four_way(), config, {}, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->logprob, 0.0f);
  EXPECT_EQ(r->n_top, 0);
  config.logprobs = true;
  r = s.sample(four_way(), config, {}, 0);
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->logprob, std::log(0.5), 1e-6);
}

TEST(Sampler, BadInputsAreErrors) {
  Sampler s(4);
  SamplingConfig config;
  EXPECT_EQ(s.sample(std::vector<float>(3), config, {}, 0).status().code(), Code::kInvalidArgument);
  config.logit_bias = {{4, 1.0f}};
  EXPECT_NE(s.sample(four_way(), config, {}, 0).status().message().find("logit_bias token 4"), std::string::npos);
  config = SamplingConfig{};
  config.top_p = 0.0f;
  EXPECT_NE(s.sample(four_way(), config, {}, 0).status().message().find("top_p"), std::string::npos);
  config = SamplingConfig{};
  config.temperature = 1.0f;
  std::vector<float> dead(4, -INFINITY);
  EXPECT_NE(s.sample(dead, config, {}, 0).status().message().find("no token has a finite logit"), std::string::npos);
  config.repeat_penalty = 1.5f;
  EXPECT_NE(s.sample(four_way(), config, std::vector<int32_t>{12}, 0).status().message().find("history token 12"),
            std::string::npos);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

TEST(Sampler, AllowedMaskRestrictsEveryDraw) {
  Sampler s(4);
  const std::vector<uint64_t> only_2_and_3 = {0b1100};
  SamplingConfig greedy;
  Result<SampleResult> r = s.sample(four_way(), greedy, {}, 0, {}, only_2_and_3);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->token, 2);
  SamplingConfig random;
  random.temperature = 1.0f;
  random.logprobs = true;
  for (int pos = 0; pos < 200; ++pos) {
    r = s.sample(four_way(), random, {}, pos, {}, only_2_and_3);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->token == 2 || r->token == 3);
    EXPECT_LE(r->logprob, 0.0f);
  }
}

TEST(Sampler, MaskThatAllowsNothingIsAnError) {
  Sampler s(4);
  const std::vector<uint64_t> none = {0};
  EXPECT_FALSE(s.sample(four_way(), SamplingConfig{}, {}, 0, {}, none).ok());
  const std::vector<uint64_t> wrong_size = {1, 1};
  EXPECT_FALSE(s.sample(four_way(), SamplingConfig{}, {}, 0, {}, wrong_size).ok());
}

}  // namespace
}  // namespace strata
