#include "sampling/sampling_config.h"

#include <gtest/gtest.h>

#include <cmath>

namespace strata {
namespace {

TEST(SamplingConfig, DefaultsAreValid) { EXPECT_TRUE(validate_sampling_config(SamplingConfig{}, 10).ok()); }

TEST(SamplingConfig, OutOfRangeFieldsAreNamed) {
  auto message = [](void (*edit)(SamplingConfig&)) {
    SamplingConfig c;
    edit(c);
    return validate_sampling_config(c, 10).message();
  };
  EXPECT_NE(message([](SamplingConfig& c) { c.temperature = -1; }).find("temperature"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.top_k = -1; }).find("top_k"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.top_p = 1.5f; }).find("top_p"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.min_p = NAN; }).find("min_p"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.repeat_penalty = 0; }).find("repeat_penalty"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.repeat_last_n = -2; }).find("repeat_last_n"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.frequency_penalty = INFINITY; }).find("frequency_penalty"),
            std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.n_top_logprobs = 11; }).find("n_top_logprobs"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.logit_bias = {{-1, 0}}; }).find("logit_bias token -1"), std::string::npos);
  EXPECT_NE(message([](SamplingConfig& c) { c.logit_bias = {{1, NAN}}; }).find("logit_bias for token 1"),
            std::string::npos);
}

}  // namespace
}  // namespace strata
