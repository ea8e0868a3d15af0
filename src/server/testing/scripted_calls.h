// Test support for the tool-call HTTP tests: what their scripted replies call. Header-only (test
// translation units include GoogleTest already); stateless.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace strata::server::testing {

// An OpenAI message's two tool_calls (the caller asserts there are two) as the tests script them:
// get_weather for Paris over 3 days, then plan with plan_arguments (its JSON text as the model's
// syntax gives it back: key order and nulls differ between families).
inline void expect_weather_then_plan(const nlohmann::json& calls, const std::string& plan_arguments) {
  EXPECT_EQ(calls[0]["function"]["name"], "get_weather");
  EXPECT_EQ(calls[0]["function"]["arguments"], R"({"city":"Paris","days":3})");
  EXPECT_EQ(calls[1]["function"]["name"], "plan");
  EXPECT_EQ(calls[1]["function"]["arguments"], plan_arguments);
}

}  // namespace strata::server::testing
