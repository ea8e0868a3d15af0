// HttpServer: the HTTP front of `strata serve` — listening socket, worker threads, API-key
// check, error bodies, per-response metrics hook, and the route groups.
//
// Owns its httplib server (a ConnectionServer: a thread per connection up to a limit, request
// deadlines, pipelining) and its threads; borrows the ServerState (which must outlive it).
// bind() then serve() on one thread; stop() may be called from any thread once
// wait_until_running() has returned. After stop(), serve() returns once every in-flight
// request has been answered.
#pragma once

#include <memory>

#include "base/status.h"
#include "server/auth.h"
#include "server/route_hooks.h"
#include "server/server_state.h"

namespace strata::server {

class ConnectionServer;

class HttpServer {
 public:
  HttpServer(ServerState* state, RouteHooks hooks);
  ~HttpServer();

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds config().host:config().port (port 0: a free port). Returns the bound port.
  Result<int> bind();
  // Accepts connections until stop(). Blocks.
  void serve();
  // Returns once serve() is accepting; stop() before that point would be lost.
  void wait_until_running() const;
  // Stops accepting; serve() then returns once in-flight requests finish. Thread-safe.
  void stop();
  // Connections open now (being served, or idle between requests). Thread-safe.
  int open_connections() const;

 private:
  void install_handlers();

  ServerState* state_;
  RouteHooks hooks_;
  ApiKeyAuth auth_;
  std::unique_ptr<ConnectionServer> http_;
};

}  // namespace strata::server
