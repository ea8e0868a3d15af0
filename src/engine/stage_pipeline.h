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

  // max_in_flight bounds the windows queued at any stage (the number of groups).
  StagePipeline(const Model& model, KvView& kv, const std::vector<StagePlan>& plans, int max_rows,
                int max_seq_tokens, int max_in_flight, DoneFn done);
  ~StagePipeline();
  StagePipeline(const StagePipeline&) = delete;
  StagePipeline& operator=(const StagePipeline&) = delete;

  // Hands w to stage 0. w must not be touched until `done` returns it.
  void launch(Window* w);
  int n_stages() const { return static_cast<int>(stages_.size()); }
  // Cumulative seconds each stage spent computing.
  void busy_s(std::vector<double>* out) const;

 private:
  struct Stage;
  void run_stage(int index);
  // Runs stage index's layers on w (embedding first / logits last where it applies).
  void process(int index, Window* w);
  void push(int stage, Window* w);

  const Model& model_;
  KvView& kv_;
  DoneFn done_;
  std::vector<std::unique_ptr<Stage>> stages_;
};

}  // namespace strata
