// Moves one request's engine events to its HTTP response, and notices when the client leaves.
//
// A ResponseRenderer turns events into bytes for one API and one mode (stream or not). The pump
// runs on the HTTP thread that owns the response: it waits for events in short slices, checks
// the connection between them, sends keep-alives while nothing happens (long prompt reads), and
// cancels the engine requests as soon as the client is gone or a write fails. A choice that ends
// without stop or length (an engine error, an abort) ends the whole answer: the other choices
// are cancelled, and the renderer answers with that first choice's error.
#pragma once

#include <functional>

#include "engine/engine_types.h"
#include "server/generation_session.h"

namespace strata::server {

class ResponseRenderer {
 public:
  virtual ~ResponseRenderer() = default;
  // Each returns false when writing to the client failed.
  // choice: 0 .. the session's n_choices() - 1.
  virtual bool start() = 0;                                        // before any event
  virtual bool token(int choice, const RequestEvent& event) = 0;   // kToken
  // kDone or kError: once per choice; the answer is complete after the last choice's.
  virtual bool finish(int choice, const RequestEvent& event) = 0;
  virtual bool keep_alive() = 0;                                   // nothing happened for a while
};

struct PumpTiming {
  double poll_s = 0.05;       // how often the connection is checked while waiting
  double keep_alive_s = 5.0;  // silence before a keep-alive is sent
};

// Runs until every choice's final event has been rendered (true) or the client left (false;
// the engine requests are cancelled before returning). client_alive must be cheap and non-blocking.
bool pump_generation(GenerationSession& session, ResponseRenderer& renderer,
                     const std::function<bool()>& client_alive, const PumpTiming& timing);

}  // namespace strata::server
