#include "server/server_state.h"

#include <fmt/format.h>

#include <chrono>

#include "base/clock.h"

namespace strata::server {

ServerState::ServerState(ServerConfig config)
    : config_(std::move(config)),
      rng_(std::random_device{}()),
      started_s_(monotonic_s()),
      started_unix_s_(static_cast<int64_t>(wall_s())),
      responses_(static_cast<size_t>(config_.responses_store_mib) << 20) {}

AnswerTicket::AnswerTicket(ServerState* state) : state_(state) {
  std::lock_guard<std::mutex> lock(state_->answers_mu_);
  ++state_->n_answers_;
}

AnswerTicket::~AnswerTicket() {
  if (!state_) return;
  std::lock_guard<std::mutex> lock(state_->answers_mu_);
  if (--state_->n_answers_ == 0) state_->answers_cv_.notify_all();
}

bool ServerState::wait_for_answers(double timeout_s) {
  std::unique_lock<std::mutex> lock(answers_mu_);
  return answers_cv_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                              [this] { return n_answers_ == 0; });
}

std::string ServerState::new_id(std::string_view prefix) {
  std::lock_guard<std::mutex> lock(rng_mu_);
  uint64_t a = rng_(), b = rng_();
  return fmt::format("{}{:016x}{:08x}", prefix, a, static_cast<uint32_t>(b));
}

uint64_t ServerState::fresh_seed() {
  std::lock_guard<std::mutex> lock(rng_mu_);
  return rng_();
}

double ServerState::uptime_s() const { return monotonic_s() - started_s_; }

}  // namespace strata::server
