// RouteHooks: the seams through which the HTTP server reaches the metrics and web modules
// without depending on their types. serve_command.cc fills them; every hook may be empty
// (the route then answers 404, or the event is dropped).
//
// Hooks are called concurrently from HTTP threads; implementations must be thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace strata::server {

struct HttpBody {
  std::string body;
  std::string content_type;
  int http_status = 200;
};

struct RouteHooks {
  // GET /metrics: given the request's Accept header and its query string (e.g. "format=json"),
  // returns the page and its content type (content negotiation belongs to the metrics module).
  std::function<HttpBody(const std::string& accept, const std::string& query)> render_metrics;
  // GET / and static assets: the asset at path ("/" for the page itself), or nullopt.
  std::function<std::optional<HttpBody>(std::string_view path)> web_asset;
  // Called once after each response: handler is the route's name (e.g. "/v1/chat/completions",
  // "static", "unknown"), never the raw path, so label cardinality stays bounded.
  std::function<void(std::string_view handler, std::string_view method, int status)> on_http_request;
};

}  // namespace strata::server
