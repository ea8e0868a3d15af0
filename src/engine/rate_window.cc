#include "engine/rate_window.h"

#include <algorithm>

namespace strata {

void RateWindow::record(double time_s, int n_decode, int n_prefill) {
  if (first_time_s_ < 0) first_time_s_ = time_s;
  ring_[next_] = Step{time_s, n_decode, n_prefill};
  next_ = (next_ + 1) % ring_.size();
}

void RateWindow::rates(double now_s, double* decode_tok_s, double* prefill_tok_s) const {
  *decode_tok_s = *prefill_tok_s = 0.0;
  if (first_time_s_ < 0) return;
  const double since = now_s - kSpan_s;
  long n_decode = 0, n_prefill = 0;
  for (const Step& s : ring_) {
    if (s.time_s < 0 || s.time_s < since) continue;
    n_decode += s.n_decode;
    n_prefill += s.n_prefill;
  }
  // An engine younger than the span is measured from its first step's end.
  double span = now_s - std::max(since, first_time_s_);
  if (span <= 1e-3) return;
  *decode_tok_s = n_decode / span;
  *prefill_tok_s = n_prefill / span;
}

}  // namespace strata
