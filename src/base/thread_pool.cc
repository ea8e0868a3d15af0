#include "base/thread_pool.h"

namespace strata {

namespace {
// Workers spin this many times on the generation counter before sleeping: a decode step
// issues hundreds of parallel_for calls back to back, and a futex wake per call costs more
// than the work of a small matrix.
constexpr int kSpinIterations = 20000;
}  // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(n_threads < 1 ? 1 : n_threads) {
  workers_.reserve(n_threads_ - 1);
  for (int t = 1; t < n_threads_; ++t) workers_.emplace_back([this, t] { worker_main(t); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(int thread) {
  for (;;) {
    int task = next_task_.fetch_add(1, std::memory_order_relaxed);
    if (task >= n_tasks_) break;
    fn_(ctx_, task, thread);
  }
}

void ThreadPool::run(int n_tasks, void* ctx, TaskFn fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    n_tasks_ = n_tasks;
    ctx_ = ctx;
    fn_ = fn;
    next_task_.store(0, std::memory_order_relaxed);
    n_done_workers_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  drain(0);
  const int n_workers = n_threads_ - 1;
  while (n_done_workers_.load(std::memory_order_acquire) < n_workers) {
    std::this_thread::yield();
  }
}

void ThreadPool::worker_main(int thread) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t gen = generation_.load(std::memory_order_acquire);
    for (int spin = 0; gen == seen && spin < kSpinIterations; ++spin) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      gen = generation_.load(std::memory_order_acquire);
    }
    if (gen == seen) {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      gen = generation_.load(std::memory_order_acquire);
    }
    seen = gen;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    drain(thread);
    n_done_workers_.fetch_add(1, std::memory_order_acq_rel);
  }
}

}  // namespace strata
