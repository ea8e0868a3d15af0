// RateWindow: decode and prefill tokens per second over the last few seconds, from a
// fixed ring of recent steps (no allocation per step). Not thread-safe; the engine thread
// records and computes, the snapshot carries the result.
#pragma once

#include <array>
#include <cstddef>

namespace strata {

class RateWindow {
 public:
  static constexpr double kSpan_s = 5.0;

  void record(double time_s, int n_decode, int n_prefill);
  // Rates over the steps of the last kSpan_s seconds before now_s.
  void rates(double now_s, double* decode_tok_s, double* prefill_tok_s) const;

 private:
  struct Step {
    double time_s = -1.0;
    int n_decode = 0;
    int n_prefill = 0;
  };
  std::array<Step, 512> ring_{};
  size_t next_ = 0;
  double first_time_s_ = -1.0;
};

}  // namespace strata
