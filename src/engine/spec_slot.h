// SpecSlot: one slot's speculative decoding for the request it runs: the tokens drafted for
// the window in flight, the request's adaptive draft length (sampling/draft_length.h) and
// its draft / acceptance counts.
//
// A step's drafts follow the slot's last token; the window verifies them with one row each
// (window.h), and the engine accepts them in order while they equal the tokens the target
// model's logits give (engine_loop.cc), so the output never depends on them. Drafts never
// reach beyond what the request may still generate, so no draft row writes a position that
// plain decoding would not.
// Owned by the engine thread, inside its Slot; not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/engine.h"
#include "engine/spec_draft_model.h"
#include "sampling/draft_length.h"

namespace strata {

class SpecSlot {
 public:
  // For a newly admitted request: limit_tokens = the most it drafts per step (0 = never);
  // max_drafts = the engine's room per slot (SpecOptions::max_draft_tokens, or 0).
  void reset(int limit_tokens, int max_drafts);

  // Drafts the tokens to verify after `tokens` (prompt + generated so far), at most
  // room_tokens of them; empty when the request does not speculate, its draft length is
  // paused, or the drafter has no guess. Kept until finish_verification().
  // draft_model: the engine's draft model (--model-draft), or null; slot: this slot's index
  // (the draft model's sequence).
  std::span<const int32_t> draft(const SpecOptions& options, SpecDraftModel* draft_model, int slot,
                                 uint64_t request_id, std::span<const int32_t> tokens, int room_tokens);
  std::span<const int32_t> drafts() const { return {drafts_.data(), static_cast<size_t>(n_drafts_)}; }
  // This step verifies nothing (a hybrid model's slot catching up after a rejection).
  void skip_step() { n_drafts_ = 0; }
  // The window came back and the first `accepted` drafts equalled the target's tokens:
  // updates the counts (per_pos[i] += 1 for each accepted position i) and the draft length.
  void finish_verification(int accepted, std::span<uint64_t> per_pos);

  const SpecCounts& counts() const { return counts_; }

 private:
  DraftLength length_;
  std::vector<int32_t> drafts_;  // capacity max_drafts, allocated once per slot
  int n_drafts_ = 0;
  SpecCounts counts_;
};

}  // namespace strata
