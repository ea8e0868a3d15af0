#include "engine/expert_load_window.h"

#include <algorithm>
#include <cmath>

namespace strata {

ExpertLoadWindow::ExpertLoadWindow(int n_layer, int n_expert)
    : totals_(static_cast<size_t>(std::max(0, n_layer)) * std::max(0, n_expert), 0),
      buckets_(totals_.size() * kSpan_s, 0),
      bucket_second_(kSpan_s, -1) {}

void ExpertLoadWindow::advance(double now_s) {
  const int64_t now_second = std::max<int64_t>(0, static_cast<int64_t>(std::floor(now_s)));
  if (now_second <= newest_second_) return;
  // Each second newly entering the span reuses the bucket of the second kSpan_s before it;
  // after kSpan_s of them every bucket has been emptied, so a long idle gap stops there.
  const int64_t first = std::max(newest_second_ + 1, now_second - kSpan_s + 1);
  const size_t n = totals_.size();
  for (int64_t s = first; s <= now_second; ++s) {
    const size_t b = static_cast<size_t>(s % kSpan_s);
    if (bucket_second_[b] < 0) continue;
    uint32_t* bucket = buckets_.data() + b * n;
    for (size_t i = 0; i < n; ++i) {
      totals_[i] -= bucket[i];
      bucket[i] = 0;
    }
    bucket_second_[b] = -1;
  }
  newest_second_ = now_second;
}

void ExpertLoadWindow::record(double time_s, std::span<const uint32_t> counts) {
  const size_t n = totals_.size();
  if (n == 0 || counts.size() != n) return;
  advance(time_s);
  const int64_t second = newest_second_;
  const size_t b = static_cast<size_t>(second % kSpan_s);
  bucket_second_[b] = second;
  uint32_t* bucket = buckets_.data() + b * n;
  for (size_t i = 0; i < n; ++i) {
    bucket[i] += counts[i];
    totals_[i] += counts[i];
    recorded_total_ += counts[i];
  }
}

}  // namespace strata
