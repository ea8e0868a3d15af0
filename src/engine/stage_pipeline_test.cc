// StagePipeline decides how the windows the engine fills are run: a joined window on the
// caller's thread before launch() returns, a window launched alone with nothing else in flight
// solo (every stage's layers on stage 0's thread), and windows launched together, or while
// another is still in flight, stage by stage (finished by the last stage's thread). Every way
// gives the same logits bytes.
#include "engine/stage_pipeline.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "model/contiguous_kv.h"

namespace strata {
namespace {

const std::string kModel = std::string(STRATA_SHARED_DIR) + "/models/stories260K.gguf";

// Records which thread handed back each window.
class Returns {
 public:
  void done(Window* w) {
    std::lock_guard<std::mutex> lock(mu_);
    got_.push_back({w, std::this_thread::get_id()});
    cv_.notify_all();
  }
  // The thread that handed back the n-th window (from 1), once it has.
  std::thread::id wait(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return got_.size() >= n; });
    return got_[n - 1].thread;
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu_);
    return got_.size();
  }

 private:
  struct Got {
    Window* window;
    std::thread::id thread;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Got> got_;
};

// Two slots in two stages of one thread each, their windows joined or one per group.
class PipelineRun {
 public:
  explicit PipelineRun(bool join) {
    auto model = Model::Load(kModel);
    EXPECT_TRUE(model.ok()) << model.status().ToString();
    model_ = std::move(*model);
    EngineOptions o;
    o.model_path = kModel;
    o.n_parallel = 2;
    o.n_stages = 2;
    o.n_groups = 2;
    o.join_groups = join;
    o.n_threads = 2;
    o.n_ctx = 64;
    auto config = resolve_engine_config(o, model_->hparams(), 2);
    EXPECT_TRUE(config.ok()) << config.status().ToString();
    auto kv = ContiguousKv::Create(config->kv_layout, o.n_parallel, o.n_ctx);
    EXPECT_TRUE(kv.ok()) << kv.status().ToString();
    kv_ = std::move(*kv);
    pipeline_ = std::make_unique<StagePipeline>(*model_, *kv_, *config, [this](Window* w) { returns.done(w); });
  }

  StagePipeline& pipeline() { return *pipeline_; }
  int n_vocab() const { return model_->hparams().n_vocab; }

  // Fills w with one prompt row per slot: the slot's first token, asking for logits.
  void fill(Window* w) {
    std::vector<SlotWork> work(w->slot_rows.size());
    for (size_t i = 0; i < work.size(); ++i) {
      work[i].state = SlotState::kReading;
      work[i].n_prompt = 1;
      work[i].tokens = std::span<const int32_t>(&kTokens[w->first_slot + i], 1);
      work[i].admission = i + 1;
    }
    build_window(work, 16, w);
  }

  // The logits bytes of slot's row in w.
  std::vector<float> logits(Window* w, int slot) {
    for (size_t j = 0; j < w->logit_slots.size(); ++j) {
      if (w->logit_slots[j] != slot) continue;
      const float* row = w->logits_row(static_cast<int>(j), n_vocab());
      return std::vector<float>(row, row + n_vocab());
    }
    ADD_FAILURE() << "no logits row for slot " << slot;
    return {};
  }

  Returns returns;

 private:
  static constexpr int32_t kTokens[2] = {5, 17};
  std::unique_ptr<Model> model_;
  std::unique_ptr<ContiguousKv> kv_;
  std::unique_ptr<StagePipeline> pipeline_;
};

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(StagePipeline, LoneWindowRunsSoloAndWindowsTogetherFlowStageByStage) {
  PipelineRun run(/*join=*/false);
  StagePipeline& p = run.pipeline();
  std::vector<Window*> both(p.idle_windows().begin(), p.idle_windows().end());
  ASSERT_EQ(both.size(), 2u);
  for (Window* w : both) run.fill(w);
  p.launch(both);
  const std::thread::id last_stage = run.returns.wait(2);
  EXPECT_EQ(run.returns.wait(1), last_stage);
  const std::vector<float> slot0 = run.logits(both[0], 0);
  const std::vector<float> slot1 = run.logits(both[1], 1);
  EXPECT_TRUE(p.any_in_flight());  // until the engine hands them back
  p.returned(both[0]);
  p.returned(both[1]);
  EXPECT_FALSE(p.any_in_flight());

  // Alone with nothing in flight: stage 0's thread runs every stage.
  run.fill(both[0]);
  p.launch(std::span<Window* const>(&both[0], 1));
  const std::thread::id solo = run.returns.wait(3);
  EXPECT_NE(solo, last_stage);
  EXPECT_TRUE(same_bytes(run.logits(both[0], 0), slot0));
  EXPECT_TRUE(p.slot_in_flight(0));
  EXPECT_FALSE(p.slot_in_flight(1));
  EXPECT_EQ(p.idle_windows().size(), 1u);

  // Alone, but slot 0's window is still in flight (not handed back): stage by stage.
  run.fill(both[1]);
  p.launch(std::span<Window* const>(&both[1], 1));
  EXPECT_EQ(run.returns.wait(4), last_stage);
  EXPECT_TRUE(same_bytes(run.logits(both[1], 1), slot1));
  p.returned(both[0]);
  p.returned(both[1]);
  EXPECT_EQ(p.idle_windows().size(), 2u);
}

TEST(StagePipeline, JoinedWindowRunsOnTheCallersThreadWithTheSameBits) {
  PipelineRun split(/*join=*/false);
  std::vector<Window*> both(split.pipeline().idle_windows().begin(), split.pipeline().idle_windows().end());
  for (Window* w : both) split.fill(w);
  split.pipeline().launch(both);
  split.returns.wait(2);

  PipelineRun joined(/*join=*/true);
  StagePipeline& p = joined.pipeline();
  ASSERT_EQ(p.idle_windows().size(), 1u);
  Window* w = p.idle_windows()[0];
  joined.fill(w);
  p.launch(std::span<Window* const>(&w, 1));
  ASSERT_EQ(joined.returns.count(), 1u);  // before launch() returned
  EXPECT_EQ(joined.returns.wait(1), std::this_thread::get_id());
  EXPECT_TRUE(p.slot_in_flight(0) && p.slot_in_flight(1));
  EXPECT_TRUE(same_bytes(joined.logits(w, 0), split.logits(both[0], 0)));
  EXPECT_TRUE(same_bytes(joined.logits(w, 1), split.logits(both[1], 1)));
  p.returned(w);
  EXPECT_FALSE(p.any_in_flight());
}

}  // namespace
}  // namespace strata
