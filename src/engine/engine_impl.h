// EngineImpl: the Engine behind engine.h. One engine thread runs the scheduler: it admits
// waiting requests into slots (slot_allocator.h), fills the windows the stage pipeline has
// idle (window.h), hands those with rows back to the pipeline, which decides how they run
// (stage_pipeline.h: joined, solo or stage by stage), and when a window comes back samples
// the next tokens, sends events and frees finished slots.
//
// Owns the model, tokenizer, K/V cache, pipeline (and through it the windows) and slots. The
// slots, K/V cache and request states belong to the engine thread; public methods only
// touch the inbox (thread-safe) and the snapshot (under snapshot_mu_).
// Private to src/engine.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/aligned_buffer.h"
#include "engine/engine.h"
#include "engine/engine_config.h"
#include "engine/engine_inbox.h"
#include "engine/expert_load_window.h"
#include "engine/rate_window.h"
#include "engine/request_state.h"
#include "engine/slot_allocator.h"
#include "engine/spec_slot.h"
#include "engine/stage_pipeline.h"
#include "engine/window.h"
#include "kvcache/kv_cache.h"
#include "model/model.h"
#include "tokenizer/tokenizer.h"

namespace strata {

class EngineImpl final : public Engine {
 public:
  static Result<std::unique_ptr<Engine>> Create(const EngineOptions& options);
  ~EngineImpl() override;

  Result<RequestId> submit(GenerateRequest request, RequestCallback callback) override;
  void cancel(RequestId id) override;
  void park_idle() override;
  EngineSnapshot snapshot() const override;
  const Tokenizer& tokenizer() const override { return *tokenizer_; }
  const EngineOptions& options() const override { return config_.options; }
  void shutdown(double timeout_s) override;

 private:
  struct Slot {
    SlotState state = SlotState::kIdle;
    int group = 0;
    int n_past = 0;              // positions whose K/V is stored
    uint64_t admission = 0;
    bool cancel_pending = false;
    std::unique_ptr<RequestState> request;
    SpecSlot spec;               // drafts in flight and the request's speculation counts
  };

  EngineImpl(EngineConfig config, int n_vocab);
  Status start();
  void run();
  // One turn of the engine thread; false when it should exit.
  bool turn();
  bool take_inbox();
  void apply_cancel(RequestId id);
  void abort_waiting(PendingRequest& p);
  void admit_waiting();
  // True while a slot reading its prompt has yet to compute prompt blocks this request could
  // take from the prefix cache once they are published: admitting it now would compute them twice.
  bool awaits_shared_blocks(const GenerateRequest& request) const;
  bool admit(int slot, PendingRequest& pending);
  void launch_ready_windows();
  // Builds w's rows from its slots' state, growing their K/V; false if it has none.
  bool fill_window(Window* w);
  void complete(Window* w);
  void accept_logits(Window* w);
  // Samples slot_index's n_rows logits rows from row j on: its last token's, then one per
  // draft, accepting drafts while they equal the sampled tokens (speculative decoding).
  void accept_slot_rows(Window* w, int j, int n_rows);
  void finish_embedding(Window* w, int j, int slot_index);
  // Drafts the next tokens of every generating slot in [first, first + n) (SpecSlot).
  void prepare_drafts(int first, int n);
  void finish_slot(int slot, FinishReason reason);
  void fail_slot(int slot, const std::string& error);
  std::unique_ptr<RequestState> release_slot(int slot);
  void abort_everything();
  void publish_snapshot();
  // Moves a returned window's expert routing counts into expert_load_ (under snapshot_mu_).
  void record_expert_load(Window* w, double now_s);
  // The environment's monotonic time: every request, window and snapshot stamp.
  double now_s() const { return config_.options.env.clock->monotonic_s(); }

  EngineConfig config_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<KvCache> kv_;
  std::unique_ptr<SpecDraftModel> draft_model_;  // --model-draft, or null
  std::unique_ptr<StagePipeline> pipeline_;
  EngineInbox inbox_;
  std::vector<Window*> ready_;                    // windows filled this turn, reused
  std::vector<Slot> slots_;
  std::vector<SlotWork> work_;                    // builder input, reused
  std::vector<SlotCandidate> candidates_;         // allocator input, reused
  std::deque<PendingRequest> waiting_;
  std::vector<PendingRequest> incoming_;
  std::vector<RequestId> cancels_;
  uint64_t n_admitted_ = 0;
  uint64_t steps_ = 0;
  bool stop_seen_ = false;  // engine thread: the inbox has been stopped
  RateWindow rates_;
  Sampler sampler_;    // the engine thread samples every request; it keeps no state
  // The vocabulary's bytes for constrained requests, built on the first one (engine thread).
  std::shared_ptr<const grammar::TokenVocabulary> constraint_vocab_;
  std::string error_;  // scratch for sampling errors
  // Why embed requests are refused (the model pools another way than by its last token);
  // empty when they are served.
  std::string embedding_pooling_error_;
  // Speculation: this step's counts (reported in StepRecord) and the totals since start.
  SpecCounts step_spec_;
  std::vector<uint64_t> step_accepted_per_pos_;
  SpecCounts spec_total_;
  std::vector<uint64_t> accepted_per_pos_total_;
  // Rows of this step that give no token: drafts not accepted, rows recomputed after a rejection.
  int step_rejected_rows_ = 0;
  // Hybrid models with speculation: each slot's recurrent state as it was before the window
  // that verifies its drafts (n_parallel x state_floats floats; empty otherwise). A rejection
  // puts it back and the slot recomputes its accepted rows in its next window (window.h).
  AlignedBuffer spec_states_;
  bool hybrid_spec() const { return spec_states_.size() > 0; }
  float* spec_state(int slot) {
    return spec_states_.as<float>() + static_cast<size_t>(slot) * config_.kv_layout.state_floats;
  }

  std::atomic<RequestId> next_id_{1};
  std::atomic<bool> accepting_{true};
  std::atomic<double> stop_deadline_s_{0.0};
  std::atomic<bool> park_requested_{false};
  std::thread thread_;

  mutable std::mutex snapshot_mu_;
  EngineSnapshot snapshot_;
  // Last-minute routing counts: recorded by the engine thread, advanced to the reader's
  // time by snapshot(); both under snapshot_mu_.
  mutable ExpertLoadWindow expert_load_;
};

}  // namespace strata
