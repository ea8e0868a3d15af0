// /metrics and the web page: both answered through RouteHooks, so the server does not depend
// on the metrics or web modules' types.
#include <string>

#include "server/routes.h"

namespace strata::server {

namespace {

using httplib::Request;
using httplib::Response;

std::string query_of(const std::string& target) {
  size_t q = target.find('?');
  return q == std::string::npos ? std::string() : target.substr(q + 1);
}

void serve_metrics(const RouteContext& ctx, const Request& req, Response& res) {
  if (!ctx.hooks->render_metrics) {
    return reply_error(res, ApiError::NotFound("metrics are not available in this build"),
                       ErrorStyle::kOpenAi);
  }
  HttpBody page = ctx.hooks->render_metrics(req.get_header_value("Accept"), query_of(req.target));
  res.status = page.http_status;
  res.set_content(std::move(page.body), page.content_type);
}

void serve_asset(const RouteContext& ctx, const Request& req, Response& res) {
  std::optional<HttpBody> asset;
  if (ctx.hooks->web_asset) asset = ctx.hooks->web_asset(req.path);
  if (!asset) return reply_no_route(res, req.method, req.path);
  res.status = 200;
  res.set_content(std::move(asset->body), asset->content_type);
}

}  // namespace

void add_web_routes(httplib::Server& http, RouteContext ctx) {
  http.Get("/metrics", [ctx](const Request& req, Response& res) { serve_metrics(ctx, req, res); });
  http.Get("/.*", [ctx](const Request& req, Response& res) { serve_asset(ctx, req, res); });
}

}  // namespace strata::server
