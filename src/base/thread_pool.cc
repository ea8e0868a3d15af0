#include "base/thread_pool.h"

#include <chrono>

namespace strata {

namespace {
// Workers spin this many times on the ticket before sleeping: a decode step issues hundreds
// of parallel_for calls back to back, and a futex wake per call costs more than the work of
// a small matrix.
constexpr int kSpinIterations = 20000;

uint32_t ticket_generation(uint64_t t) { return static_cast<uint32_t>(t >> 32); }
int ticket_n_tasks(uint64_t t) { return static_cast<int>((t >> 16) & 0xFFFF); }
int ticket_next(uint64_t t) { return static_cast<int>(t & 0xFFFF); }
uint64_t make_ticket(uint32_t generation, int n_tasks) {
  return (static_cast<uint64_t>(generation) << 32) | (static_cast<uint64_t>(n_tasks) << 16);
}

inline void cpu_relax() {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(n_threads < 1 ? 1 : n_threads) {
  workers_.reserve(n_threads_ - 1);
  for (int t = 1; t < n_threads_; ++t) workers_.emplace_back([this, t] { worker_main(t); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
    ticket_.store(make_ticket(++generation_, 0));
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void ThreadPool::drain(int thread) {
  uint64_t t = ticket_.load(std::memory_order_acquire);
  while (ticket_next(t) < ticket_n_tasks(t)) {
    // The CAS fails if another thread claimed this task or a new call replaced the ticket;
    // either way t is reloaded and checked again.
    if (!ticket_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    // The call cannot finish while this claimed task is outstanding, so ctx_ and fn_ still
    // hold its values.
    fn_.load(std::memory_order_relaxed)(ctx_.load(std::memory_order_relaxed), ticket_next(t), thread);
    n_done_tasks_.fetch_add(1, std::memory_order_release);
    t = ticket_.load(std::memory_order_acquire);
  }
}

void ThreadPool::run(int n_tasks, void* ctx, TaskFn fn) {
  ctx_.store(ctx, std::memory_order_relaxed);
  fn_.store(fn, std::memory_order_relaxed);
  n_done_tasks_.store(0, std::memory_order_relaxed);
  ticket_.store(make_ticket(++generation_, n_tasks), std::memory_order_seq_cst);
  if (n_sleeping_.load(std::memory_order_seq_cst) > 0) {
    // Taking the lock orders this wake after a worker's predicate check and before its wait.
    { std::lock_guard<std::mutex> lock(mu_); }
    wake_.notify_all();
  }
  drain(0);
  const auto wait_start = wait_ns_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  for (int spin = 0; n_done_tasks_.load(std::memory_order_acquire) < n_tasks; ++spin) {
    if (spin < kSpinIterations) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  if (wait_ns_) {
    *wait_ns_ += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - wait_start).count());
  }
}

void ThreadPool::worker_main(int thread) {
  uint32_t seen = 0;
  for (;;) {
    uint64_t t = ticket_.load(std::memory_order_acquire);
    for (int spin = 0; ticket_generation(t) == seen && spin < kSpinIterations; ++spin) {
      cpu_relax();
      t = ticket_.load(std::memory_order_acquire);
    }
    if (ticket_generation(t) == seen) {
      std::unique_lock<std::mutex> lock(mu_);
      n_sleeping_.fetch_add(1, std::memory_order_seq_cst);
      wake_.wait(lock, [&] { return ticket_generation(ticket_.load(std::memory_order_seq_cst)) != seen; });
      n_sleeping_.fetch_sub(1, std::memory_order_relaxed);
      t = ticket_.load(std::memory_order_acquire);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = ticket_generation(t);
    drain(thread);
  }
}

}  // namespace strata
