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
//
// Completion: a call returns when every task has finished, not when every worker has checked
// in. A worker that the OS has descheduled (the machine is oversubscribed) therefore costs a
// call nothing unless it holds a task; the others, the caller included, take its share.
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

  // Profiling (strata bench --profile): while set, every parallel_for adds to *ns the
  // nanoseconds its caller waited for other threads' tasks after running out of its own.
  // Null (the default) reads no clock. Set and read by the owner thread only.
  void set_wait_counter(uint64_t* ns) { wait_ns_ = ns; }

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
    for (int first = 0; first < n_tasks; first += kMaxTasksPerRun) {
      const int n = n_tasks - first < kMaxTasksPerRun ? n_tasks - first : kMaxTasksPerRun;
      Chunk<Fn> chunk{&fn, first};
      run(n, &chunk, [](void* ctx, int task, int thread) {
        auto* c = static_cast<Chunk<Fn>*>(ctx);
        (*c->fn)(c->first + task, thread);
      });
    }
  }

 private:
  using TaskFn = void (*)(void* ctx, int task, int thread);
  template <typename Fn>
  struct Chunk {
    Fn* fn;
    int first;
  };
  // The ticket packs (generation, n_tasks, next task) so that claiming a task is one
  // compare-and-swap that also proves the claim belongs to the call it was read from.
  static constexpr int kMaxTasksPerRun = 0xFFFF;

  void run(int n_tasks, void* ctx, TaskFn fn);
  void worker_main(int thread);
  // Claims and runs tasks of the current call until none is left.
  void drain(int thread);

  const int n_threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<uint64_t> ticket_{0};
  std::atomic<int> n_done_tasks_{0};
  std::atomic<int> n_sleeping_{0};
  std::atomic<bool> stop_{false};
  // Written by the caller before it publishes a ticket, read only after a successful claim.
  std::atomic<void*> ctx_{nullptr};
  std::atomic<TaskFn> fn_{nullptr};
  uint32_t generation_ = 0;  // the caller's; workers read generations from ticket_
  uint64_t* wait_ns_ = nullptr;  // the caller's
};

}  // namespace strata
