#include "sampling/penalties.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata {
namespace {

struct PenaltyCase {
  std::vector<float> logits = {2.0f, -2.0f, 1.0f, 0.5f, 3.0f};
  std::vector<int32_t> counts = std::vector<int32_t>(5, 0);

  Status run(const std::vector<int32_t>& history, const SamplingConfig& config) {
    return apply_penalties(logits, history, config, counts);
  }
};

TEST(Penalties, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogits) {
  PenaltyCase c;
  SamplingConfig config;
  config.repeat_penalty = 2.0f;
  ASSERT_TRUE(c.run({0, 1, 1, 0}, config).ok());
  EXPECT_EQ(c.logits, (std::vector<float>{1.0f, -4.0f, 1.0f, 0.5f, 3.0f}));  // once per distinct token
  EXPECT_EQ(c.counts, std::vector<int32_t>(5, 0));
}

TEST(Penalties, OnlyTheLastRepeatLastNTokensCount) {
  PenaltyCase c;
  SamplingConfig config;
  config.repeat_penalty = 2.0f;
  config.repeat_last_n = 2;
  ASSERT_TRUE(c.run({4, 0, 2, 3}, config).ok());
  EXPECT_EQ(c.logits, (std::vector<float>{2.0f, -2.0f, 0.5f, 0.25f, 3.0f}));
}

TEST(Penalties, RepeatLastNZeroDisablesAndMinusOneMeansAll) {
  SamplingConfig config;
  config.repeat_penalty = 2.0f;
  config.repeat_last_n = 0;
  PenaltyCase off;
  ASSERT_TRUE(off.run({0, 4}, config).ok());
  EXPECT_EQ(off.logits, PenaltyCase().logits);
  config.repeat_last_n = -1;
  PenaltyCase all;
  ASSERT_TRUE(all.run({0, 2, 3, 4, 2}, config).ok());
  EXPECT_EQ(all.logits, (std::vector<float>{1.0f, -2.0f, 0.5f, 0.25f, 1.5f}));
}

TEST(Penalties, FrequencyScalesWithCountAndPresenceIsFlat) {
  PenaltyCase c;
  SamplingConfig config;
  config.frequency_penalty = 0.5f;
  config.presence_penalty = 0.25f;
  ASSERT_TRUE(c.run({2, 2, 2, 3}, config).ok());
  EXPECT_EQ(c.logits, (std::vector<float>{2.0f, -2.0f, 1.0f - 1.5f - 0.25f, 0.5f - 0.5f - 0.25f, 3.0f}));
}

TEST(Penalties, HistoryTokenOutsideVocabularyFailsAndChangesNothing) {
  PenaltyCase c;
  SamplingConfig config;
  config.repeat_penalty = 2.0f;
  Status st = c.run({0, 9}, config);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_NE(st.message().find("history token 9"), std::string::npos);
  EXPECT_EQ(c.logits, PenaltyCase().logits);
  EXPECT_EQ(c.counts, std::vector<int32_t>(5, 0));
}

TEST(Penalties, LogitBiasAddsAndMinusInfinityBans) {
  std::vector<float> logits = {1.0f, 2.0f, 3.0f};
  apply_logit_bias(logits, {{0, 5.0f}, {2, -INFINITY}});
  EXPECT_EQ(logits[0], 6.0f);
  EXPECT_EQ(logits[1], 2.0f);
  EXPECT_TRUE(std::isinf(logits[2]) && logits[2] < 0);
}

}  // namespace
}  // namespace strata
