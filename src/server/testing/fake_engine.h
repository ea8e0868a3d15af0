// FakeEngine (tests only): an Engine that "generates" a fixed reply one byte per token, so the
// HTTP layer can be tested without a model.
//
// Behaves like the real engine's contract: submit() rejects an empty prompt (kInvalidArgument),
// prompt + max_tokens over n_ctx (kOutOfRange) and a full queue (kResourceExhausted); stop
// strings are held back and matched across tokens by a StopMatcher, as the real engine's
// requests do (sampling/stop_matcher.h); cancel() ends a request with kAbort at the
// next step; shutdown() waits for running requests, then aborts the rest.
// In manual mode tokens come only from step() (the test plays the engine thread); otherwise a
// background thread steps every millisecond. Thread-safe.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "sampling/stop_matcher.h"

namespace strata::server::testing {

class FakeEngine : public Engine {
 public:
  struct Options {
    std::string reply = "Hello from the fake engine.";
    int n_ctx = 512;
    int n_parallel = 2;
    int max_queue = 2;       // submit fails once n_parallel + max_queue requests are active
    int cached_tokens = 0;   // reported in every request's usage
    bool manual = false;
    // Called by submit() once the request is active, outside the lock, on the submitting
    // thread: a test can hold an HTTP handler there (between submit and its answer).
    std::function<void()> on_submitted;
  };

  explicit FakeEngine(Options options);
  ~FakeEngine() override;

  Result<RequestId> submit(GenerateRequest request, RequestCallback callback) override;
  void cancel(RequestId id) override;
  void park_idle() override {}
  EngineSnapshot snapshot() const override;
  const Tokenizer& tokenizer() const override;          // never used by the server; aborts
  const EngineOptions& options() const override { return engine_options_; }
  void shutdown(double timeout_s) override;

  // Test controls.
  void step();  // every active request advances by one token (or ends)
  bool wait_for_active(size_t n_active, double timeout_s);
  bool wait_for_cancel(double timeout_s);  // true once any request has been cancelled
  bool wait_for_shutdown(double timeout_s);  // true once shutdown() has been called
  std::vector<GenerateRequest> submitted() const;
  size_t n_active() const;

 private:
  struct Running {
    GenerateRequest request;
    RequestCallback callback;
    StopMatcher stop{std::vector<std::string>{}};  // holds back what may start a stop string
    int generated = 0;      // bytes of the reply generated so far
    bool cancelled = false;
  };

  Result<RequestId> add_request(GenerateRequest request, RequestCallback callback);
  // Advances one request; true when it has finished.
  bool advance(RequestId id, Running& r);
  void finish(Running& r, FinishReason reason, std::string text);
  void auto_loop();

  Options options_;
  EngineOptions engine_options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<RequestId, Running> active_;
  std::vector<GenerateRequest> submitted_;
  RequestId next_id_ = 1;
  bool any_cancelled_ = false;
  bool stopping_ = false;
  bool quit_ = false;
  std::thread auto_thread_;
};

}  // namespace strata::server::testing
