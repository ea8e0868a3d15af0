// Where time comes from. Components that stamp or measure time take a Clock from their
// environment (base/env.h, LevelDB's Env style) instead of reading the process's clocks, so a
// test can hand them a ManualClock and check time-dependent results exactly.
//
// Clock implementations are safe to call from any thread. system_clock() is stateless and
// lives for the whole process; monotonic_s() / wall_s() below are shorthands for it, for tools
// that measure their own run (benchmarks, progress bars) and have no environment.
#pragma once

#include <atomic>
#include <chrono>

namespace strata {

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds on a clock that never goes back (an arbitrary epoch).
  virtual double monotonic_s() const = 0;
  // Seconds since the Unix epoch.
  virtual double wall_s() const = 0;
};

// The machine's steady and system clocks.
class SystemClock final : public Clock {
 public:
  double monotonic_s() const override {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
  }
  double wall_s() const override {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
  }
};

// The one SystemClock (immutable, so sharing it is not shared mutable state).
inline const Clock& system_clock() {
  static const SystemClock clock;
  return clock;
}

inline double monotonic_s() { return system_clock().monotonic_s(); }
inline double wall_s() { return system_clock().wall_s(); }

// A clock that moves only when told: monotonic time starts at monotonic_start_s, and wall time
// is always monotonic time + wall_offset_s. Thread-safe (atomic); advance() never goes back.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(double monotonic_start_s = 1000.0, double wall_offset_s = 1.7e9)
      : now_s_(monotonic_start_s), wall_offset_s_(wall_offset_s) {}

  double monotonic_s() const override { return now_s_.load(); }
  double wall_s() const override { return now_s_.load() + wall_offset_s_; }
  void advance(double seconds) {
    if (seconds > 0) now_s_.fetch_add(seconds);
  }

 private:
  std::atomic<double> now_s_;
  const double wall_offset_s_;
};

}  // namespace strata
