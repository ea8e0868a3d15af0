// The engine thread: admission, window launches and completions (see engine_impl.h).
#include <algorithm>
#include <cstring>
#include <limits>

#include "base/clock.h"
#include "base/log.h"
#include "engine/engine_impl.h"

namespace strata {

void EngineImpl::run() {
  while (turn()) {
  }
}

bool EngineImpl::turn() {
  double timeout_s = -1.0;
  if (stop_seen_) timeout_s = std::max(0.0, stop_deadline_s_.load() - monotonic_s());
  inbox_.wait(timeout_s);
  // Only a take() that saw the stop has every request submitted before it (the inbox
  // refuses new ones from then on), so the exit decision waits for that.
  if (!take_inbox()) stop_seen_ = true;
  while (Window* w = inbox_.pop_window()) complete(w);
  if (stop_seen_) {
    for (PendingRequest& p : waiting_) abort_waiting(p);
    inbox_.note_left_queue(static_cast<int>(waiting_.size()));
    waiting_.clear();
    bool any_active = std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.request != nullptr; });
    if (!any_active || monotonic_s() >= stop_deadline_s_.load()) {
      abort_everything();
      publish_snapshot();
      return false;
    }
  } else {
    admit_waiting();
  }
  launch_ready_windows();
  publish_snapshot();
  return true;
}

// Returns false once the inbox has been stopped.
bool EngineImpl::take_inbox() {
  uint64_t park_ticket = 0;
  const bool running = inbox_.take(&incoming_, &cancels_, &park_ticket);
  for (PendingRequest& p : incoming_) {
    if (config_.options.observer) config_.options.observer->on_request_queued(p.id, p.arrival_s);
    waiting_.push_back(std::move(p));
  }
  incoming_.clear();
  for (RequestId id : cancels_) apply_cancel(id);
  cancels_.clear();
  if (park_ticket != 0) {
    int n = kv_->park_idle();
    STRATA_LOG_DEBUG("engine: parked {} idle K/V blocks", n);
    publish_snapshot();  // the caller of park_idle() sees the new counts
    inbox_.parked(park_ticket);
  }
  return running;
}

void EngineImpl::abort_waiting(PendingRequest& p) {
  RequestRecord r;
  r.id = p.id;
  r.finish = FinishReason::kAbort;
  r.arrival_s = p.arrival_s;
  r.finished_s = now_s();
  r.prompt_tokens = static_cast<int>(p.request.prompt_tokens.size());
  r.max_tokens = p.request.max_tokens;
  r.n = p.request.n;
  r.choice = p.request.choice;
  RequestEvent done;
  done.kind = RequestEvent::Kind::kDone;
  done.finish = FinishReason::kAbort;
  done.prompt_tokens = r.prompt_tokens;
  if (config_.options.observer) config_.options.observer->on_request_finished(r);
  if (p.callback) p.callback(done);
}

void EngineImpl::apply_cancel(RequestId id) {
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    if (it->id != id) continue;
    abort_waiting(*it);
    waiting_.erase(it);
    inbox_.note_left_queue();
    return;
  }
  for (int s = 0; s < static_cast<int>(slots_.size()); ++s) {
    Slot& slot = slots_[s];
    if (!slot.request || slot.request->id() != id) continue;
    // A slot whose window is in flight is still in use by the stages: finish it when the
    // window returns.
    if (pipeline_->slot_in_flight(s)) {
      slot.cancel_pending = true;
    } else {
      finish_slot(s, FinishReason::kAbort);
    }
    return;
  }
}

// Requests are admitted in arrival order, except that one whose prompt shares blocks with a
// prompt still being read waits for them (awaits_shared_blocks) while later ones go ahead: the n
// choices of one OpenAI request, or users who send one long system prompt at once, read the
// shared part once instead of once each, then take it from the prefix cache.
void EngineImpl::admit_waiting() {
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (awaits_shared_blocks(it->request)) {
      ++it;
      continue;
    }
    for (size_t s = 0; s < slots_.size(); ++s) {
      candidates_[s].busy = slots_[s].request != nullptr;
      candidates_[s].retained_blocks = candidates_[s].busy ? 0 : kv_->retained_blocks(static_cast<int>(s));
    }
    std::optional<SlotChoice> choice = choose_slot(candidates_, config_.options.n_groups);
    if (!choice) return;
    if (!admit(choice->slot, *it)) return;  // K/V blocks: retry when some are released
    STRATA_LOG_DEBUG("engine: request {} -> slot {}: {}", slots_[choice->slot].request->id(), choice->slot,
                     choice->reason);
    it = waiting_.erase(it);
    inbox_.note_left_queue();
  }
}

