// BatchRunner: drives an Engine with a list of requests and records what each produced,
// for the tools that compare or time runs (`strata batch-test`, `park-test`, `bench
// --concurrency`): tokens, text, a 64-bit hash of every raw logits row (equal hashes =
// bit-identical logits, up to a 2^-64 chance), and the submit / first token / finish times.
//
// attach() installs the runner as the engine's logits tap and observer, so it must be
// called on the options before Engine::Create, and the runner must outlive the engine.
// run() may be called repeatedly (one batch at a time); it is thread-safe against the
// engine thread's callbacks.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/engine.h"

namespace strata {

struct BatchJob {
  GenerateRequest request;
  double delay_s = 0.0;  // submit this long after the batch starts
};

struct BatchOutcome {
  Status submit_status;
  RequestId id = 0;
  std::vector<int32_t> tokens;
  std::vector<uint64_t> logits_hashes;  // one per sampled token
  std::string text;
  RequestEvent done;
  int slot = -1;
  double submit_s = 0.0;
  double first_token_s = 0.0;  // 0 when no token came
  double finished_s = 0.0;

  double ttft_s() const { return first_token_s > 0 ? first_token_s - submit_s : 0.0; }
};

class BatchRunner : public EngineObserver {
 public:
  void attach(EngineOptions* options);
  // Submits every job (at its delay) and waits until all have finished.
  std::vector<BatchOutcome> run(Engine& engine, const std::vector<BatchJob>& jobs);

  void on_request_finished(const RequestRecord& record) override;

 private:
  void on_logits(uint64_t id, int index, std::span<const float> logits);
  void on_event(BatchOutcome* out, const RequestEvent& e);

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<RequestId, BatchOutcome*> by_id_;
  int n_unfinished_ = 0;
};

// The first token index where two runs differ in token or logits bits; -1 when identical.
int first_difference(const BatchOutcome& a, const BatchOutcome& b);

}  // namespace strata
