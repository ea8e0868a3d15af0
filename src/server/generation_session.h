// GenerationSession: the engine requests of one client request (one per choice: OpenAI's n) as
// seen from the HTTP thread that serves it.
//
// The engine delivers events on its own thread; the session queues them, tagged with their
// choice (a mutex-guarded deque, so the engine never waits on a slow client), and the HTTP
// thread takes them with next(). Each choice's events arrive in order; choices interleave.
// Owned by one HTTP handler; next()/cancel() are for that one thread, while the engine's
// callbacks may run concurrently. Destroying a session that has not seen every final event
// cancels the engine requests still running, so a dropped connection never leaves a slot busy.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/status.h"
#include "engine/engine.h"

namespace strata::server {

// One engine event and the choice (0-based, the order the requests were given to Start) it
// belongs to.
struct ChoiceEvent {
  int choice = 0;
  RequestEvent event;
};

class GenerationSession {
 public:
  // Submits the requests to engine, in order. When one is refused, the ones already submitted
  // are cancelled and the engine's error is returned (kOutOfRange, kResourceExhausted, ...).
  // requests must not be empty.
  static Result<std::unique_ptr<GenerationSession>> Start(Engine& engine, std::vector<GenerateRequest> requests);
  static Result<std::unique_ptr<GenerationSession>> Start(Engine& engine, GenerateRequest request);
  ~GenerationSession();

  GenerationSession(const GenerationSession&) = delete;
  GenerationSession& operator=(const GenerationSession&) = delete;

  // The next event of any choice, waiting at most timeout_s; nullopt when none came in time.
  std::optional<ChoiceEvent> next(double timeout_s);
  // Asks the engine to stop every choice still running; their final events (kDone with kAbort)
  // still arrive.
  void cancel();
  // True once every choice's final event (kDone or kError) has been taken with next().
  bool finished() const { return n_finished_ == static_cast<int>(ids_.size()); }
  int n_choices() const { return static_cast<int>(ids_.size()); }

 private:
  struct Mailbox;
  GenerationSession(Engine& engine, std::shared_ptr<Mailbox> mailbox);

  Engine& engine_;
  std::shared_ptr<Mailbox> mailbox_;  // shared with the engine's callbacks
  std::vector<RequestId> ids_;        // index = choice
  std::vector<bool> choice_finished_;
  int n_finished_ = 0;
  bool cancelled_ = false;
};

}  // namespace strata::server