bool EngineImpl::awaits_shared_blocks(const GenerateRequest& request) const {
  if (!kv_->reuses_prefixes()) return false;
  const std::vector<int32_t>& prompt = request.prompt_tokens;
  // The last prompt token is always recomputed (admit()), so at most the blocks before it are reused.
  const size_t reusable = prompt.empty() ? 0 : prompt.size() - 1;
  const size_t block = static_cast<size_t>(kv_->layout().block_tokens);
  for (const Slot& slot : slots_) {
    if (slot.state != SlotState::kReading || !slot.request) continue;
    const std::vector<int32_t>& other = slot.request->request().prompt_tokens;
    const size_t limit = std::min(reusable, other.size());
    const size_t common = static_cast<size_t>(
        std::mismatch(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(limit), other.begin()).first -
        prompt.begin());
    const size_t shared = common / block * block;
    if (shared > 0 && static_cast<size_t>(slot.n_past) < shared) return true;
  }
  return false;
}

bool EngineImpl::admit(int slot_index, PendingRequest& pending) {
  const std::vector<int32_t>& prompt = pending.request.prompt_tokens;
  const int n_prompt = static_cast<int>(prompt.size());
  // The last prompt token is always recomputed: its logits give the first new token (or its
  // hidden state the embedding: an embed request's max_tokens is 0, its K/V ends with the prompt).
  std::optional<Admission> a = kv_->admit(slot_index, prompt, n_prompt - 1, n_prompt + pending.request.max_tokens);
  if (!a) return false;
  Slot& slot = slots_[slot_index];
  slot.state = SlotState::kReading;
  slot.n_past = a->reused_tokens;
  slot.admission = ++n_admitted_;
  slot.cancel_pending = false;
  if (pending.request.constraint && !constraint_vocab_) constraint_vocab_ = build_constraint_vocabulary(*tokenizer_);
  slot.request = std::make_unique<RequestState>(std::move(pending), *tokenizer_, config_.options.observer,
                                                constraint_vocab_);
  const int wanted = slot.request->request().speculative_tokens;
  slot.spec.reset(wanted < 0 ? config_.max_drafts : wanted, config_.max_drafts);
  if (draft_model_) draft_model_->reset(slot_index);
  RequestRecord& r = slot.request->record();
  r.scheduled_s = now_s();
  r.cached_tokens = a->reused_tokens;
  r.slot = slot_index;
  return true;
}

void EngineImpl::launch_ready_windows() {
  ready_.clear();
  for (Window* w : pipeline_->idle_windows()) {
    if (fill_window(w)) ready_.push_back(w);
  }
  pipeline_->launch(ready_);
}

bool EngineImpl::fill_window(Window* w) {
  const int first = w->first_slot;
  const int n = static_cast<int>(w->slot_rows.size());
  prepare_drafts(first, n);
  for (;;) {
    for (int i = 0; i < n; ++i) {
      const Slot& s = slots_[first + i];
      SlotWork& work = work_[i];
      work.state = s.request ? s.state : SlotState::kIdle;
      work.n_past = s.n_past;
      work.n_prompt = s.request ? s.request->n_prompt() : 0;
      work.tokens = s.request ? s.request->tokens() : std::span<const int32_t>();
      work.admission = s.admission;
      // Hybrid models: a prompt chunk stops on the prompt point, so its state can be kept there.
      work.prompt_boundary =
          config_.n_state_snapshots > 0 ? prompt_point(work.n_prompt, config_.kv_layout.block_tokens) : 0;
      work.drafts = s.request && s.state == SlotState::kGenerating ? s.spec.drafts() : std::span<const int32_t>();
    }
    build_window(std::span<const SlotWork>(work_.data(), n), config_.options.prefill_chunk, w);
    if (w->rows.empty()) return false;
    bool all_grown = true;
    for (int i = 0; i < n && all_grown; ++i) {
      if (w->slot_rows[i] == 0) continue;
      Status st = kv_->grow(first + i, slots_[first + i].n_past + w->slot_rows[i]);
      if (!st.ok()) {
        fail_slot(first + i, st.ToString());
        all_grown = false;
      }
    }
    if (all_grown) break;
  }
  std::fill(w->group_rows.begin(), w->group_rows.end(), 0);
  for (int i = 0; i < n; ++i) w->group_rows[slots_[first + i].group] += w->slot_rows[i];
  if (hybrid_spec()) {
    for (int i = 0; i < n; ++i) {
      if (slots_[first + i].spec.drafts().empty()) continue;
      std::memcpy(spec_state(first + i), kv_->recurrent_state(first + i), config_.kv_layout.state_floats * sizeof(float));
    }
  }
  w->launched_s = now_s();
  return true;
}

