#include "server/api_error.h"

#include <gtest/gtest.h>

namespace strata::server {
namespace {

TEST(ApiError, EngineStatusesMapToHttpAnswers) {
  EXPECT_EQ(api_error_from_status(Status::InvalidArgument("x")).http_status, 400);
  EXPECT_EQ(api_error_from_status(Status::Unsupported("x")).http_status, 400);
  ApiError context = api_error_from_status(Status::OutOfRange("too long"));
  EXPECT_EQ(context.http_status, 400);
  EXPECT_EQ(context.code, "context_length_exceeded");
  EXPECT_EQ(context.message, "too long");
  ApiError full = api_error_from_status(Status::ResourceExhausted("queue full"));
  EXPECT_EQ(full.http_status, 429);
  EXPECT_EQ(full.retry_after_s, 1);
  EXPECT_EQ(api_error_from_status(Status::Cancelled("x")).http_status, 503);
  EXPECT_EQ(api_error_from_status(Status::Internal("x")).http_status, 500);
}

TEST(ApiError, OpenAiBodyHasMessageTypeAndCode) {
  nlohmann::json body = openai_error_body(ApiError::Unauthorized());
  EXPECT_EQ(body["error"]["type"], "authentication_error");
  EXPECT_EQ(body["error"]["code"], "invalid_api_key");
  EXPECT_TRUE(body["error"]["message"].is_string());
  EXPECT_TRUE(body["error"]["param"].is_null());
}

TEST(ApiError, AnthropicBodyUsesAnthropicTypeNames) {
  nlohmann::json body = anthropic_error_body(ApiError::TooLarge("big"));
  EXPECT_EQ(body["type"], "error");
  EXPECT_EQ(body["error"]["type"], "request_too_large");
  EXPECT_EQ(body["error"]["message"], "big");
  EXPECT_EQ(body["error"]["code"], "body_too_large");
  EXPECT_EQ(anthropic_error_body(ApiError::QueueFull("q"))["error"]["type"], "rate_limit_error");
  EXPECT_EQ(anthropic_error_body(ApiError::BadRequest("c", "m"))["error"]["type"],
            "invalid_request_error");
}

}  // namespace
}  // namespace strata::server
