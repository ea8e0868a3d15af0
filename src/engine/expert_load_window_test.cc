#include "engine/expert_load_window.h"

#include <gtest/gtest.h>

#include <vector>

namespace strata {
namespace {

std::vector<uint64_t> totals(const ExpertLoadWindow& w) { return {w.totals().begin(), w.totals().end()}; }

TEST(ExpertLoadWindow, DenseModelHasNoCells) {
  ExpertLoadWindow w;
  w.record(5.0, {});
  EXPECT_EQ(w.n_cells(), 0);
  EXPECT_EQ(w.recorded_total(), 0u);
}

TEST(ExpertLoadWindow, SumsStepsPerCell) {
  ExpertLoadWindow w(2, 3);
  const std::vector<uint32_t> a = {1, 0, 2, 0, 3, 0};
  const std::vector<uint32_t> b = {4, 1, 0, 0, 0, 5};
  w.record(100.2, a);
  w.record(100.7, b);
  w.record(101.1, a);
  EXPECT_EQ(totals(w), (std::vector<uint64_t>{6, 1, 4, 0, 6, 5}));
  EXPECT_EQ(w.recorded_total(), 22u);
}

TEST(ExpertLoadWindow, DropsSecondsOlderThanTheSpan) {
  ExpertLoadWindow w(1, 2);
  w.record(100.5, std::vector<uint32_t>{1, 2});
  w.record(130.5, std::vector<uint32_t>{10, 20});
  w.advance(159.9);  // second 100 is still inside (100, 160)
  EXPECT_EQ(totals(w), (std::vector<uint64_t>{11, 22}));
  w.advance(160.0);  // second 100 leaves
  EXPECT_EQ(totals(w), (std::vector<uint64_t>{10, 20}));
  w.record(175.0, std::vector<uint32_t>{3, 0});  // reuses no bucket of second 130
  EXPECT_EQ(totals(w), (std::vector<uint64_t>{13, 20}));
  w.advance(190.0);
  EXPECT_EQ(totals(w), (std::vector<uint64_t>{3, 0}));
  EXPECT_EQ(w.recorded_total(), 36u);
}

TEST(ExpertLoadWindow, LongIdleGapEmptiesEverything) {
  ExpertLoadWindow w(1, 1);
  for (int s = 0; s < 60; ++s) w.record(1000.0 + s, std::vector<uint32_t>{1});
  EXPECT_EQ(totals(w), std::vector<uint64_t>{60});
  w.advance(1e6);
  EXPECT_EQ(totals(w), std::vector<uint64_t>{0});
  w.record(1e6 + 0.5, std::vector<uint32_t>{7});
  EXPECT_EQ(totals(w), std::vector<uint64_t>{7});
}

TEST(ExpertLoadWindow, EarlierTimeCountsAsTheNewestSecond) {
  ExpertLoadWindow w(1, 1);
  w.advance(200.0);
  w.record(199.5, std::vector<uint32_t>{4});  // a step timed just before a snapshot advanced
  w.advance(259.0);
  EXPECT_EQ(totals(w), std::vector<uint64_t>{4});
  w.advance(260.0);
  EXPECT_EQ(totals(w), std::vector<uint64_t>{0});
}

TEST(ExpertLoadWindow, CountsOfAnotherSizeAreIgnored) {
  ExpertLoadWindow w(2, 2);
  w.record(1.0, std::vector<uint32_t>{1, 2, 3});
  EXPECT_EQ(totals(w), (std::vector<uint64_t>{0, 0, 0, 0}));
  EXPECT_EQ(w.recorded_total(), 0u);
}

}  // namespace
}  // namespace strata
