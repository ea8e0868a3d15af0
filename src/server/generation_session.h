// GenerationSession: one submitted engine request as seen from the HTTP thread that serves it.
//
// The engine delivers events on its own thread; the session queues them (a mutex-guarded
// deque, so the engine never waits on a slow client) and the HTTP thread takes them with
// next(). Owned by one HTTP handler; next()/cancel() are for that one thread, while the
// engine's callback may run concurrently. Destroying a session that has not seen its final
// event cancels the engine request, so a dropped connection never leaves a slot busy.
#pragma once

#include <memory>
#include <optional>

#include "base/status.h"
#include "engine/engine.h"

namespace strata::server {

class GenerationSession {
 public:
  // Submits request to engine. Errors are the engine's (kOutOfRange, kResourceExhausted, ...).
  static Result<std::unique_ptr<GenerationSession>> Start(Engine& engine, GenerateRequest request);
  ~GenerationSession();

  GenerationSession(const GenerationSession&) = delete;
  GenerationSession& operator=(const GenerationSession&) = delete;

  // The next event, waiting at most timeout_s; nullopt when none came in time.
  std::optional<RequestEvent> next(double timeout_s);
  // Asks the engine to stop the request; its final event (kDone, kAbort) still arrives.
  void cancel();
  // True once the final event (kDone or kError) has been taken with next().
  bool finished() const { return finished_; }
  RequestId id() const { return id_; }

 private:
  struct Mailbox;
  GenerationSession(Engine& engine, std::shared_ptr<Mailbox> mailbox);

  Engine& engine_;
  std::shared_ptr<Mailbox> mailbox_;  // shared with the engine's callback
  RequestId id_ = 0;
  bool finished_ = false;
  bool cancelled_ = false;
};

}  // namespace strata::server
