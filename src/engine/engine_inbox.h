// EngineInbox: everything other threads hand to the engine thread, behind one mutex and
// one condition variable: new requests (bounded by --max-queue), cancellations, windows
// finished by the last pipeline stage, and the stop signal.
//
// Thread-safety: every method is thread-safe. The engine thread is the only consumer.
// Invariant: n_waiting() counts requests submitted and not yet admitted or cancelled, so
// --max-queue bounds the whole wait, not just what the engine thread has not seen yet.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/engine.h"
#include "engine/window.h"

namespace strata {

struct PendingRequest {
  RequestId id = 0;
  GenerateRequest request;
  RequestCallback callback;
  double arrival_s = 0.0;
};

class EngineInbox {
 public:
  EngineInbox(int max_queue, int max_windows);

  // false when max_queue requests are already waiting, or after stop.
  bool push_request(PendingRequest&& r);
  void push_cancel(RequestId id);
  void push_window(Window* w);
  void stop();

  // Asks the engine thread to park idle K/V; returns a ticket for wait_parked().
  uint64_t push_park();
  // Blocks until the engine thread has handled park request `ticket`.
  void wait_parked(uint64_t ticket);

  // Engine thread. Blocks until there is something to take (a new request, a cancellation,
  // a finished window, a park request, or a stop not yet seen by take()) or timeout_s passes.
  void wait(double timeout_s);
  // Moves new requests and cancellations out, and reports pending park requests (the
  // ticket to acknowledge with parked(), 0 if none). Returns false once stop() was called.
  bool take(std::vector<PendingRequest>* requests, std::vector<RequestId>* cancels, uint64_t* park_ticket);
  void parked(uint64_t ticket);
  // A finished window, or nullptr.
  Window* pop_window();
  // Called when a waiting request is admitted or dropped.
  void note_left_queue(int n = 1);
  int n_waiting() const;
  bool stopped() const;

 private:
  const int max_queue_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<PendingRequest> requests_;
  std::vector<RequestId> cancels_;
  std::vector<Window*> windows_;  // fixed ring of max_windows
  size_t windows_head_ = 0;
  size_t n_windows_ = 0;
  int n_waiting_ = 0;
  uint64_t park_asked_ = 0;
  uint64_t park_taken_ = 0;
  uint64_t park_done_ = 0;
  std::condition_variable parked_cv_;
  bool stop_ = false;
  bool stop_seen_ = false;
};

}  // namespace strata
