#include "engine/spec_slot.h"

#include <algorithm>

#include "sampling/ngram_drafter.h"

namespace strata {

void SpecSlot::reset(int limit_tokens, int max_drafts) {
  length_ = DraftLength(std::min(limit_tokens, max_drafts));
  if (static_cast<int>(drafts_.size()) < max_drafts) drafts_.resize(max_drafts);
  n_drafts_ = 0;
  counts_ = {};
}

std::span<const int32_t> SpecSlot::draft(const SpecOptions& options, SpecDraftModel* draft_model, int slot,
                                         uint64_t request_id, std::span<const int32_t> tokens, int room_tokens) {
  n_drafts_ = 0;
  if (length_.limit() == 0 || room_tokens <= 0) return {};
  const int want = std::min(length_.next(), room_tokens);
  if (want <= 0) return {};
  std::span<int32_t> out(drafts_.data(), static_cast<size_t>(want));
  if (options.drafter) {
    n_drafts_ = std::clamp(options.drafter(request_id, tokens, out), 0, want);
  } else if (draft_model != nullptr) {
    n_drafts_ = draft_model->draft(slot, tokens, out);
  } else {
    NgramDraftOptions ngram;
    ngram.n_min = options.ngram_min;
    ngram.n_max = options.ngram_max;
    n_drafts_ = ngram_draft(tokens, ngram, out);
  }
  return drafts();
}

void SpecSlot::finish_verification(int accepted, std::span<uint64_t> per_pos) {
  if (n_drafts_ == 0) return;
  accepted = std::clamp(accepted, 0, n_drafts_);
  ++counts_.drafts;
  counts_.draft_tokens += static_cast<uint64_t>(n_drafts_);
  counts_.accepted_tokens += static_cast<uint64_t>(accepted);
  for (int i = 0; i < accepted && i < static_cast<int>(per_pos.size()); ++i) ++per_pos[i];
  length_.record(n_drafts_, accepted);
  n_drafts_ = 0;
}

}  // namespace strata
