// ServerState: what all routes of one server share — its configuration, the model once it
// has loaded, the draining flag, the count of generation answers not yet written, and the
// generators for response ids and seeds, and the stored Responses API answers.
//
// Thread-safe: the model pointer and the draining flag are atomics (published once, read by
// every handler); the answer count and id/seed generation take mutexes. The published ServedModel is not owned and
// must outlive every handler (the runner destroys it only after the HTTP server has stopped).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <random>
#include <string>
#include <string_view>

#include "engine/engine.h"
#include "server/model_text.h"
#include "server/response_store.h"
#include "server/server_config.h"

namespace strata::server {

struct ServedModel {
  Engine* engine = nullptr;          // not owned
  const ModelText* text = nullptr;   // not owned
  std::string name;                  // the name clients see (--alias or the file's stem)
  int n_ctx = 0;                     // per-request context in tokens
};

class ServerState;

// Held by a generation handler from before it looks at the draining flag until its answer has
// been written or dropped (the ticket lives in the response's body provider). The drain closes
// the port only once no ticket is left: httplib skips a chunked body whose first write comes
// after the server stopped, which would leave a request accepted just before the drain with
// headers and no answer. Movable, not copyable.
class AnswerTicket {
 public:
  explicit AnswerTicket(ServerState* state);
  ~AnswerTicket();
  AnswerTicket(AnswerTicket&& other) noexcept : state_(other.state_) { other.state_ = nullptr; }
  AnswerTicket(const AnswerTicket&) = delete;
  AnswerTicket& operator=(const AnswerTicket&) = delete;
  AnswerTicket& operator=(AnswerTicket&&) = delete;

 private:
  ServerState* state_;
};

class ServerState {
 public:
  explicit ServerState(ServerConfig config);

  const ServerConfig& config() const { return config_; }

  void publish_model(const ServedModel* model) { model_.store(model, std::memory_order_release); }
  // nullptr while the model is loading.
  const ServedModel* model() const { return model_.load(std::memory_order_acquire); }

  void begin_drain() { draining_.store(true); }
  bool draining() const { return draining_.load(); }
  // Generation answers begun and not yet written (see AnswerTicket).
  AnswerTicket hold_answer() { return AnswerTicket(this); }
  // True once no answer is left unwritten; false if some still are after timeout_s.
  bool wait_for_answers(double timeout_s);

  // prefix + 24 random hex digits, e.g. "chatcmpl-3f9c...".
  std::string new_id(std::string_view prefix);
  uint64_t fresh_seed();
  double uptime_s() const;
  int64_t started_unix_s() const { return started_unix_s_; }
  // Responses API answers kept for previous_response_id (--responses-store-mib).
  ResponseStore& responses() { return responses_; }

 private:
  ServerConfig config_;
  std::atomic<const ServedModel*> model_{nullptr};
  std::atomic<bool> draining_{false};
  friend class AnswerTicket;
  std::mutex answers_mu_;
  std::condition_variable answers_cv_;
  int n_answers_ = 0;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
  double started_s_;
  int64_t started_unix_s_;
  ResponseStore responses_;
};

}  // namespace strata::server
