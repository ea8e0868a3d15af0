// DraftLength: how many tokens one request drafts at its next step, adapted to how many of
// its recent drafts the target model accepted.
//
//   - it starts at the limit; a fully accepted draft grows the next one by a token (up to the
//     limit), a partly rejected one shrinks it to one more than was accepted;
//   - the acceptance rate is followed as a moving average; when it stays under kLowRate over
//     at least kMinChecks verifications, drafting pauses for a number of steps that doubles
//     with each pause in a row (kFirstPause_steps .. kMaxPause_steps), then resumes with one
//     token, so a request whose text does not repeat soon stops paying for drafts.
// Drafts are only proposals checked by the target, so this decides speed, never output.
// Plain value owned by one request (the engine thread); not thread-safe.
#pragma once

namespace strata {

class DraftLength {
 public:
  static constexpr double kLowRate = 0.3;
  static constexpr int kMinChecks = 4;
  static constexpr int kFirstPause_steps = 8;
  static constexpr int kMaxPause_steps = 256;

  DraftLength() = default;
  explicit DraftLength(int limit_tokens);

  int limit() const { return limit_; }
  // Tokens to draft at this step: 0 while paused (each call counts one paused step).
  int next();
  // The outcome of verifying a draft of `drafted` tokens (> 0) of which `accepted` matched.
  void record(int drafted, int accepted);
  double acceptance_rate() const { return rate_; }

 private:
  int limit_ = 0;
  int length_ = 0;
  double rate_ = 1.0;
  int checks_ = 0;         // verifications since drafting last resumed
  int paused_steps_ = 0;   // steps left in the current pause
  int next_pause_steps_ = kFirstPause_steps;
};

}  // namespace strata
