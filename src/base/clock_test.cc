#include "base/clock.h"

#include <gtest/gtest.h>

#include "base/env.h"

namespace strata {
namespace {

TEST(ManualClock, MovesOnlyWhenAdvancedAndNeverBack) {
  ManualClock clock(50.0, 1000.0);
  EXPECT_EQ(clock.monotonic_s(), 50.0);
  EXPECT_EQ(clock.wall_s(), 1050.0);
  clock.advance(0.25);
  clock.advance(-10.0);
  EXPECT_EQ(clock.monotonic_s(), 50.25);
  EXPECT_EQ(clock.wall_s(), 1050.25);
}

TEST(Env, DefaultsToTheSystemClock) {
  Env env;
  EXPECT_EQ(env.clock, &system_clock());
  const double before_s = monotonic_s();
  EXPECT_GE(env.clock->monotonic_s(), before_s);
}

}  // namespace
}  // namespace strata
