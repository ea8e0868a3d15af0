#include "sampling/draft_length.h"

#include <gtest/gtest.h>

namespace strata {
namespace {

TEST(DraftLength, StartsAtTheLimitAndGrowsBackAfterFullAcceptance) {
  DraftLength d(4);
  EXPECT_EQ(d.next(), 4);
  d.record(4, 1);
  EXPECT_EQ(d.next(), 2);
  d.record(2, 2);
  EXPECT_EQ(d.next(), 3);
  d.record(3, 3);
  d.record(4, 4);
  EXPECT_EQ(d.next(), 4);
}

TEST(DraftLength, AZeroLimitNeverDrafts) {
  DraftLength d(0);
  EXPECT_EQ(d.next(), 0);
  d.record(1, 1);
  EXPECT_EQ(d.next(), 0);
}

TEST(DraftLength, PausesWhenAcceptanceStaysLowThenResumesWithOneToken) {
  DraftLength d(4);
  int checks = 0;
  while (d.next() > 0 && checks < 100) {
    d.record(1, 0);
    ++checks;
  }
  EXPECT_GE(checks, DraftLength::kMinChecks);
  EXPECT_LT(checks, 100);
  // That call was the first paused step; the rest of the pause drafts nothing either.
  for (int i = 1; i < DraftLength::kFirstPause_steps; ++i) EXPECT_EQ(d.next(), 0) << i;
  EXPECT_EQ(d.next(), 1);
}

TEST(DraftLength, RepeatedPausesGrowLonger) {
  DraftLength d(2);
  auto pause_length = [&] {
    while (d.next() > 0) d.record(1, 0);
    int paused = 1;
    while (d.next() == 0) ++paused;
    return paused;
  };
  const int first = pause_length();
  const int second = pause_length();
  EXPECT_EQ(first, DraftLength::kFirstPause_steps);
  EXPECT_EQ(second, 2 * DraftLength::kFirstPause_steps);
}

TEST(DraftLength, GoodAcceptanceNeverPauses) {
  DraftLength d(3);
  for (int i = 0; i < 200; ++i) {
    int k = d.next();
    ASSERT_GT(k, 0) << i;
    d.record(k, k - (i % 2));  // half the drafts lose their last token
  }
}

}  // namespace
}  // namespace strata
