// StopMatcher: finds stop strings in generated text that arrives in pieces (one per token),
// matching across piece boundaries. It tells the caller which text is safe to emit now: text
// before a stop string is emitted, the stop string and anything after it never are. It holds
// back only the longest tail that is a prefix of some stop string, and releases it as soon as
// it can no longer start a match.
//
// One StopMatcher per request; not thread-safe. Stop strings are matched as bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops);  // empty strings are ignored

  // Appends to *emit the text that is now safe to show. Returns true once a stop string has
  // completed: *emit then ends just before it, and later calls emit nothing.
  bool feed(std::string_view piece, std::string* emit);

  // Generation ended without a stop: appends the held-back text to *emit.
  void flush(std::string* emit);

  bool stopped() const { return stopped_; }
  int matched_stop() const { return matched_; }  // index into the stops given, -1 if none
  size_t held_bytes() const { return pending_.size(); }

 private:
  std::vector<std::string> stops_;
  std::vector<int> stop_index_;  // stops_[i] was given at stop_index_[i]
  std::string pending_;
  bool stopped_ = false;
  int matched_ = -1;
};

}  // namespace strata