void EngineImpl::complete(Window* w) {
  const int first = w->first_slot;
  const int n = static_cast<int>(w->slot_rows.size());
  pipeline_->returned(w);
  ++steps_;
  // Before any request's kDone: whoever reacts to it sees this window's routing counted.
  record_expert_load(w, now_s());
  for (int i = 0; i < n; ++i) {
    if (w->slot_rows[i] == 0) continue;
    Slot& s = slots_[first + i];
    // Draft rows' K/V counts only once their tokens are accepted (accept_slot_rows); a hybrid
    // model's state is past them already, so its blocks wait for the verdict too.
    s.n_past += w->slot_rows[i] - static_cast<int>(s.spec.drafts().size());
    if (!hybrid_spec() || s.spec.drafts().empty()) kv_->publish(first + i, s.request->tokens(), s.n_past);
  }
  step_spec_ = {};
  std::fill(step_accepted_per_pos_.begin(), step_accepted_per_pos_.end(), 0);
  step_rejected_rows_ = 0;
  // Rows a hybrid model's slot recomputed after a rejection generate no token: not counted.
  for (int i = 0; i < n; ++i) {
    const Slot& s = slots_[first + i];
    if (w->slot_rows[i] > 0 && s.state == SlotState::kGenerating && s.spec.drafts().empty()) {
      step_rejected_rows_ += w->slot_rows[i] - 1;
    }
  }
  accept_logits(w);
  for (int i = 0; i < n; ++i) {
    if (slots_[first + i].cancel_pending) finish_slot(first + i, FinishReason::kAbort);
  }
  const double now = now_s();
  rates_.record(now, w->n_decode_rows - step_rejected_rows_, w->n_prefill_rows);
  if (config_.options.observer) {
    StepRecord step;
    step.group = w->group;
    step.n_rows = static_cast<int>(w->rows.size());
    step.n_prefill_rows = w->n_prefill_rows;
    step.n_decode_rows = w->n_decode_rows;
    if (w->group == kAllGroups) step.group_rows = w->group_rows;
    step.spec = step_spec_;
    step.spec_accepted_per_pos = step_accepted_per_pos_;
    config_.options.observer->on_step(step);
  }
}

void EngineImpl::record_expert_load(Window* w, double now_s) {
  if (w->expert_tokens.empty()) return;
  {
    std::lock_guard<std::mutex> lock(snapshot_mu_);
    expert_load_.record(now_s, w->expert_tokens);
    snapshot_.moe.expert_bytes_read_total += w->expert_bytes_read;
  }
  std::fill(w->expert_tokens.begin(), w->expert_tokens.end(), 0u);
  w->expert_bytes_read = 0;
}

void EngineImpl::accept_logits(Window* w) {
  const int n_logits = static_cast<int>(w->logit_slots.size());
  for (int j = 0; j < n_logits;) {
    int n_rows = 1;
    while (j + n_rows < n_logits && w->logit_slots[j + n_rows] == w->logit_slots[j]) ++n_rows;
    accept_slot_rows(w, j, n_rows);
    j += n_rows;
  }
}

