#include "base/task_ranges.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "base/thread_pool.h"

namespace strata {
namespace {

TEST(TaskRanges, OneRangeRunAloneTakesItsTasksFrontToBackThenStealsOthersFromTheirBacks) {
  TaskRanges ranges(10, 3);  // ranges [0, 3), [3, 6), [6, 10)
  ASSERT_EQ(ranges.n_ranges(), 3);
  std::vector<int> order;
  ranges.run(1, [&](int task) { order.push_back(task); });
  EXPECT_EQ(order, (std::vector<int>{3, 4, 5, 9, 8, 7, 6, 2, 1, 0}));
}

TEST(TaskRanges, EveryTaskRunsExactlyOnceAcrossPoolThreads) {
  ThreadPool pool(4);
  for (int n_tasks : {0, 1, 3, 4, 5, 17, 1000}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(n_tasks));
    TaskRanges ranges(n_tasks, pool.size());
    pool.parallel_for(ranges.n_ranges(), [&](int range, int) { ranges.run(range, [&](int task) { ++runs[task]; }); });
    for (int t = 0; t < n_tasks; ++t) EXPECT_EQ(runs[t].load(), 1) << "task " << t << " of " << n_tasks;
  }
}

TEST(TaskRanges, RangesAreClampedToTheTaskCountAndTheMaximum) {
  EXPECT_EQ(TaskRanges(2, 8).n_ranges(), 2);
  EXPECT_EQ(TaskRanges(0, 8).n_ranges(), 1);
  EXPECT_EQ(TaskRanges(5, 0).n_ranges(), 1);
  EXPECT_EQ(TaskRanges(1000, 500).n_ranges(), TaskRanges::kMaxRanges);
}

TEST(TaskRanges, AnEmptyRangeSetRunsNothing) {
  TaskRanges ranges(0, 4);
  int calls = 0;
  ranges.run(0, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace strata
