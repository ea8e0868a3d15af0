// Moves one request's engine events to its HTTP response, and notices when the client leaves.
//
// A ResponseRenderer turns events into bytes for one API and one mode (stream or not). The pump
// runs on the HTTP thread that owns the response: it waits for events in short slices, checks
// the connection between them, sends keep-alives while nothing happens (long prompt reads), and
// cancels the engine request as soon as the client is gone or a write fails.
#pragma once

#include <functional>

#include "engine/engine_types.h"
#include "server/generation_session.h"

namespace strata::server {

class ResponseRenderer {
 public:
  virtual ~ResponseRenderer() = default;
  // Each returns false when writing to the client failed.
  virtual bool start() = 0;                              // before any event
  virtual bool token(const RequestEvent& event) = 0;     // kToken
  virtual bool finish(const RequestEvent& event) = 0;    // kDone or kError (the last call)
  virtual bool keep_alive() = 0;                         // nothing happened for a while
};

struct PumpTiming {
  double poll_s = 0.05;       // how often the connection is checked while waiting
  double keep_alive_s = 5.0;  // silence before a keep-alive is sent
};

// Runs until the final event has been rendered (true) or the client left (false; the engine
// request is cancelled before returning). client_alive must be cheap and non-blocking.
bool pump_generation(GenerationSession& session, ResponseRenderer& renderer,
                     const std::function<bool()>& client_alive, const PumpTiming& timing);

}  // namespace strata::server
