#include "engine/window.h"

#include <algorithm>

namespace strata {

Window::Window(int group_index, int first, int n_slots, int n_groups, int max_rows, int hidden_width, int n_vocab,
               int max_drafts)
    : group(group_index),
      first_slot(first),
      slot_rows(n_slots, 0),
      group_rows(n_groups, 0),
      hidden(static_cast<size_t>(max_rows) * hidden_width * sizeof(float)),
      logits(static_cast<size_t>(n_slots) * (1 + max_drafts) * n_vocab * sizeof(float)) {
  rows.reserve(max_rows);
  logit_slots.reserve(static_cast<size_t>(n_slots) * (1 + max_drafts));
  reading_order.reserve(n_slots);
}

void build_window(std::span<const SlotWork> slots, int prefill_chunk, Window* w) {
  w->rows.clear();
  w->logit_slots.clear();
  w->reading_order.clear();
  std::fill(w->slot_rows.begin(), w->slot_rows.end(), 0);
  w->n_prefill_rows = w->n_decode_rows = 0;
  const int n = static_cast<int>(slots.size());
  for (int i = 0; i < n; ++i) {
    const SlotWork& s = slots[i];
    if (s.state == SlotState::kGenerating) {
      Row r;
      r.seq = w->first_slot + i;
      // Tokens not yet computed before the last (a hybrid model's slot after a rejected draft)
      // are recomputed first, without logits: their tokens are already chosen.
      for (r.pos = s.n_past; r.pos + 1 < static_cast<int>(s.tokens.size()); ++r.pos) {
        r.token = s.tokens[r.pos];
        r.want_logits = false;
        w->rows.push_back(r);
      }
      r.token = s.tokens[r.pos];
      r.want_logits = true;
      w->rows.push_back(r);
      w->logit_slots.push_back(r.seq);
      for (int32_t draft : s.drafts) {
        ++r.pos;
        r.token = draft;
        w->rows.push_back(r);
        w->logit_slots.push_back(r.seq);
      }
      w->slot_rows[i] = r.pos + 1 - s.n_past;
      w->n_decode_rows += w->slot_rows[i];
    } else if (s.state == SlotState::kReading) {
      w->reading_order.push_back(i);
    }
  }
  // std::sort, unlike stable_sort, never allocates; admissions are unique anyway.
  std::sort(w->reading_order.begin(), w->reading_order.end(), [&](int a, int b) {
    return slots[a].admission != slots[b].admission ? slots[a].admission < slots[b].admission : a < b;
  });
  int budget = prefill_chunk;
  for (int i : w->reading_order) {
    const SlotWork& s = slots[i];
    int take = std::min(budget, s.n_prompt - s.n_past);
    if (s.prompt_boundary > s.n_past) take = std::min(take, s.prompt_boundary - s.n_past);
    for (int k = 0; k < take; ++k) {
      Row r;
      r.seq = w->first_slot + i;
      r.pos = s.n_past + k;
      r.token = s.tokens[r.pos];
      r.want_logits = r.pos == s.n_prompt - 1;
      w->rows.push_back(r);
      if (r.want_logits) w->logit_slots.push_back(r.seq);
    }
    w->slot_rows[i] = take;
    w->n_prefill_rows += take;
    budget -= take;
    if (budget == 0) break;
  }
}

}  // namespace strata
