// TaskRanges: tasks [0, n_tasks) cut into n_ranges contiguous ranges, one per thread, for
// work whose speed depends on each thread reading one long sequential run of memory (a
// single-row matmul streams its weights: a thread that jumps to a new region every few
// tasks restarts the hardware prefetchers each time, as the dynamic ThreadPool schedule
// alone would make it do).
//
// Whoever runs range i takes its tasks front to back; once it has none left it takes the
// other ranges' remaining tasks from their backs, so a thread the OS has descheduled still
// has its share done by the others (the ThreadPool's promise), and the owner and a thief
// meet without either leaving its own sequential run.
//
// Use: one TaskRanges per parallel call, then pool.parallel_for(ranges.n_ranges(),
// [&](int range, int) { ranges.run(range, fn); }): every task runs exactly once, on some
// thread; which one never matters to a caller whose tasks write only their own outputs.
//
// Thread-safety: run() may be called concurrently for different (or the same) ranges. The
// object owns no memory beyond itself (kMaxRanges cache lines: meant for the stack).
#pragma once

#include <atomic>
#include <cstdint>

namespace strata {

class TaskRanges {
 public:
  static constexpr int kMaxRanges = 64;

  // n_ranges is clamped to [1, kMaxRanges] and to n_tasks (a range holds at least one task).
  TaskRanges(int n_tasks, int n_ranges) {
    if (n_ranges > n_tasks) n_ranges = n_tasks;
    if (n_ranges > kMaxRanges) n_ranges = kMaxRanges;
    n_ranges_ = n_ranges < 1 ? 1 : n_ranges;
    const int64_t n = n_tasks < 0 ? 0 : n_tasks;
    for (int i = 0; i < n_ranges_; ++i) {
      const auto front = static_cast<uint64_t>(n * i / n_ranges_);
      const auto back = static_cast<uint64_t>(n * (i + 1) / n_ranges_);
      ranges_[i].front_back.store(front | back << 32, std::memory_order_relaxed);
    }
  }
  TaskRanges(const TaskRanges&) = delete;
  TaskRanges& operator=(const TaskRanges&) = delete;

  int n_ranges() const { return n_ranges_; }

  // Calls fn(task) for range `range`'s tasks in order, then for whatever the other ranges
  // still hold, each from its back. Returns when no range holds a task (other threads may
  // still be running tasks they took).
  template <typename F>
  void run(int range, F&& fn) {
    for (int task = take(ranges_[range], /*from_back=*/false); task >= 0; task = take(ranges_[range], false)) fn(task);
    for (int k = 1; k < n_ranges_; ++k) {
      Range& other = ranges_[(range + k) % n_ranges_];
      for (int task = take(other, /*from_back=*/true); task >= 0; task = take(other, true)) fn(task);
    }
  }

 private:
  // The range's remaining tasks are [front, back): front in the low 32 bits, back in the
  // high 32, so taking from either end is one compare-and-swap.
  struct alignas(64) Range {
    std::atomic<uint64_t> front_back{0};
  };

  // A task of r taken from its front or back; -1 when r is empty.
  static int take(Range& r, bool from_back) {
    uint64_t v = r.front_back.load(std::memory_order_relaxed);
    for (;;) {
      const uint64_t front = v & 0xFFFFFFFFu, back = v >> 32;
      if (front >= back) return -1;
      const uint64_t next = from_back ? v - (uint64_t{1} << 32) : v + 1;
      if (r.front_back.compare_exchange_weak(v, next, std::memory_order_relaxed)) {
        return static_cast<int>(from_back ? back - 1 : front);
      }
    }
  }

  Range ranges_[kMaxRanges];
  int n_ranges_ = 1;
};

}  // namespace strata
