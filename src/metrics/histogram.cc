#include "metrics/histogram.h"

#include <algorithm>

namespace strata {

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size(), 0) {}

void Histogram::observe(double value) {
  auto it = std::lower_bound(bounds_.begin(), bounds_.end(), value);
  if (it != bounds_.end()) ++counts_[it - bounds_.begin()];
  ++count_;
  sum_ += value;
}

}  // namespace strata
