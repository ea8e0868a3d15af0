#include "server/http_reply.h"

#include <array>
#include <string>

#include "server/sse.h"

namespace strata::server {

namespace {

constexpr std::array<std::string_view, 12> kRoutes = {
    "/v1/chat/completions", "/v1/completions", "/v1/messages", "/v1/models", "/v1/status",
    "/tokenize",            "/detokenize",     "/slots",       "/health",    "/metrics",
    "/",                    "/v1/messages/count_tokens"};

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

ErrorStyle error_style_for(std::string_view path) {
  return starts_with(path, "/v1/messages") ? ErrorStyle::kAnthropic : ErrorStyle::kOpenAi;
}

void reply_json(httplib::Response& res, int http_status, const nlohmann::json& body) {
  res.status = http_status;
  res.set_content(dump_json(body), "application/json");
}

void reply_error(httplib::Response& res, const ApiError& error, ErrorStyle style) {
  if (error.retry_after_s > 0) res.set_header("Retry-After", std::to_string(error.retry_after_s));
  reply_json(res, error.http_status,
             style == ErrorStyle::kAnthropic ? anthropic_error_body(error) : openai_error_body(error));
}

std::string_view route_label(std::string_view path, int http_status) {
  for (std::string_view route : kRoutes) {
    if (path == route) return route;
  }
  if (starts_with(path, "/v1/models/")) return "/v1/models/{id}";
  if (http_status == 200 && !starts_with(path, "/v1/")) return "static";
  return "unknown";
}

bool path_needs_auth(std::string_view path, bool metrics_no_auth) {
  if (path == "/metrics") return !metrics_no_auth;
  return starts_with(path, "/v1/") || path == "/tokenize" || path == "/detokenize" ||
         path == "/slots";
}

}  // namespace strata::server
