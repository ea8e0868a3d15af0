#include "engine/rate_window.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(RateWindow, NothingRecordedIsZero) {
  RateWindow w;
  double d = 1, p = 1;
  w.rates(10.0, &d, &p);
  EXPECT_EQ(d, 0.0);
  EXPECT_EQ(p, 0.0);
}

TEST(RateWindow, CountsStepsOfTheLastSpanOnly) {
  RateWindow w;
  w.record(100.0, 8, 100);   // older than the span at t = 110
  w.record(106.0, 10, 0);
  w.record(108.0, 10, 40);
  double d = 0, p = 0;
  w.rates(110.0, &d, &p);
  EXPECT_DOUBLE_EQ(d, 20.0 / RateWindow::kSpan_s);
  EXPECT_DOUBLE_EQ(p, 40.0 / RateWindow::kSpan_s);
}

TEST(RateWindow, YoungEngineIsMeasuredFromItsFirstStep) {
  RateWindow w;
  w.record(1.0, 4, 0);
  w.record(2.0, 4, 0);
  double d = 0, p = 0;
  w.rates(3.0, &d, &p);
  EXPECT_DOUBLE_EQ(d, 8.0 / 2.0);
}

}  // namespace
}  // namespace strata