// Row r > 0 verifies draft r - 1: its logits are the target's only if every earlier draft
// was accepted, so sampling stops at the first draft that differs from the sampled token
// (that token is kept: it came from valid logits) or when the request finishes.
void EngineImpl::accept_slot_rows(Window* w, int j, int n_rows) {
  const int n_vocab = model_->hparams().n_vocab;
  const int slot_index = w->logit_slots[j];
  Slot& s = slots_[slot_index];
  if (s.cancel_pending) return;
  if (s.request->request().embed) return finish_embedding(w, j, slot_index);
  s.state = SlotState::kGenerating;
  const std::span<const int32_t> drafts = s.spec.drafts();
  FinishReason reason = FinishReason::kNone;
  int accepted = 0;
  for (int r = 0; r < n_rows; ++r) {
    std::span<const float> row(w->logits_row(j + r, n_vocab), static_cast<size_t>(n_vocab));
    reason = s.request->accept(row, sampler_, now_s(), config_.options.logits_tap, &error_);
    if (reason != FinishReason::kNone || r >= static_cast<int>(drafts.size())) break;
    if (s.request->tokens().back() != drafts[r]) break;
    ++accepted;
  }
  if (!drafts.empty()) {
    ++step_spec_.drafts;
    step_spec_.draft_tokens += drafts.size();
    step_spec_.accepted_tokens += static_cast<uint64_t>(accepted);
    step_rejected_rows_ += static_cast<int>(drafts.size()) - accepted;
    // The totals move now, before a finishing request's kDone, so whoever reacts to it sees them.
    ++spec_total_.drafts;
    spec_total_.draft_tokens += drafts.size();
    spec_total_.accepted_tokens += static_cast<uint64_t>(accepted);
    for (int p = 0; p < accepted; ++p) ++accepted_per_pos_total_[p];
    s.spec.finish_verification(accepted, step_accepted_per_pos_);
    // The accepted drafts' K/V is the target's: keep and publish it; the rest is left
    // beyond n_past, unpublished, and overwritten by the next window.
    s.n_past += accepted;
    if (hybrid_spec() && accepted < static_cast<int>(drafts.size())) {
      // The delta-net state went through every draft: back to where it was before the window,
      // and the slot's next window recomputes the rows it accepted (their bits, and the
      // state, as plain decoding makes them).
      std::memcpy(kv_->recurrent_state(slot_index), spec_state(slot_index),
                  config_.kv_layout.state_floats * sizeof(float));
      s.n_past -= 1 + accepted;
    } else {
      kv_->publish(slot_index, s.request->tokens(), s.n_past);
    }
  }
  if (reason == FinishReason::kError) {
    fail_slot(slot_index, error_);
  } else if (reason != FinishReason::kNone) {
    finish_slot(slot_index, reason);
  }
}

// The embedding of the request whose prompt ended at logits row j: the final norm of the
// hidden state the last stage left for that row (rows with logits are the window's
// want_logits rows, in row order).
void EngineImpl::finish_embedding(Window* w, int j, int slot_index) {
  int row = 0;
  for (int seen = -1; row < static_cast<int>(w->rows.size()); ++row) {
    if (w->rows[row].want_logits && ++seen == j) break;
  }
  const int n_embd = model_->hparams().n_embd;
  std::vector<float> embedding(static_cast<size_t>(n_embd));
  model_->final_norm(w->hidden.as<float>() + static_cast<size_t>(row) * n_embd, embedding.data());
  std::unique_ptr<RequestState> request = release_slot(slot_index);
  publish_snapshot();
  request->finish_embedding(std::move(embedding), now_s());
}

void EngineImpl::prepare_drafts(int first, int n) {
  for (int i = 0; i < n; ++i) {
    Slot& s = slots_[first + i];
    if (!s.request || s.state != SlotState::kGenerating || s.cancel_pending) continue;
    const RequestState& r = *s.request;
    // A slot recomputing rows after a rejection (hybrid models) drafts again once caught up.
    if (s.n_past + 1 < static_cast<int>(r.tokens().size())) {
      s.spec.skip_step();
      continue;
    }
    // The last token that may still be generated is never drafted (it would need a row
    // beyond the last position plain decoding computes).
    const int room = r.request().max_tokens - r.n_generated() - 1;
    s.spec.draft(config_.options.spec, draft_model_.get(), first + i, r.id(), r.tokens(), room);
  }
}

// The slot is released and the snapshot published before the client hears kDone, so
// whoever reacts to the event sees the engine without this request.
void EngineImpl::finish_slot(int slot_index, FinishReason reason) {
  std::unique_ptr<RequestState> request = release_slot(slot_index);
  publish_snapshot();
  request->finish(reason, now_s());
}

