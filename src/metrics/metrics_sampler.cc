#include "metrics/metrics_sampler.h"

#include <chrono>

namespace strata {

MetricsSampler::MetricsSampler(ServingMetrics* metrics,
                               std::function<EngineSnapshot()> snapshot_fn, double period_s)
    : metrics_(metrics), snapshot_fn_(std::move(snapshot_fn)), period_s_(period_s) {
  thread_ = std::thread([this] { run(); });
}

MetricsSampler::~MetricsSampler() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void MetricsSampler::run() {
  const auto period = std::chrono::duration<double>(period_s_);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    metrics_->sample(snapshot_fn_());
    lock.lock();
    cv_.wait_for(lock, period, [this] { return stop_; });
  }
}

}  // namespace strata
