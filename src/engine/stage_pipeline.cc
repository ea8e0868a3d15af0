#include "engine/stage_pipeline.h"

#include <chrono>

namespace strata {

struct StagePipeline::Stage {
  Stage(const Model& model, const StagePlan& p, int max_rows, int max_seq_tokens, int max_in_flight,
        int total_threads)
      : plan(p), pool(p.n_threads), scratch(model.make_scratch(max_rows, max_seq_tokens, total_threads)),
        queue(static_cast<size_t>(max_in_flight) + 1, nullptr) {}

  StagePlan plan;
  ThreadPool pool;
  std::unique_ptr<ForwardScratch> scratch;
  // A fixed ring: at most one window per group is ever queued, so it never fills.
  std::vector<Window*> queue;
  size_t head = 0;
  size_t n_queued = 0;
  bool stop = false;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<uint64_t> busy_ns{0};
  std::thread thread;
};

StagePipeline::StagePipeline(const Model& model, KvView& kv, const std::vector<StagePlan>& plans, int max_rows,
                             int max_seq_tokens, int max_in_flight, DoneFn done)
    : model_(model), kv_(kv), done_(std::move(done)),
      group_busy_ns_(std::make_unique<std::atomic<uint64_t>[]>(static_cast<size_t>(max_in_flight))),
      n_groups_(max_in_flight) {
  int total_threads = 0;
  for (const StagePlan& p : plans) total_threads += p.n_threads;
  for (const StagePlan& p : plans) {
    stages_.push_back(std::make_unique<Stage>(model, p, max_rows, max_seq_tokens, max_in_flight, total_threads));
  }
  // One stage has nothing to overlap with: it runs on the caller's thread, which saves two
  // thread hand-offs per step.
  if (n_stages() == 1) return;
  solo_pool_ = std::make_unique<ThreadPool>(total_threads);
  for (int s = 0; s < n_stages(); ++s) stages_[s]->thread = std::thread([this, s] { run_stage(s); });
}

StagePipeline::~StagePipeline() {
  for (auto& st : stages_) {
    {
      std::lock_guard<std::mutex> lock(st->mu);
      st->stop = true;
    }
    st->cv.notify_one();
  }
  for (auto& st : stages_) {
    if (st->thread.joinable()) st->thread.join();
  }
}

void StagePipeline::launch(Window* w, bool alone) {
  if (n_stages() == 1) {
    process(0, w, stages_[0]->pool);
    done_(w);
    return;
  }
  w->solo = n_in_flight_.fetch_add(1, std::memory_order_acq_rel) == 0 && alone;
  push(0, w);
}

void StagePipeline::run_now(Window* w) {
  ThreadPool& pool = n_stages() == 1 ? stages_[0]->pool : *solo_pool_;
  for (int s = 0; s < n_stages(); ++s) process(s, w, pool);
  done_(w);
}

void StagePipeline::finish(Window* w) {
  // Before done_, which may launch the next window at once: that one may then run solo.
  n_in_flight_.fetch_sub(1, std::memory_order_acq_rel);
  done_(w);
}

void StagePipeline::push(int stage, Window* w) {
  Stage& st = *stages_[stage];
  {
    std::lock_guard<std::mutex> lock(st.mu);
    st.queue[(st.head + st.n_queued) % st.queue.size()] = w;
    ++st.n_queued;
  }
  st.cv.notify_one();
}

void StagePipeline::busy_s(std::vector<double>* out) const {
  out->resize(stages_.size());
  for (size_t s = 0; s < stages_.size(); ++s) {
    (*out)[s] = static_cast<double>(stages_[s]->busy_ns.load(std::memory_order_relaxed)) * 1e-9;
  }
}

void StagePipeline::group_busy_s(std::vector<double>* out) const {
  out->resize(static_cast<size_t>(n_groups_));
  for (int g = 0; g < n_groups_; ++g) {
    (*out)[g] = static_cast<double>(group_busy_ns_[g].load(std::memory_order_relaxed)) * 1e-9;
  }
}

void StagePipeline::process(int index, Window* w, ThreadPool& pool) {
  Stage& st = *stages_[index];
  auto t0 = std::chrono::steady_clock::now();
  std::span<const Row> rows(w->rows);
  float* hidden = w->hidden.as<float>();
  if (index == 0) model_.embed(rows, hidden);
  model_.forward_layers(rows, st.plan.first_layer, st.plan.last_layer, hidden, kv_, *st.scratch, pool);
  take_expert_counts(*st.scratch, w);
  if (index + 1 == n_stages() && !w->logit_slots.empty()) {
    model_.output_logits(rows, hidden, w->logits.as<float>(), *st.scratch, pool);
  }
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
  st.busy_ns.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
  add_group_busy(*w, static_cast<uint64_t>(ns));
}

// The scratch is this thread's while it runs the stage, so it is emptied here, into the
// window that travels on; w->expert_tokens was sized by the engine for the same model.
void StagePipeline::take_expert_counts(ForwardScratch& scratch, Window* w) {
  std::span<uint32_t> counts = scratch.expert_tokens();
  if (counts.empty() || counts.size() != w->expert_tokens.size()) return;
  for (size_t i = 0; i < counts.size(); ++i) {
    w->expert_tokens[i] += counts[i];
    counts[i] = 0;
  }
  w->expert_bytes_read += scratch.expert_bytes_read();
  scratch.expert_bytes_read() = 0;
}

void StagePipeline::add_group_busy(const Window& w, uint64_t ns) {
  if (w.group != kAllGroups) {
    group_busy_ns_[w.group].fetch_add(ns, std::memory_order_relaxed);
    return;
  }
  // A joined window's time is shared by rows; the last group with rows takes the rounding,
  // so the groups still add up to the stage's time.
  uint64_t n_rows = 0;
  int last = -1;
  for (int g = 0; g < n_groups_; ++g) {
    n_rows += static_cast<uint64_t>(w.group_rows[g]);
    if (w.group_rows[g] > 0) last = g;
  }
  if (last < 0) return;
  uint64_t given = 0;
  for (int g = 0; g < last; ++g) {
    const uint64_t share = ns * static_cast<uint64_t>(w.group_rows[g]) / n_rows;
    group_busy_ns_[g].fetch_add(share, std::memory_order_relaxed);
    given += share;
  }
  group_busy_ns_[last].fetch_add(ns - given, std::memory_order_relaxed);
}

void StagePipeline::run_stage(int index) {
  Stage& st = *stages_[index];
  const bool last = index + 1 == n_stages();
  for (;;) {
    Window* w = nullptr;
    {
      std::unique_lock<std::mutex> lock(st.mu);
      st.cv.wait(lock, [&] { return st.stop || st.n_queued > 0; });
      if (st.stop) return;
      w = st.queue[st.head];
      st.head = (st.head + 1) % st.queue.size();
      --st.n_queued;
    }
    if (w->solo) {
      // Only stage 0 receives solo windows; the other stages are idle meanwhile, so their
      // scratch is free to use from this thread.
      for (int s = 0; s < n_stages(); ++s) process(s, w, *solo_pool_);
      finish(w);
    } else if (last) {
      process(index, w, st.pool);
      finish(w);
    } else {
      process(index, w, st.pool);
      push(index + 1, w);
    }
  }
}

}  // namespace strata
