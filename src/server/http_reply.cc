#include "server/http_reply.h"

#include <array>
#include <string>

#include <fmt/format.h>

#include "base/log.h"
#include "server/sse.h"

namespace strata::server {

namespace {

struct KnownRoute {
  std::string_view path;
  std::string_view methods;  // the Allow header of a 405
};

constexpr std::string_view kGet = "GET, HEAD";
constexpr std::string_view kPost = "POST";
constexpr std::string_view kGetDelete = "GET, HEAD, DELETE";
constexpr std::string_view kStoredResponses = "/v1/responses/";

// /v1/responses/{id} and /v1/responses/{id}/input_items (an id has no '/').
enum class StoredResponsePath { kNone, kResponse, kInputItems };
StoredResponsePath stored_response_route(std::string_view path) {
  if (!path.starts_with(kStoredResponses) || path.size() == kStoredResponses.size()) return StoredResponsePath::kNone;
  const size_t slash = path.find('/', kStoredResponses.size());
  if (slash == std::string_view::npos) return StoredResponsePath::kResponse;
  return path.substr(slash) == "/input_items" && slash > kStoredResponses.size() ? StoredResponsePath::kInputItems
                                                                                 : StoredResponsePath::kNone;
}

// Every route the server registers (add_*_routes), with its methods.
constexpr std::array<KnownRoute, 14> kRoutes = {{{"/v1/chat/completions", kPost},
                                                 {"/v1/completions", kPost},
                                                 {"/v1/responses", kPost},
                                                 {"/v1/embeddings", kPost},
                                                 {"/v1/messages", kPost},
                                                 {"/v1/messages/count_tokens", kPost},
                                                 {"/tokenize", kPost},
                                                 {"/detokenize", kPost},
                                                 {"/v1/models", kGet},
                                                 {"/v1/status", kGet},
                                                 {"/slots", kGet},
                                                 {"/health", kGet},
                                                 {"/metrics", kGet},
                                                 {"/", kGet}}};

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
  // A 500 is a server bug or an unexpected failure: it must leave a trace beyond the client.
  if (error.http_status == 500) STRATA_LOG_ERROR("answering 500 {}: {}", error.code, error.message);
  if (error.retry_after_s > 0) res.set_header("Retry-After", std::to_string(error.retry_after_s));
  reply_json(res, error.http_status,
             style == ErrorStyle::kAnthropic ? anthropic_error_body(error) : openai_error_body(error));
}

void reply_no_route(httplib::Response& res, std::string_view method, std::string_view path) {
  const std::string_view allow = allowed_methods(path);
  if (allow.empty()) {
    return reply_error(res, ApiError::NotFound(fmt::format("no route for {} {}", method, path)),
                       error_style_for(path));
  }
  res.set_header("Allow", std::string(allow));
  reply_error(res, ApiError::MethodNotAllowed(fmt::format("{} answers {}, not {}", path, allow, method)),
              error_style_for(path));
}

std::string_view allowed_methods(std::string_view path) {
  for (const KnownRoute& route : kRoutes) {
    if (path == route.path) return route.methods;
  }
  if (starts_with(path, "/v1/models/") && path.size() > 11) return kGet;
  if (stored_response_route(path) == StoredResponsePath::kResponse) return kGetDelete;
  if (stored_response_route(path) == StoredResponsePath::kInputItems) return kGet;
  return "";
}

std::string_view route_label(std::string_view path, int http_status) {
  for (const KnownRoute& route : kRoutes) {
    if (path == route.path) return route.path;
  }
  if (starts_with(path, "/v1/models/")) return "/v1/models/{id}";
  if (stored_response_route(path) == StoredResponsePath::kInputItems) return "/v1/responses/{id}/input_items";
  if (starts_with(path, kStoredResponses)) return "/v1/responses/{id}";
  if (http_status == 200 && !starts_with(path, "/v1/")) return "static";
  return "unknown";
}

bool path_needs_auth(std::string_view path, bool metrics_no_auth) {
  if (path == "/metrics") return !metrics_no_auth;
  return starts_with(path, "/v1/") || path == "/tokenize" || path == "/detokenize" ||
         path == "/slots";
}

}  // namespace strata::server
