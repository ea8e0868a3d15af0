#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace strata {
namespace {

TEST(ThreadPool, WaitCounterAddsTheCallersWaitOnlyWhileSet) {
  ThreadPool pool(2);
  uint64_t wait_ns = 0;
  // Two tasks that must run at once (each waits for the other to start), so the worker holds
  // one; it finishes after the caller's, which then waits for it.
  auto call = [&pool] {
    std::atomic<int> started{0};
    pool.parallel_for(2, [&](int, int thread) {
      started.fetch_add(1);
      while (started.load() < 2) std::this_thread::yield();
      if (thread != 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
  };
  pool.set_wait_counter(&wait_ns);
  call();
  EXPECT_GT(wait_ns, 0u);
  pool.set_wait_counter(nullptr);
  const uint64_t before = wait_ns;
  call();
  EXPECT_EQ(wait_ns, before);
}

TEST(ThreadPool, RunsEveryTaskExactlyOnce) {
  for (int n_threads : {1, 2, 3, 8}) {
    ThreadPool pool(n_threads);
    for (int n_tasks : {0, 1, 7, 1000}) {
      std::vector<std::atomic<int>> hits(n_tasks);
      pool.parallel_for(n_tasks, [&](int task, int thread) {
        EXPECT_GE(thread, 0);
        EXPECT_LT(thread, n_threads);
        hits[task].fetch_add(1);
      });
      for (int t = 0; t < n_tasks; ++t) EXPECT_EQ(hits[t].load(), 1) << "task " << t;
    }
  }
}

TEST(ThreadPool, ManyBackToBackCallsComplete) {
  ThreadPool pool(4);
  std::atomic<long> sum{0};
  for (int call = 0; call < 5000; ++call) {
    pool.parallel_for(4, [&](int task, int) { sum.fetch_add(task); });
  }
  EXPECT_EQ(sum.load(), 5000L * 6);
}

TEST(ThreadPool, TwoPoolsRunConcurrentlyFromTheirOwnThreads) {
  ThreadPool a(2), b(2);
  std::atomic<int> n{0};
  auto drive = [&n](ThreadPool& p) {
    for (int call = 0; call < 200; ++call) p.parallel_for(5, [&](int, int) { n.fetch_add(1); });
  };
  std::thread ta([&] { drive(a); });
  std::thread tb([&] { drive(b); });
  ta.join();
  tb.join();
  EXPECT_EQ(n.load(), 2 * 200 * 5);
}

TEST(ThreadPool, AcceptsNamedAndConstCallables) {
  ThreadPool pool(2);
  std::atomic<int> n{0};
  auto body = [&n](int, int) { n.fetch_add(1); };
  pool.parallel_for(6, body);
  const auto& const_body = body;
  pool.parallel_for(6, const_body);
  EXPECT_EQ(n.load(), 12);
}


// Workers that wake late (8 threads on a 2-core machine) must never run a task of a call that
// has finished, nor a task index of one call with another call's function.
TEST(ThreadPool, LateWorkersNeverRunStaleOrForeignTasks) {
  ThreadPool pool(8);
  for (int call = 0; call < 3000; ++call) {
    const int n_tasks = 1 + call % 13;
    std::vector<int> hits(static_cast<size_t>(n_tasks), 0);
    std::atomic<int> total{0};
    pool.parallel_for(n_tasks, [&, call](int task, int) {
      ASSERT_LT(task, n_tasks) << "call " << call;
      ++hits[static_cast<size_t>(task)];
      total.fetch_add(1);
    });
    ASSERT_EQ(total.load(), n_tasks) << "call " << call;
    for (int t = 0; t < n_tasks; ++t) ASSERT_EQ(hits[static_cast<size_t>(t)], 1) << "call " << call << " task " << t;
  }
}

TEST(ThreadPool, MoreTasksThanOneTicketHoldsRunEachOnce) {
  ThreadPool pool(3);
  const int n_tasks = 150000;
  std::vector<std::atomic<uint8_t>> hits(n_tasks);
  pool.parallel_for(n_tasks, [&](int task, int) { hits[task].fetch_add(1); });
  for (int t = 0; t < n_tasks; ++t) ASSERT_EQ(hits[t].load(), 1) << "task " << t;
}

}  // namespace
}  // namespace strata
