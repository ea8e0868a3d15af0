// MetricsSampler: a thread that feeds ServingMetrics::sample() once a second, so the
// 60-second history and the CPU figure keep moving when nobody polls /metrics.
//
// Owns its thread; the destructor stops and joins it promptly. Neither the metrics nor
// whatever snapshot_fn reads may be destroyed before the sampler.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "engine/engine_types.h"
#include "metrics/serving_metrics.h"

namespace strata {

class MetricsSampler {
 public:
  MetricsSampler(ServingMetrics* metrics, std::function<EngineSnapshot()> snapshot_fn,
                 double period_s = 1.0);
  ~MetricsSampler();
  MetricsSampler(const MetricsSampler&) = delete;
  MetricsSampler& operator=(const MetricsSampler&) = delete;

 private:
  void run();

  ServingMetrics* metrics_;
  std::function<EngineSnapshot()> snapshot_fn_;
  double period_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace strata
