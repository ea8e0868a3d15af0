// Window: the rows one group (or, joined, every group) sends through the pipeline in one
// engine step, and the buffers that travel with them (hidden states between stages, logits
// back to the engine).
//
// The engine allocates its windows once at start-up for the largest possible window and
// reuses them every step: building and running a window allocates nothing. A window is
// owned by the engine thread while building and sampling, and by the stage threads while
// in flight (handed over through queues); a slot is in at most one window in flight.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/aligned_buffer.h"
#include "engine/engine_types.h"
#include "model/model.h"

namespace strata {

// What the window builder needs to know about one slot.
struct SlotWork {
  SlotState state = SlotState::kIdle;
  int n_past = 0;                  // positions whose K/V is stored
  int n_prompt = 0;
  std::span<const int32_t> tokens;  // prompt, then generated tokens
  uint64_t admission = 0;           // order of admission: older prompts are read first
  // > n_past: a prompt chunk must not run past this position (it may end on it), so that a
  // hybrid model's state is complete there for a snapshot (kvcache/state_cache.h); 0: none.
  int prompt_boundary = 0;
  // Generating slots only: tokens drafted to follow tokens[n_past] (speculative decoding),
  // each verified by a row of its own.
  std::span<const int32_t> drafts;
};

// Window::group of a joined window: it holds the slots of every group (see
// EngineOptions::join_groups).
inline constexpr int kAllGroups = -1;

struct Window {
  // max_drafts: the most drafted tokens one slot may bring (logits rows per slot: 1 + that).
  Window(int group, int first_slot, int n_slots, int n_groups, int max_rows, int hidden_width, int n_vocab,
         int max_drafts = 0);

  int group = 0;                  // or kAllGroups
  int first_slot = 0;
  std::vector<Row> rows;          // decode rows in slot order, then prompt rows
  std::vector<int> logit_slots;   // the slot of each want_logits row, in row order (a slot
                                  // verifying drafts has 1 + drafts consecutive entries)
  std::vector<int> slot_rows;     // rows this window holds per slot, from first_slot on
  std::vector<int> group_rows;    // rows per group (index = group), set by the engine at launch
  int n_prefill_rows = 0;
  int n_decode_rows = 0;
  AlignedBuffer hidden;           // max_rows x hidden_width floats (Hparams::hidden_width)
  AlignedBuffer logits;           // n_slots x (1 + max_drafts) x n_vocab floats
  std::vector<int> reading_order; // scratch for the builder
  double launched_s = 0.0;
  // Mixture of experts: the routing counts (layer-major, n_layer * n_expert; empty for a
  // dense model) and expert bytes read by this window's passes, added by the stages from
  // their scratch; the engine reads and zeroes them when the window comes back.
  std::vector<uint32_t> expert_tokens;
  uint64_t expert_bytes_read = 0;

  float* logits_row(int i, int n_vocab) { return logits.as<float>() + static_cast<size_t>(i) * n_vocab; }
};

// Fills w with the rows of one step for its slots (slots[i] is slot first_slot + i):
//   - for every generating slot, one row for its last token, with logits, then one row with
//     logits for each of its drafts; a slot whose n_past is behind its last token (a hybrid
//     model's, after a rejected draft put its state back) first gets a row without logits for
//     each token from n_past on, so the last token's row is at position tokens.size() - 1;
//   - then prompt rows for reading slots, oldest admission first, until prefill_chunk rows
//     are used; the row of a prompt's last token asks for logits.
// Idle slots add nothing, and nothing pads the window.
void build_window(std::span<const SlotWork> slots, int prefill_chunk, Window* w);

}  // namespace strata
