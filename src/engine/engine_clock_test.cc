// Request times come from the environment's clock (EngineOptions::env), so they are exact under
// a ManualClock: here the clock moves one second at every sampled token, from the engine thread.
#include <gtest/gtest.h>

#include <vector>

#include "base/clock.h"
#include "engine/engine_test_util.h"

namespace strata::testing {
namespace {

// Records each token's time, then moves the clock on by one second.
class TickingObserver : public RecordingObserver {
 public:
  explicit TickingObserver(ManualClock* clock) : clock_(clock) {}
  void on_token(uint64_t id, double time_s, bool first) override {
    RecordingObserver::on_token(id, time_s, first);
    std::lock_guard<std::mutex> lock(mu);
    token_times_s.push_back(time_s);
    clock_->advance(1.0);
  }
  std::vector<double> token_times_s;

 private:
  ManualClock* clock_;
};

TEST(EngineClock, RequestTimesComeFromTheInjectedClock) {
  ManualClock clock(1000.0);
  TickingObserver observer(&clock);
  EngineOptions o;
  o.n_parallel = 1;
  o.env.clock = &clock;
  o.observer = &observer;
  {
    Harness h(o);
    ASSERT_TRUE(h.ok());
    Output out = h.wait(h.submit(make_request(12, 4, 7)));
    ASSERT_EQ(out.tokens.size(), 4u);
  }
  std::lock_guard<std::mutex> lock(observer.mu);
  EXPECT_EQ(observer.token_times_s, (std::vector<double>{1000.0, 1001.0, 1002.0, 1003.0}));
  ASSERT_EQ(observer.records.size(), 1u);
  const RequestRecord& r = observer.records[0];
  EXPECT_EQ(r.arrival_s, 1000.0);
  EXPECT_EQ(r.scheduled_s, 1000.0);
  EXPECT_EQ(r.first_token_s, 1000.0);
  EXPECT_EQ(r.finished_s, 1004.0);  // stamped after the last token's tick
}

}  // namespace
}  // namespace strata::testing
