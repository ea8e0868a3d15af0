#include "metrics/bucket_bounds.h"

namespace strata {

std::vector<double> ttft_buckets_s() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
          1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
}

std::vector<double> inter_token_buckets_s() {
  return {0.01, 0.025, 0.05, 0.075, 0.1,  0.15, 0.2,  0.3,  0.4, 0.5,
          0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
}

std::vector<double> request_latency_buckets_s() {
  return {0.3,  0.5,  0.8,  1.0,  1.5,  2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
          30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
}

std::vector<double> one_two_five_buckets(double max_value) {
  std::vector<double> out;
  for (double scale = 1.0;; scale *= 10.0) {
    for (double m : {1.0, 2.0, 5.0}) {
      if (m * scale > max_value) return out;
      out.push_back(m * scale);
    }
  }
}

std::vector<double> request_n_buckets() { return {1, 2, 5, 10, 20}; }

std::vector<double> iteration_token_buckets() {
  std::vector<double> out = {1, 8};
  for (double v = 16; v <= 16384; v *= 2) out.push_back(v);
  return out;
}

std::vector<double> window_row_buckets() {
  std::vector<double> out;
  for (double v = 1; v <= 4096; v *= 2) out.push_back(v);
  return out;
}

}  // namespace strata