void EngineImpl::fail_slot(int slot_index, const std::string& error) {
  std::unique_ptr<RequestState> request = release_slot(slot_index);
  STRATA_LOG_ERROR("engine: request {} in slot {} failed: {}", request->id(), slot_index, error);
  publish_snapshot();
  request->fail(error, now_s());
}

std::unique_ptr<RequestState> EngineImpl::release_slot(int slot_index) {
  Slot& s = slots_[slot_index];
  kv_->release(slot_index);
  if (s.request) s.request->record().spec = s.spec.counts();
  s.state = SlotState::kIdle;
  s.n_past = 0;
  s.cancel_pending = false;
  return std::move(s.request);
}

void EngineImpl::abort_everything() {
  // The stages may still hold windows; their slots' K/V must stay put until they return.
  while (pipeline_->any_in_flight()) {
    inbox_.wait(-1.0);
    while (Window* w = inbox_.pop_window()) pipeline_->returned(w);
  }
  for (int s = 0; s < static_cast<int>(slots_.size()); ++s) {
    if (slots_[s].request) finish_slot(s, FinishReason::kAbort);
  }
  // Keep finished conversations for the next engine on this park directory.
  int n = kv_->park_idle();
  if (n > 0) STRATA_LOG_INFO("engine: parked {} files (K/V blocks, state snapshots) at shutdown", n);
}

void EngineImpl::publish_snapshot() {
  const double now = now_s();
  KvCacheStats kv = kv_->stats();
  std::lock_guard<std::mutex> lock(snapshot_mu_);
  EngineSnapshot& snap = snapshot_;
  snap.n_running = 0;
  for (size_t s = 0; s < slots_.size(); ++s) {
    const Slot& slot = slots_[s];
    SlotInfo& info = snap.slots[s];
    info.slot = static_cast<int>(s);
    info.group = slot.group;
    info.state = slot.request ? slot.state : SlotState::kIdle;
    info.request_id = slot.request ? slot.request->id() : 0;
    info.prompt_tokens = slot.request ? slot.request->n_prompt() : 0;
    info.generated = slot.request ? slot.request->n_generated() : 0;
    info.tok_s = 0.0;
    info.spec = slot.request ? slot.spec.counts() : SpecCounts{};
    if (slot.request) {
      ++snap.n_running;
      const RequestRecord& r = slot.request->record();
      if (r.first_token_s > 0 && now > r.first_token_s && info.generated > 1) {
        info.tok_s = (info.generated - 1) / (now - r.first_token_s);
      }
    }
  }
  snap.n_waiting = inbox_.n_waiting();
  snap.kv.block_tokens = kv.block_tokens;
  snap.kv.blocks_total = kv.blocks_total;
  snap.kv.blocks_used = kv.blocks_used;
  snap.kv.blocks_cached = kv.blocks_cached;
  snap.kv.evictions = kv.evictions;
  snap.kv.parked_blocks = kv.park.blocks;
  snap.kv.parked_bytes = kv.park.bytes;
  snap.kv.park_capacity_bytes = kv.park.capacity_bytes;
  snap.kv.parks = kv.park.parks;
  snap.kv.restores = kv.restores;
  snap.kv.restored_blocks = kv.restored_blocks;
  snap.kv.parked_states = kv.park.states;
  snap.kv.restored_states = kv.restored_states;
  snap.kv.park_bytes_written = kv.park.bytes_written;
  snap.kv.bytes_reused = kv.bytes_reused;
  snap.kv.prefix_queries_tokens = kv.prefix_queries_tokens;
  snap.kv.prefix_hit_tokens = kv.prefix_hit_tokens;
  snap.kv.state_snapshots_total = kv.state_snapshots_total;
  snap.kv.state_snapshots_used = kv.state_snapshots_used;
  snap.kv.window_tokens = kv_->layout().window_tokens;
  snap.kv.window_blocks_total = kv.window_blocks_total;
  snap.kv.window_blocks_used = kv.window_blocks_used;
  snap.kv.window_blocks_cached = kv.window_blocks_cached;
  pipeline_->busy_s(&snap.stage_busy_s);
  pipeline_->group_busy_s(&snap.group_busy_s);
  rates_.rates(now, &snap.decode_tok_s, &snap.prefill_tok_s);
  snap.steps = steps_;
  snap.spec = spec_total_;
  snap.spec_accepted_per_pos = accepted_per_pos_total_;
}

}  // namespace strata
