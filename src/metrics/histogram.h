// Histogram: counts observations into fixed upper bounds (Prometheus `le` semantics: a value
// lands in the first bucket whose bound is >= it; larger values only in +Inf).
//
// Owns its bounds and counts. observe() never allocates. Not thread-safe: the owner holds
// the lock. Invariant: count() == sum of bucket(i) over all bounds plus the +Inf overflow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strata {

class Histogram {
 public:
  Histogram() = default;
  // `upper_bounds` ascending and finite; +Inf is implicit.
  explicit Histogram(std::vector<double> upper_bounds);

  void observe(double value);

  const std::vector<double>& bounds() const { return bounds_; }
  // Observations in bucket i alone (not cumulative); i < bounds().size().
  uint64_t bucket(size_t i) const { return counts_[i]; }
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  uint64_t count_ = 0;
  double sum_ = 0.0;
};

}  // namespace strata
