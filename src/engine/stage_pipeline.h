// StagePipeline: the model's layers split into contiguous ranges, each run by its own
// thread with its own ThreadPool and ForwardScratch; windows flow stage 0 -> 1 -> ... and
// the hidden states travel inside the Window.
//
// Stage 0 also embeds the window's tokens and the last stage computes its logits. With
// several groups, stage k works on group g's window while stage k+1 works on group g-1's,
// so every stage is busy once as many windows are in flight as there are stages.
// Results do not depend on the split: the kernels are batch-invariant and a row's layers
// run in the same order whichever thread runs them.
//
// Busy time is counted twice from the same measurement: per stage, and per group (the
// window's group). A group's busy time is the sum of the compute times of its windows in
// every stage, not the wall time from entering stage 0 to leaving the last stage: with
// pipelining a window also waits in a stage's queue behind other groups' windows, and that
// wait is not work for this group. A group has at most one window in flight and a window is
// in one stage at a time, so the per-group sums never double-count, and over all groups
// they add up to the stages' sum. A joined window (every group's rows) shares its time
// among the groups in proportion to their rows.
//
// The pipeline owns the windows (one per group, or one joined window for all groups,
// EngineOptions::join_groups) and decides how each runs; the engine loop only asks which
// windows are idle, fills them, and hands back those with rows:
//   - a joined window is the only window there is, so nothing can overlap with it: it is
//     computed on the caller's thread with every stage's cores, as one stage would, without
//     handing it to the stage threads and back;
//   - solo: a window launched alone (the only one with work this turn) while no other is in
//     flight has nothing to overlap with, so stage 0's thread runs all the stages' layers for
//     it on a pool of every stage's cores (busy time still goes to the stage whose layers
//     ran). A window launched meanwhile waits in stage 0's queue and the pipeline resumes
//     behind it. A lone request thus uses the whole machine instead of one stage's share;
//   - otherwise the windows flow stage by stage.
// The kernels are thread-count invariant, so a window's bits are the same whichever way it ran.
//
// Each stage moves its scratch's expert routing counters into the window it just ran (the
// scratch is only ever touched by the thread running that stage), so the engine reads a
// window's counts when it comes back, in pipelined and joined mode alike.
//
// Owns the stage threads, their pools and scratch, and the windows. Every public method but
// busy_s() and group_busy_s() is called by the engine thread only; `done` is called on the
// last stage's thread and must be quick. A window is in flight from launch() until the
// engine hands it back with returned() (after `done`). A single stage has no thread of its
// own: launch() runs it on the caller's thread and calls `done` before returning.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "base/thread_pool.h"
#include "engine/engine_config.h"
#include "engine/window.h"
#include "model/forward_scratch.h"
#include "model/model.h"

namespace strata {

class StagePipeline {
 public:
  using DoneFn = std::function<void(Window*)>;

  // Builds config's windows (sized for model) and config.stages' stages.
  StagePipeline(const Model& model, KvView& kv, const EngineConfig& config, DoneFn done);
  ~StagePipeline();
  StagePipeline(const StagePipeline&) = delete;
  StagePipeline& operator=(const StagePipeline&) = delete;

  // The windows not in flight, in group order, for the engine to fill. Valid until the next
  // launch() or returned().
  std::span<Window* const> idle_windows();
  // Runs the windows the engine filled this turn (each from idle_windows(), each with rows);
  // none may be touched until `done` returns it. How they run is the pipeline's choice
  // (see above).
  void launch(std::span<Window* const> windows);
  // The engine has taken w back from `done`: it is idle again.
  void returned(Window* w);
  // Whether the window that holds slot's rows is in flight.
  bool slot_in_flight(int slot) const { return in_flight_[window_index(slot)]; }
  bool any_in_flight() const;
  // The most slots one window holds (a group's, or every slot when joined).
  int max_window_slots() const { return static_cast<int>(windows_[0]->slot_rows.size()); }
  int n_stages() const { return static_cast<int>(stages_.size()); }
  // Cumulative seconds each stage spent computing.
  void busy_s(std::vector<double>* out) const;
  // Cumulative seconds the stages spent computing each group's windows (index = group).
  void group_busy_s(std::vector<double>* out) const;

 private:
  struct Stage;
  // What stage 0's queue holds: a window, and whether it runs solo (see above).
  struct Launch {
    Window* window = nullptr;
    bool solo = false;
  };
  void make_windows(const EngineConfig& config);
  int window_index(int slot) const { return joined_ ? 0 : slot / slots_per_group_; }
  // Runs every stage's layers for w on the calling thread with the pool of every stage's
  // cores, then calls `done`, before returning. Nothing else may be in flight.
  void run_now(Window* w);
  void run_stage(int index);
  // Runs stage index's layers on w (embedding first / logits last where it applies).
  void process(int index, Window* w, ThreadPool& pool);
  void push(int stage, Launch launch);
  // Adds a window's compute time to its group, or shares it by rows among a joined window's.
  void add_group_busy(const Window& w, uint64_t ns);
  // Moves the scratch's mixture-of-experts counters into the window (see Window).
  static void take_expert_counts(ForwardScratch& scratch, Window* w);

  const Model& model_;
  KvView& kv_;
  DoneFn done_;
  const bool joined_;
  const int slots_per_group_;
  std::vector<std::unique_ptr<Window>> windows_;  // one per group, or one joined window
  std::vector<bool> in_flight_;                   // per window; engine thread only
  std::vector<Window*> idle_;                     // idle_windows()' answer, reused
  std::vector<std::unique_ptr<Stage>> stages_;
  // One counter per group; fixed size so the stage threads never see it move.
  std::unique_ptr<std::atomic<uint64_t>[]> group_busy_ns_;
  int n_groups_ = 0;
  std::unique_ptr<ThreadPool> solo_pool_;  // every stage's threads; used by stage 0's thread only
};

}  // namespace strata
