#include "server/api_error.h"

#include <utility>

namespace strata::server {

ApiError ApiError::BadRequest(std::string code, std::string message) {
  return {400, "invalid_request_error", std::move(code), std::move(message)};
}

ApiError ApiError::Unauthorized() {
  return {401, "authentication_error", "invalid_api_key",
          "missing or invalid API key: send 'Authorization: Bearer KEY' or 'x-api-key: KEY'"};
}

ApiError ApiError::NotFound(std::string message) {
  return {404, "not_found_error", "not_found", std::move(message)};
}

ApiError ApiError::MethodNotAllowed(std::string message) {
  return {405, "invalid_request_error", "method_not_allowed", std::move(message)};
}

ApiError ApiError::TooLarge(std::string message) {
  return {413, "invalid_request_error", "body_too_large", std::move(message)};
}

ApiError ApiError::QueueFull(std::string message) {
  ApiError e{429, "rate_limit_error", "queue_full", std::move(message)};
  e.retry_after_s = 1;
  return e;
}

ApiError ApiError::Unavailable(std::string code, std::string message) {
  ApiError e{503, "unavailable_error", std::move(code), std::move(message)};
  e.retry_after_s = 1;
  return e;
}

ApiError ApiError::Internal(std::string message) {
  return {500, "server_error", "internal_error", std::move(message)};
}

ApiError api_error_from_status(const Status& status) {
  const std::string& m = status.message();
  switch (status.code()) {
    case Code::kInvalidArgument:
    case Code::kCorrupt:
      return ApiError::BadRequest("invalid_value", m);
    case Code::kUnsupported:
      return ApiError::BadRequest("unsupported", m);
    case Code::kOutOfRange:
      return ApiError::BadRequest("context_length_exceeded", m);
    case Code::kResourceExhausted:
      return ApiError::QueueFull(m);
    case Code::kNotFound:
      return ApiError::NotFound(m);
    case Code::kCancelled:
      return ApiError::Unavailable("shutting_down", m);
    default:
      return ApiError::Internal(m);
  }
}

nlohmann::json openai_error_body(const ApiError& error) {
  return {{"error",
           {{"message", error.message}, {"type", error.type}, {"code", error.code}, {"param", nullptr}}}};
}

namespace {

// Anthropic names its error types after the HTTP status.
const char* anthropic_type(int http_status) {
  switch (http_status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 503: return "overloaded_error";
    default: return http_status >= 400 && http_status < 500 ? "invalid_request_error" : "api_error";
  }
}

}  // namespace

nlohmann::json anthropic_error_body(const ApiError& error) {
  return {{"type", "error"},
          {"error",
           {{"type", anthropic_type(error.http_status)}, {"message", error.message}, {"code", error.code}}}};
}

}  // namespace strata::server
