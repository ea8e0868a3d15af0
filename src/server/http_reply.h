// Small helpers every route uses to answer: JSON bodies, error bodies in the caller's API
// style, the route label used by metrics, and which paths need an API key.
//
// Stateless; thread-safe. Internal to the server module (it exposes httplib types).
#pragma once

#include <string_view>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/api_error.h"

namespace strata::server {

enum class ErrorStyle { kOpenAi, kAnthropic };

// The Anthropic route answers errors in Anthropic's shape; everything else in OpenAI's.
ErrorStyle error_style_for(std::string_view path);

void reply_json(httplib::Response& res, int http_status, const nlohmann::json& body);
// Logs every 500 (an answer the server did not plan for) before sending it.
void reply_error(httplib::Response& res, const ApiError& error, ErrorStyle style);
// No handler took the request: 404 for a path no route knows, 405 with an Allow header for a
// known path asked with another method.
void reply_no_route(httplib::Response& res, std::string_view method, std::string_view path);
// The methods a known route answers ("GET, HEAD" or "POST"); "" for a path no route knows.
std::string_view allowed_methods(std::string_view path);

// The route name for metrics labels: a known route path, "/v1/models/{id}", "static" for web
// assets answered 200, or "unknown".
std::string_view route_label(std::string_view path, int http_status);

// API routes need a key when keys are configured; /health, the web page and its assets never
// do; /metrics does unless metrics_no_auth.
bool path_needs_auth(std::string_view path, bool metrics_no_auth);

}  // namespace strata::server
