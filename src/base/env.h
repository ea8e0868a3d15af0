// Env: what a component takes from its surroundings instead of reaching for the process's own
// (LevelDB's Env style). Today that is the clock; a test builds an Env around a ManualClock
// (base/clock.h) to make time-dependent results exact.
//
// A plain value of non-owned pointers: whatever it points to must outlive every component
// holding a copy. The default is the machine's clock.
#pragma once

#include "base/clock.h"

namespace strata {

struct Env {
  const Clock* clock = &system_clock();
};

}  // namespace strata
