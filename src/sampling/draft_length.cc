#include "sampling/draft_length.h"

#include <algorithm>

namespace strata {

namespace {
// Weight of the newest verification in the moving acceptance rate.
constexpr double kRateWeight = 0.3;
}  // namespace

DraftLength::DraftLength(int limit_tokens) : limit_(std::max(0, limit_tokens)), length_(limit_) {}

int DraftLength::next() {
  if (paused_steps_ > 0) {
    --paused_steps_;
    return 0;
  }
  return length_;
}

void DraftLength::record(int drafted, int accepted) {
  if (drafted <= 0 || limit_ == 0) return;
  accepted = std::clamp(accepted, 0, drafted);
  rate_ = (1.0 - kRateWeight) * rate_ + kRateWeight * static_cast<double>(accepted) / drafted;
  ++checks_;
  length_ = accepted == drafted ? std::min(limit_, drafted + 1) : std::min(limit_, accepted + 1);
  if (checks_ >= kMinChecks && rate_ < kLowRate) {
    paused_steps_ = next_pause_steps_;
    next_pause_steps_ = std::min(kMaxPause_steps, next_pause_steps_ * 2);
    // Resume optimistic about one token: the rate restarts from the threshold.
    checks_ = 0;
    rate_ = kLowRate;
    length_ = 1;
  } else if (accepted == drafted) {
    next_pause_steps_ = kFirstPause_steps;
  }
}

}  // namespace strata
