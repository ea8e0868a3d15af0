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
// Solo windows: when a window is launched while no other is in flight and no other group has
// work (the engine says so), there is nothing to overlap with, so stage 0's thread runs all
// the stages' layers for it on a pool of every stage's cores (busy time still goes to the
// stage whose layers ran). A window launched meanwhile waits in stage 0's queue and the
// pipeline resumes behind it. A lone request thus uses the whole machine instead of one
// stage's share; the kernels are thread-count invariant, so its bits are the same either way.
//
// A joined window (every group's rows, EngineOptions::join_groups) is the only window there
// is, so nothing can overlap with it: run_now() computes it on the caller's thread with every
// stage's cores, as one stage would, without handing it to the stage threads and back.
//
// Each stage moves its scratch's expert routing counters into the window it just ran (the
// scratch is only ever touched by the thread running that stage), so the engine reads a
// window's counts when it comes back, in pipelined and joined mode alike.
//
// Owns the stage threads, their pools and scratch. launch() is called by the engine
// thread; `done` is called on the last stage's thread and must be quick. A single stage
// has no thread of its own: launch() runs it on the caller's thread and calls `done`
// before returning.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
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

  // max_in_flight bounds the windows queued at any stage (the number of groups); every
  // launched window's group lies in [0, max_in_flight).
  StagePipeline(const Model& model, KvView& kv, const std::vector<StagePlan>& plans, int max_rows,
                int max_seq_tokens, int max_in_flight, DoneFn done);
  ~StagePipeline();
  StagePipeline(const StagePipeline&) = delete;
  StagePipeline& operator=(const StagePipeline&) = delete;

  // Hands w to stage 0. w must not be touched until `done` returns it. alone: no other group
  // has work, so if nothing is in flight w runs solo (see above).
  void launch(Window* w, bool alone);
  // Runs every stage's layers for w on the calling thread with the pool of every stage's
  // cores, then calls `done`, before returning. Nothing may be in flight.
  void run_now(Window* w);
  int n_stages() const { return static_cast<int>(stages_.size()); }
  // Cumulative seconds each stage spent computing.
  void busy_s(std::vector<double>* out) const;
  // Cumulative seconds the stages spent computing each group's windows (index = group).
  void group_busy_s(std::vector<double>* out) const;

 private:
  struct Stage;
  void run_stage(int index);
  // Runs stage index's layers on w (embedding first / logits last where it applies).
  void process(int index, Window* w, ThreadPool& pool);
  void push(int stage, Window* w);
  // Adds a window's compute time to its group, or shares it by rows among a joined window's.
  void add_group_busy(const Window& w, uint64_t ns);
  // Moves the scratch's mixture-of-experts counters into the window (see Window).
  static void take_expert_counts(ForwardScratch& scratch, Window* w);
  void finish(Window* w);

  const Model& model_;
  KvView& kv_;
  DoneFn done_;
  std::vector<std::unique_ptr<Stage>> stages_;
  // One counter per group; fixed size so the stage threads never see it move.
  std::unique_ptr<std::atomic<uint64_t>[]> group_busy_ns_;
  int n_groups_ = 0;
  std::unique_ptr<ThreadPool> solo_pool_;  // every stage's threads; used by stage 0's thread only
  std::atomic<int> n_in_flight_{0};
};

}  // namespace strata
