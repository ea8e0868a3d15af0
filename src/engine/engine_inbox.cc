#include "engine/engine_inbox.h"

#include <algorithm>
#include <chrono>

namespace strata {

EngineInbox::EngineInbox(int max_queue, int max_windows)
    : max_queue_(max_queue), windows_(static_cast<size_t>(max_windows) + 1, nullptr) {}

bool EngineInbox::push_request(PendingRequest&& r) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_ || n_waiting_ >= max_queue_) return false;
    requests_.push_back(std::move(r));
    ++n_waiting_;
  }
  cv_.notify_one();
  return true;
}

void EngineInbox::push_cancel(RequestId id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    cancels_.push_back(id);
  }
  cv_.notify_one();
}

void EngineInbox::push_window(Window* w) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    windows_[(windows_head_ + n_windows_) % windows_.size()] = w;
    ++n_windows_;
  }
  cv_.notify_one();
}

void EngineInbox::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  parked_cv_.notify_all();
}

uint64_t EngineInbox::push_park() {
  uint64_t ticket;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ticket = ++park_asked_;
  }
  cv_.notify_one();
  return ticket;
}

void EngineInbox::wait_parked(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mu_);
  parked_cv_.wait(lock, [&] { return park_done_ >= ticket || stop_; });
}

void EngineInbox::parked(uint64_t ticket) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    park_done_ = std::max(park_done_, ticket);
  }
  parked_cv_.notify_all();
}

void EngineInbox::wait(double timeout_s) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] {
    return (stop_ && !stop_seen_) || n_windows_ > 0 || !cancels_.empty() || !requests_.empty() ||
           park_asked_ > park_taken_;
  };
  if (timeout_s < 0) {
    cv_.wait(lock, ready);
  } else {
    cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), ready);
  }
}

bool EngineInbox::take(std::vector<PendingRequest>* requests, std::vector<RequestId>* cancels,
                       uint64_t* park_ticket) {
  std::lock_guard<std::mutex> lock(mu_);
  for (PendingRequest& r : requests_) requests->push_back(std::move(r));
  requests_.clear();
  cancels->insert(cancels->end(), cancels_.begin(), cancels_.end());
  cancels_.clear();
  *park_ticket = park_asked_ > park_taken_ ? park_asked_ : 0;
  park_taken_ = park_asked_;
  if (stop_) stop_seen_ = true;
  return !stop_;
}

Window* EngineInbox::pop_window() {
  std::lock_guard<std::mutex> lock(mu_);
  if (n_windows_ == 0) return nullptr;
  Window* w = windows_[windows_head_];
  windows_head_ = (windows_head_ + 1) % windows_.size();
  --n_windows_;
  return w;
}

void EngineInbox::note_left_queue(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  n_waiting_ -= n;
}

int EngineInbox::n_waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return n_waiting_;
}

bool EngineInbox::stopped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

}  // namespace strata
