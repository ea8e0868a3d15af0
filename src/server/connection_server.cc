#include "server/connection_server.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/clock.h"
#include "base/log.h"
#include "server/api_error.h"
#include "server/connection_stream.h"
#include "server/connection_threads.h"
#include "server/http_framing.h"

namespace strata::server {

namespace {

constexpr int kSpareThreads = 16;  // run refusals while every connection thread is busy
constexpr size_t kKeepAliveMaxRequests = 1000;
constexpr double kRefusalDrainS = 0.1;

// An answer written straight to the socket, outside httplib (it never saw a whole request).
std::string raw_response(const ApiError& error, const char* reason) {
  const std::string body = openai_error_body(error).dump();
  std::string retry = error.retry_after_s > 0 ? fmt::format("Retry-After: {}\r\n", error.retry_after_s) : "";
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n{}",
      error.http_status, reason, body.size(), retry, body);
}

// Over the connection limit: answer at once without waiting for the request, then close.
void refuse(int sock, int max_connections) {
  ApiError error = ApiError::Unavailable(
      "too_many_connections",
      fmt::format("the server has {} connections open (its limit); retry shortly", max_connections));
  const std::string bytes = raw_response(error, "Service Unavailable");
  (void)::send(sock, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(sock, SHUT_WR);
  // Request bytes left unread would turn the close into a reset, which can discard the answer
  // before the client reads it: read what the client sends for a moment, bounded.
  char sink[4096];
  const double until_s = monotonic_s() + kRefusalDrainS;
  while (monotonic_s() < until_s) {
    pollfd p{sock, POLLIN, 0};
    if (::poll(&p, 1, 10) <= 0) continue;
    if (::recv(sock, sink, sizeof(sink), MSG_DONTWAIT) <= 0) break;
  }
}

}  // namespace

ConnectionServer::ConnectionServer(ConnectionLimits limits, RawAnswerHook on_raw_answer)
    : limits_(limits), on_raw_answer_(std::move(on_raw_answer)) {
  new_task_queue = [limits] {
    return new ConnectionThreads(limits.n_initial_threads, limits.max_connections + kSpareThreads);
  };
  set_keep_alive_max_count(kKeepAliveMaxRequests);
  set_keep_alive_timeout(static_cast<time_t>(std::ceil(limits.keep_alive_idle_s)));
  const double whole_s = std::floor(limits.write_timeout_s);
  set_write_timeout(static_cast<time_t>(whole_s),
                    static_cast<time_t>((limits.write_timeout_s - whole_s) * 1e6));
}

bool ConnectionServer::widen_listen_backlog(int n_pending) {
  const int sock = svr_sock_;
  return sock != INVALID_SOCKET && ::listen(sock, n_pending) == 0;
}

bool ConnectionServer::process_and_close_socket(int sock) {
  if (open_connections_.fetch_add(1) >= limits_.max_connections) {
    STRATA_LOG_DEBUG("connection refused: {} open (--max-connections)", limits_.max_connections);
    if (on_raw_answer_) on_raw_answer_(503);  // before the client can see the answer
    refuse(sock, limits_.max_connections);
  } else {
    serve_connection(sock);
  }
  open_connections_.fetch_sub(1);
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

void ConnectionServer::serve_connection(int sock) {
  ConnectionStream stream(sock, limits_.write_timeout_s, [this] { return stopping(); });
  double idle_s = limits_.first_request_idle_s;
  for (size_t n = 1; n <= keep_alive_max_count_; ++n) {
    if (!stream.wait_for_request(idle_s)) return;
    stream.begin_request(limits_.request_deadline_s);
    const bool last = n == keep_alive_max_count_ || stopping();
    bool client_closes = false;
    BodyFraming framing;
    const bool ok = process_request(stream, last, client_closes, [&](httplib::Request& req) {
      framing = body_framing(req, stream.bytes_consumed());
    });
    if (stream.deadline_expired()) {
      ApiError error{408, "invalid_request_error", "request_timeout",
                     fmt::format("the request's head and body did not arrive within {:g} s",
                                 limits_.request_deadline_s)};
      if (on_raw_answer_) on_raw_answer_(408);
      stream.write_raw(raw_response(error, "Request Timeout"));
      return;
    }
    if (!ok || client_closes || last || !framing.body_read(stream.bytes_consumed())) return;
    idle_s = limits_.keep_alive_idle_s;
  }
}

}  // namespace strata::server
