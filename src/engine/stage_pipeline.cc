#include "engine/stage_pipeline.h"

#include <algorithm>
#include <chrono>

namespace strata {

struct StagePipeline::Stage {
  Stage(const Model& model, const StagePlan& p, int max_rows, int max_seq_tokens, int max_in_flight,
        int total_threads)
      : plan(p), pool(p.n_threads), scratch(model.make_scratch(max_rows, max_seq_tokens, total_threads)),
        queue(static_cast<size_t>(max_in_flight) + 1) {}

  StagePlan plan;
  ThreadPool pool;
  std::unique_ptr<ForwardScratch> scratch;
  // A fixed ring: at most one window per group is ever queued, so it never fills.
  std::vector<Launch> queue;
  size_t head = 0;
  size_t n_queued = 0;
  bool stop = false;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<uint64_t> busy_ns{0};
  std::thread thread;
};

namespace {

// A window's index in the pipeline's windows: its group, or 0 for the joined window.
size_t index_of(const Window& w) { return w.group == kAllGroups ? 0 : static_cast<size_t>(w.group); }

}  // namespace

StagePipeline::StagePipeline(const Model& model, KvView& kv, const EngineConfig& config, DoneFn done)
    : model_(model), kv_(kv), done_(std::move(done)), joined_(config.join_groups),
      slots_per_group_(config.slots_per_group),
      group_busy_ns_(std::make_unique<std::atomic<uint64_t>[]>(static_cast<size_t>(config.options.n_groups))),
      n_groups_(config.options.n_groups) {
  make_windows(config);
  int total_threads = 0;
  for (const StagePlan& p : config.stages) total_threads += p.n_threads;
  for (const StagePlan& p : config.stages) {
    stages_.push_back(std::make_unique<Stage>(model, p, config.max_window_rows, config.options.n_ctx, n_groups_,
                                              total_threads));
  }
  // One stage has nothing to overlap with: it runs on the caller's thread, which saves two
  // thread hand-offs per step.
  if (n_stages() == 1) return;
  solo_pool_ = std::make_unique<ThreadPool>(total_threads);
  for (int s = 0; s < n_stages(); ++s) stages_[s]->thread = std::thread([this, s] { run_stage(s); });
}

void StagePipeline::make_windows(const EngineConfig& config) {
  const EngineOptions& o = config.options;
  const Hparams& hp = model_.hparams();
  if (joined_) {
    windows_.push_back(std::make_unique<Window>(kAllGroups, 0, o.n_parallel, o.n_groups, config.max_window_rows,
                                                hp.hidden_width(), hp.n_vocab, config.max_drafts));
  } else {
    for (int g = 0; g < o.n_groups; ++g) {
      windows_.push_back(std::make_unique<Window>(g, g * slots_per_group_, slots_per_group_, o.n_groups,
                                                  config.max_window_rows, hp.hidden_width(), hp.n_vocab, config.max_drafts));
    }
  }
  if (hp.is_moe()) {
    for (auto& w : windows_) w->expert_tokens.assign(static_cast<size_t>(hp.n_layer) * hp.n_expert, 0);
  }
  in_flight_.assign(windows_.size(), false);
  idle_.reserve(windows_.size());
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

std::span<Window* const> StagePipeline::idle_windows() {
  idle_.clear();
  for (size_t i = 0; i < windows_.size(); ++i) {
    if (!in_flight_[i]) idle_.push_back(windows_[i].get());
  }
  return idle_;
}

void StagePipeline::returned(Window* w) { in_flight_[index_of(*w)] = false; }

bool StagePipeline::any_in_flight() const {
  return std::any_of(in_flight_.begin(), in_flight_.end(), [](bool b) { return b; });
}

void StagePipeline::launch(std::span<Window* const> windows) {
  if (windows.empty()) return;
  // Checked before this turn's windows count as in flight: a window launched alone runs
  // solo only if no other window is still in flight.
  const bool solo = windows.size() == 1 && !any_in_flight();
  for (Window* w : windows) in_flight_[index_of(*w)] = true;
  if (joined_) {
    run_now(windows[0]);  // the only window: nothing to overlap with
    return;
  }
  for (Window* w : windows) {
    if (n_stages() == 1) {
      process(0, w, stages_[0]->pool);
      done_(w);
    } else {
      push(0, Launch{w, solo});
    }
  }
}

void StagePipeline::run_now(Window* w) {
  ThreadPool& pool = n_stages() == 1 ? stages_[0]->pool : *solo_pool_;
  for (int s = 0; s < n_stages(); ++s) process(s, w, pool);
  done_(w);
}

void StagePipeline::push(int stage, Launch launch) {
  Stage& st = *stages_[stage];
  {
    std::lock_guard<std::mutex> lock(st.mu);
    st.queue[(st.head + st.n_queued) % st.queue.size()] = launch;
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
    Launch launch;
    {
      std::unique_lock<std::mutex> lock(st.mu);
      st.cv.wait(lock, [&] { return st.stop || st.n_queued > 0; });
      if (st.stop) return;
      launch = st.queue[st.head];
      st.head = (st.head + 1) % st.queue.size();
      --st.n_queued;
    }
    Window* w = launch.window;
    if (launch.solo) {
      // Only stage 0 receives solo windows; the other stages are idle meanwhile, so their
      // scratch is free to use from this thread.
      for (int s = 0; s < n_stages(); ++s) process(s, w, *solo_pool_);
      done_(w);
    } else if (last) {
      process(index, w, st.pool);
      done_(w);
    } else {
      process(index, w, st.pool);
      push(index + 1, Launch{w, false});
    }
  }
}

}  // namespace strata
