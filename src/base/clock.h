// Monotonic and wall clocks in seconds (double). Stateless; safe from any thread.
#pragma once

#include <chrono>

namespace strata {

inline double monotonic_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

inline double wall_s() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

}  // namespace strata
