#include "server/connection_threads.h"

#include <algorithm>

namespace strata::server {

ConnectionThreads::ConnectionThreads(int n_initial, int max_threads)
    : max_threads_(static_cast<size_t>(std::max(1, max_threads))) {
  std::lock_guard<std::mutex> lock(mutex_);
  const size_t n = std::min(max_threads_, static_cast<size_t>(std::max(0, n_initial)));
  for (size_t i = 0; i < n; ++i) threads_.emplace_back([this] { run(); });
}

ConnectionThreads::~ConnectionThreads() { shutdown(); }

void ConnectionThreads::enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(std::move(fn));
    // A job already queued but not yet picked up still holds an idle thread's promise.
    if (n_idle_ < jobs_.size() && threads_.size() < max_threads_) {
      threads_.emplace_back([this] { run(); });
    }
  }
  wake_.notify_one();
}

void ConnectionThreads::shutdown() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutting_down_ = true;
    threads.swap(threads_);
  }
  wake_.notify_all();
  for (std::thread& t : threads) t.join();
}

void ConnectionThreads::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    ++n_idle_;
    wake_.wait(lock, [this] { return !jobs_.empty() || shutting_down_; });
    --n_idle_;
    if (jobs_.empty()) return;  // shutting down with nothing left to run
    std::function<void()> fn = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace strata::server
