// ThreadPool: a fixed set of persistent worker threads that run parallel_for() calls.
//
// Owns n_threads - 1 worker threads; the calling thread is the n-th participant, so
// ThreadPool(1) runs everything inline. Threads are created once in the constructor and
// joined in the destructor: no thread creation per call, no allocation per call.
//
// Thread-safety: parallel_for() may be called by one thread at a time (the owner, e.g. a
// pipeline stage's thread). Different ThreadPool objects are fully independent, so two
// engines or two stages each own one.
//
// Work split: tasks [0, n_tasks) are handed out dynamically; a task must write only its own
// outputs, so results never depend on which thread ran which task.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace strata {

class ThreadPool {
 public:
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return n_threads_; }

  // Calls fn(task, thread) for every task in [0, n_tasks); blocks until all are done.
  // thread is in [0, size()) and can index per-thread scratch.
  template <typename F>
  void parallel_for(int n_tasks, F&& fn) {
    if (n_tasks <= 0) return;
    if (n_threads_ == 1 || n_tasks == 1) {
      for (int t = 0; t < n_tasks; ++t) fn(t, 0);
      return;
    }
    using Fn = std::remove_reference_t<F>;
    run(n_tasks, const_cast<void*>(static_cast<const void*>(&fn)),
        [](void* ctx, int task, int thread) { (*static_cast<Fn*>(ctx))(task, thread); });
  }

 private:
  using TaskFn = void (*)(void* ctx, int task, int thread);
  void run(int n_tasks, void* ctx, TaskFn fn);
  void worker_main(int thread);
  void drain(int thread);

  const int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> next_task_{0};
  std::atomic<int> n_done_workers_{0};
  int n_tasks_ = 0;
  void* ctx_ = nullptr;
  TaskFn fn_ = nullptr;
  bool stop_ = false;
};

}  // namespace strata
