// ConnectionThreads: httplib's task queue for accepted connections. Each connection runs on a
// thread of its own; threads are started when every existing one is busy, up to max_threads, and
// reused after. Past max_threads, jobs wait for a thread (the server's connection limit refuses
// connections before that happens, so the wait is only as long as a refusal takes).
//
// Thread-safe: enqueue() is called by the accept loop, jobs run on the pool's threads.
// shutdown() runs what is queued, then joins every thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace strata::server {

class ConnectionThreads final : public httplib::TaskQueue {
 public:
  ConnectionThreads(int n_initial, int max_threads);
  ~ConnectionThreads() override;

  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void run();

  const size_t max_threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;  // guarded by mutex_
  std::vector<std::thread> threads_;        // guarded by mutex_
  size_t n_idle_ = 0;                       // guarded by mutex_
  bool shutting_down_ = false;              // guarded by mutex_
};

}  // namespace strata::server
