// Helpers for engine tests: run requests through an Engine and capture every event and
// every raw logits row, then compare runs byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "model/test_model.h"

namespace strata::testing {

inline std::string stories_path() { return std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf"; }

// What one request produced.
struct Output {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;  // one row per sampled token
  std::string text;
  RequestEvent done;
  bool finished = false;
};

// Records what the engine reports through EngineObserver.
class RecordingObserver : public EngineObserver {
 public:
  void on_request_queued(uint64_t id, double arrival_s) override {
    std::lock_guard<std::mutex> lock(mu);
    ++n_queued;
  }
  void on_token(uint64_t id, double time_s, bool first) override {
    std::lock_guard<std::mutex> lock(mu);
    ++n_tokens;
    if (first) ++n_first_tokens;
  }
  void on_request_finished(const RequestRecord& record) override {
    std::lock_guard<std::mutex> lock(mu);
    records.push_back(record);
  }
  // Keeps each step's rows per group (the record's span is valid only during the call).
  void on_step(const StepRecord& step) override {
    std::lock_guard<std::mutex> lock(mu);
    StepRecord kept = step;
    kept.group_rows = {};
    steps.push_back(kept);
    std::vector<int>& rows = step_group_rows.emplace_back(step.group_rows.begin(), step.group_rows.end());
    if (step.group >= 0) {
      rows.assign(step.group + 1, 0);
      rows[step.group] = step.n_rows;
    }
  }
  // Windows each group had rows in (a joined window counts for every group in it).
  std::vector<int> windows_per_group(int n_groups) {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<int> n(n_groups, 0);
    for (const std::vector<int>& rows : step_group_rows) {
      for (size_t g = 0; g < rows.size(); ++g) n.at(g) += rows[g] > 0;
    }
    return n;
  }
  // The most groups that had rows in one window.
  int max_groups_per_window() {
    std::lock_guard<std::mutex> lock(mu);
    int most = 0;
    for (const std::vector<int>& rows : step_group_rows) {
      most = std::max(most, static_cast<int>(std::count_if(rows.begin(), rows.end(), [](int r) { return r > 0; })));
    }
    return most;
  }
  std::mutex mu;
  int n_queued = 0;
  int n_tokens = 0;
  int n_first_tokens = 0;
  std::vector<RequestRecord> records;
  std::vector<StepRecord> steps;            // group_rows left empty: see step_group_rows
  std::vector<std::vector<int>> step_group_rows;  // rows per group of each step
};

// Owns an engine whose logits tap and callbacks feed per-request Outputs.
class Harness {
 public:
  explicit Harness(EngineOptions options) {
    if (options.model_path.empty()) options.model_path = stories_path();
    if (options.observer == nullptr) options.observer = &observer_;
    if (options.n_threads == 0) options.n_threads = 1;
    options.logits_tap = [this](uint64_t id, int index, std::span<const float> row) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = outputs_.find(id);
      if (it == outputs_.end()) return;  // submitted around the harness
      auto& rows = it->second->logits;
      EXPECT_EQ(static_cast<int>(rows.size()), index);
      rows.emplace_back(row.begin(), row.end());
    };
    auto engine = Engine::Create(options);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    if (engine.ok()) engine_ = std::move(engine).value();
  }
  ~Harness() {
    if (engine_) engine_->shutdown(10.0);
  }

  Engine& engine() { return *engine_; }
  RecordingObserver& observer() { return observer_; }
  bool ok() const { return engine_ != nullptr; }

  // The harness lock is held across submit() so the logits tap (engine thread) cannot see
  // the id before it is registered.
  RequestId submit(const GenerateRequest& r) {
    auto out = std::make_shared<Output>();
    std::lock_guard<std::mutex> lock(mu_);
    auto id = engine_->submit(r, [this, out](const RequestEvent& e) { on_event(*out, e); });
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    if (!id.ok()) return 0;
    outputs_[*id] = out;
    return *id;
  }
  // Blocks until request id has finished; returns its output.
  Output wait(RequestId id) {
    std::unique_lock<std::mutex> lock(mu_);
    std::shared_ptr<Output> out = outputs_.at(id);
    cv_.wait(lock, [&] { return out->finished; });
    return *out;
  }
  // Blocks until request id has produced at least n tokens (or finished).
  void wait_tokens(RequestId id, size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    std::shared_ptr<Output> out = outputs_.at(id);
    cv_.wait(lock, [&] { return out->tokens.size() >= n || out->finished; });
  }

 private:
  void on_event(Output& out, const RequestEvent& e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (e.kind == RequestEvent::Kind::kToken) {
      out.tokens.push_back(e.token);
      out.text += e.text;
    } else {
      out.done = e;
      out.finished = true;
    }
    cv_.notify_all();
  }

  RecordingObserver observer_;
  std::unique_ptr<Engine> engine_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint64_t, std::shared_ptr<Output>> outputs_;
};

// A request of n_prompt pseudo-random token ids: BOS (1), then ids in [3, n_vocab).
GenerateRequest make_request(int n_prompt, int max_tokens, uint32_t seed, int n_vocab = 512);

// Runs r alone in a fresh engine with one slot, one stage and one group.
Output run_solo(const GenerateRequest& r, EngineOptions base = {});

// Asserts that two outputs are identical in tokens and in every logits byte.
void expect_identical(const Output& got, const Output& want, const std::string& what);

// Writes the engine tests' generated model of an architecture to path: a test model
// (model/test_model.h) in Q8_0, 4 layers 128 wide, experts of 128, with stories260K's
// vocabulary and context, small enough for the sanitized runs; adjust (when given) changes the
// spec before it is written.
Status write_generated_model(const std::string& arch, const std::string& path,
                             const std::function<void(TestModelSpec&)>& adjust = {});

}  // namespace strata::testing
