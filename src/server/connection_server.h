// ConnectionServer: httplib's Server with Strata's own connection loop, so that hostile or slow
// clients cannot hold up others:
//  - every connection gets a thread of its own (ConnectionThreads), up to max_connections open
//    at once; past that, a new connection is answered 503 (Retry-After) and closed at once;
//  - a request's head and body must arrive within request_deadline_s of its first byte (else
//    408 and the connection closes); a connection silent for longer than its idle allowance
//    is closed;
//  - one buffered stream per connection (ConnectionStream), so pipelined requests are answered
//    in order instead of dropped;
//  - a request whose body was not read to its end (answered before its body, e.g. 401, or with
//    a Content-Length that cannot be trusted) closes the connection rather than reading the
//    rest of its body as the next request.
//
// Thread-safe as httplib::Server is: connections run concurrently; open_connections() may be
// read from any thread.
#pragma once

#include <atomic>
#include <functional>

#include <httplib.h>

namespace strata::server {

struct ConnectionLimits {
  int max_connections = 512;
  int n_initial_threads = 8;
  double request_deadline_s = 10.0;  // from a request's first byte to the end of its body
  double first_request_idle_s = 10.0;  // a new connection's silence before its first request
  double keep_alive_idle_s = 2.0;      // silence between requests; short, so drains are quick
  double write_timeout_s = 5.0;
};

class ConnectionServer final : public httplib::Server {
 public:
  // Told the status of each answer written outside httplib (408, 503 refusals), which its
  // logger never sees; called from connection threads, so it must be thread-safe.
  using RawAnswerHook = std::function<void(int http_status)>;

  explicit ConnectionServer(ConnectionLimits limits, RawAnswerHook on_raw_answer = nullptr);

  int open_connections() const { return open_connections_.load(); }
  // After bind: httplib listens with a backlog of 5, so a burst of connections (or a few
  // slow-loris sockets arriving at once) overflows it and the kernel drops SYNs, which clients
  // retry only after 1 s, 3 s, 7 s. Re-listening with a larger backlog keeps the accept path open.
  bool widen_listen_backlog(int n_pending);

 private:
  bool process_and_close_socket(int sock) override;
  void serve_connection(int sock);
  bool stopping() const { return svr_sock_ == INVALID_SOCKET; }

  const ConnectionLimits limits_;
  const RawAnswerHook on_raw_answer_;
  std::atomic<int> open_connections_{0};
};

}  // namespace strata::server
