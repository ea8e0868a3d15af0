#include "server/http_server.h"

#include <httplib.h>

#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "base/log.h"
#include "server/http_reply.h"
#include "server/routes.h"

namespace strata::server {

namespace {

using httplib::Request;
using httplib::Response;
using HandlerResponse = httplib::Server::HandlerResponse;

constexpr int kDefaultHttpThreads = 32;
constexpr time_t kKeepAliveIdleS = 2;  // short, so idle keep-alive connections do not hold up a drain

// Answers that httplib produces itself (no route, body over the limit, bad request line) get
// the same JSON error bodies as ours.
HandlerResponse fill_error_body(const Request& req, Response& res, uint64_t max_body_bytes) {
  if (!res.body.empty() || res.content_provider_) return HandlerResponse::Unhandled;
  ApiError error;
  switch (res.status) {
    case 404: error = ApiError::NotFound(fmt::format("no route for {} {}", req.method, req.path)); break;
    case 413:
      error = ApiError::TooLarge(
          fmt::format("request body exceeds the limit of {} bytes (--max-body)", max_body_bytes));
      break;
    case 400: error = ApiError::BadRequest("bad_request", "malformed HTTP request"); break;
    default:
      error = ApiError{res.status, "server_error", "http_error", fmt::format("HTTP status {}", res.status)};
  }
  reply_error(res, error, error_style_for(req.path));
  return HandlerResponse::Handled;
}

}  // namespace

HttpServer::HttpServer(ServerState* state, RouteHooks hooks)
    : state_(state),
      hooks_(std::move(hooks)),
      auth_(state->config().api_keys),
      http_(std::make_unique<httplib::Server>()) {
  install_handlers();
}

HttpServer::~HttpServer() = default;

void HttpServer::install_handlers() {
  const ServerConfig& config = state_->config();
  const int n_threads = config.http_threads > 0 ? config.http_threads : kDefaultHttpThreads;
  http_->new_task_queue = [n_threads] { return new httplib::ThreadPool(n_threads); };
  http_->set_payload_max_length(config.max_body_bytes);
  http_->set_keep_alive_timeout(kKeepAliveIdleS);
  http_->set_pre_routing_handler([this](const Request& req, Response& res) {
    if (!path_needs_auth(req.path, state_->config().metrics_no_auth)) return HandlerResponse::Unhandled;
    if (auth_.allows(req.get_header_value("Authorization"), req.get_header_value("x-api-key"))) {
      return HandlerResponse::Unhandled;
    }
    reply_error(res, ApiError::Unauthorized(), error_style_for(req.path));
    return HandlerResponse::Handled;
  });
  const uint64_t max_body_bytes = config.max_body_bytes;
  http_->set_error_handler(httplib::Server::HandlerWithResponse(
      [max_body_bytes](const Request& req, Response& res) { return fill_error_body(req, res, max_body_bytes); }));
  http_->set_exception_handler([](const Request& req, Response& res, std::exception_ptr) {
    reply_error(res, ApiError::Internal("unexpected error while handling the request"),
                error_style_for(req.path));
  });
  http_->set_logger([this](const Request& req, const Response& res) {
    STRATA_LOG_DEBUG("http {} {} -> {}", req.method, req.path, res.status);
    if (hooks_.on_http_request) {
      hooks_.on_http_request(route_label(req.path, res.status), req.method, res.status);
    }
  });
  RouteContext ctx{state_, &hooks_};
  add_generation_routes(*http_, ctx);
  add_info_routes(*http_, ctx);
  add_web_routes(*http_, ctx);
}

Result<int> HttpServer::bind() {
  const ServerConfig& config = state_->config();
  int port = config.port;
  if (port == 0) {
    port = http_->bind_to_any_port(config.host);
    if (port <= 0) return Status::IoError(fmt::format("cannot bind {} on any port", config.host));
  } else if (!http_->bind_to_port(config.host, port)) {
    return Status::IoError(fmt::format("cannot bind {}:{} (in use, or a bad --host?)", config.host, port));
  }
  return port;
}

void HttpServer::serve() { http_->listen_after_bind(); }

void HttpServer::wait_until_running() const {
  while (!http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void HttpServer::stop() { http_->stop(); }

}  // namespace strata::server
