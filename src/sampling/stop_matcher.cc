#include "sampling/stop_matcher.h"

#include <algorithm>

namespace strata {

StopMatcher::StopMatcher(std::vector<std::string> stops) {
  for (size_t i = 0; i < stops.size(); ++i) {
    if (stops[i].empty()) continue;
    stops_.push_back(std::move(stops[i]));
    stop_index_.push_back(static_cast<int>(i));
  }
}

bool StopMatcher::feed(std::string_view piece, std::string* emit) {
  if (stopped_) return true;
  size_t previous = pending_.size();
  pending_.append(piece);
  // pending_ held no complete stop before this piece, so a match must end inside it.
  size_t best = std::string::npos;
  for (size_t i = 0; i < stops_.size(); ++i) {
    const std::string& stop = stops_[i];
    size_t from = previous >= stop.size() ? previous - stop.size() + 1 : 0;
    size_t at = pending_.find(stop, from);
    if (at < best) {
      best = at;
      matched_ = stop_index_[i];
    }
  }
  if (best != std::string::npos) {
    emit->append(pending_, 0, best);
    pending_.clear();
    stopped_ = true;
    return true;
  }
  size_t hold = 0;
  for (const std::string& stop : stops_) {
    for (size_t len = std::min(stop.size() - 1, pending_.size()); len > hold; --len) {
      if (pending_.compare(pending_.size() - len, len, stop, 0, len) == 0) {
        hold = len;
        break;
      }
    }
  }
  emit->append(pending_, 0, pending_.size() - hold);
  pending_.erase(0, pending_.size() - hold);
  return false;
}

void StopMatcher::flush(std::string* emit) {
  if (stopped_) return;
  emit->append(pending_);
  pending_.clear();
}

}  // namespace strata
