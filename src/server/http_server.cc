#include "server/http_server.h"

#include <httplib.h>

#include <chrono>
#include <exception>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "base/log.h"
#include "server/connection_server.h"
#include "server/http_framing.h"
#include "server/http_reply.h"
#include "server/routes.h"

namespace strata::server {

namespace {

using httplib::Request;
using httplib::Response;
using HandlerResponse = httplib::Server::HandlerResponse;

constexpr int kDefaultHttpThreads = 32;
constexpr int kListenBacklog = 1024;  // the kernel caps it at net.core.somaxconn

ConnectionLimits limits_from(const ServerConfig& config) {
  ConnectionLimits limits;
  limits.max_connections = config.max_connections;
  limits.n_initial_threads = config.http_threads > 0 ? config.http_threads : kDefaultHttpThreads;
  limits.request_deadline_s = config.request_deadline_s;
  limits.first_request_idle_s = config.request_deadline_s;
  return limits;
}

// Answers that httplib produces itself (no route, body over the limit, bad request line) get
// the same JSON error bodies as ours.
HandlerResponse fill_error_body(const Request& req, Response& res, uint64_t max_body_bytes) {
  if (!res.body.empty() || res.content_provider_) return HandlerResponse::Unhandled;
  const ErrorStyle style = error_style_for(req.path);
  ApiError error;
  switch (res.status) {
    case 404: reply_no_route(res, req.method, req.path); return HandlerResponse::Handled;
    case 413:
      error = ApiError::TooLarge(
          fmt::format("request body exceeds the limit of {} bytes (--max-body)", max_body_bytes));
      break;
    case 414:
      error = ApiError::BadRequest("uri_too_long", "the request target is longer than 8192 bytes");
      error.http_status = 414;
      break;
    case 400: error = ApiError::BadRequest("bad_request", "malformed HTTP request"); break;
    default:
      error = ApiError{res.status, res.status < 500 ? "invalid_request_error" : "server_error", "http_error",
                       fmt::format("HTTP status {}", res.status)};
  }
  reply_error(res, error, style);
  return HandlerResponse::Handled;
}

// A Content-Length httplib would misread (it takes "-5" as 2^64-5 and answers 413 after trying
// to skip that many bytes): refused before any body is read; the connection then closes.
bool reply_if_bad_framing(const Request& req, Response& res) {
  if (!req.has_header("Content-Length")) return false;
  const std::string value = req.get_header_value("Content-Length");
  if (parse_content_length(value)) return false;
  reply_error(res,
              ApiError::BadRequest("invalid_content_length",
                                   fmt::format("Content-Length must be a non-negative integer, got '{}'",
                                               value.substr(0, 40))),
              error_style_for(req.path));
  return true;
}

std::string exception_text(const std::exception_ptr& ep) {
  try {
    if (ep) std::rethrow_exception(ep);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
  }
  return "unknown exception";
}

}  // namespace

HttpServer::HttpServer(ServerState* state, RouteHooks hooks)
    : state_(state),
      hooks_(std::move(hooks)),
      auth_(state->config().api_keys),
      http_(std::make_unique<ConnectionServer>(limits_from(state->config()), [this](int http_status) {
        // The request was never read whole: no route, no method.
        if (hooks_.on_http_request) hooks_.on_http_request("unknown", "unknown", http_status);
      })) {
  install_handlers();
}

HttpServer::~HttpServer() = default;

void HttpServer::install_handlers() {
  const ServerConfig& config = state_->config();
  http_->set_payload_max_length(config.max_body_bytes);
  http_->set_pre_routing_handler([this](const Request& req, Response& res) {
    if (reply_if_bad_framing(req, res)) return HandlerResponse::Handled;
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
  http_->set_exception_handler([](const Request& req, Response& res, std::exception_ptr ep) {
    STRATA_LOG_ERROR("{} {} threw: {}", req.method, req.path, exception_text(ep));
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
  add_stored_response_routes(*http_, ctx);
  add_embedding_routes(*http_, ctx);
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
  if (!http_->widen_listen_backlog(kListenBacklog)) {
    STRATA_LOG_WARN("cannot raise the listen backlog to {}; bursts of connections may wait", kListenBacklog);
  }
  return port;
}

void HttpServer::serve() { http_->listen_after_bind(); }

void HttpServer::wait_until_running() const {
  while (!http_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void HttpServer::stop() { http_->stop(); }

int HttpServer::open_connections() const { return http_->open_connections(); }

}  // namespace strata::server
