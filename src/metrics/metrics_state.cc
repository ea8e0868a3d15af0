#include "metrics/metrics_state.h"

#include <algorithm>

#include "metrics/bucket_bounds.h"

namespace strata {

int finish_index(FinishReason r) {
  switch (r) {
    case FinishReason::kStop: return 0;
    case FinishReason::kLength: return 1;
    case FinishReason::kAbort: return 2;
    case FinishReason::kError: return 3;
    case FinishReason::kNone: break;
  }
  return -1;
}

const char* slot_state_label(SlotState s) {
  switch (s) {
    case SlotState::kReading: return "reading";
    case SlotState::kGenerating: return "generating";
    case SlotState::kIdle: break;
  }
  return "idle";
}

std::array<int, 3> count_slot_states(const EngineSnapshot& snap) {
  std::array<int, 3> n = {0, 0, 0};
  for (const SlotInfo& s : snap.slots) {
    n[s.state == SlotState::kReading ? 1 : s.state == SlotState::kGenerating ? 2 : 0] += 1;
  }
  return n;
}

const char* engine_state_label(const EngineSnapshot& snap) {
  std::array<int, 3> n = count_slot_states(snap);
  return n[2] > 0 ? "generating" : n[1] > 0 ? "reading" : "idle";
}

size_t n_listed_groups(const MetricsState& st, const EngineSnapshot& snap) {
  return std::max(st.groups.size(), snap.group_busy_s.size());
}

GroupCounters group_counters(const MetricsState& st, size_t g) {
  return g < st.groups.size() ? st.groups[g] : GroupCounters{};
}

namespace {

std::array<Histogram*, 4> token_histograms(VllmHistograms& h) {
  return {&h.prompt_tokens, &h.generation_tokens, &h.max_generation_tokens, &h.params_max_tokens};
}

void set_token_bounds(VllmHistograms& h, int max_model_len) {
  const double max_len = max_model_len > 0 ? max_model_len : 1;
  for (Histogram* t : token_histograms(h)) *t = Histogram(one_two_five_buckets(max_len));
}

}  // namespace

MetricsState::MetricsState(const ServingMetricsOptions& opts, double start_mono, double start_wall)
    : options(opts), start_mono_s(start_mono), wall_minus_mono_s(start_wall - start_mono) {
  vllm.ttft_s = Histogram(ttft_buckets_s());
  vllm.inter_token_s = Histogram(inter_token_buckets_s());
  vllm.request_tpot_s = Histogram(inter_token_buckets_s());
  for (Histogram* h : {&vllm.e2e_s, &vllm.queue_s, &vllm.inference_s, &vllm.prefill_s,
                       &vllm.decode_s}) {
    *h = Histogram(request_latency_buckets_s());
  }
  set_token_bounds(vllm, opts.max_model_len);
  vllm.params_n = Histogram(request_n_buckets());
  vllm.iteration_tokens = Histogram(iteration_token_buckets());
  window_rows = Histogram(window_row_buckets());
  spec_accepted_per_pos.assign(opts.num_speculative_tokens > 0 ? opts.num_speculative_tokens : 0,
                               0.0);
}

void MetricsState::set_model(std::string model_name, int max_model_len) {
  options.model_name = std::move(model_name);
  if (max_model_len == options.max_model_len) return;
  for (Histogram* t : token_histograms(vllm)) {
    if (t->count() > 0) return;  // rebuilding would lose observations and lower counts
  }
  options.max_model_len = max_model_len;
  set_token_bounds(vllm, max_model_len);
}

void MetricsState::request_queued(uint64_t id, double arrival_s) {
  in_flight_[id].arrival_s = arrival_s;
}

void MetricsState::token(uint64_t id, double time_s, bool first) {
  auto it = in_flight_.find(id);
  if (it == in_flight_.end()) it = in_flight_.emplace(id, InFlight{}).first;
  InFlight& f = it->second;
  if (first && f.arrival_s > 0 && !f.ttft_observed) {
    vllm.ttft_s.observe(time_s - f.arrival_s);
    f.ttft_observed = true;
  }
  if (!first && f.tokens_seen > 0) {
    vllm.inter_token_s.observe(time_s - f.last_token_s);
  }
  f.last_token_s = time_s;
  ++f.tokens_seen;
  generation_tokens += 1;
}

void MetricsState::observe_finished_histograms(const RequestRecord& r, const InFlight* f) {
  const bool scheduled = r.scheduled_s > 0;
  const bool has_first = r.first_token_s > 0;
  if (has_first && (f == nullptr || !f->ttft_observed) && r.arrival_s > 0) {
    vllm.ttft_s.observe(r.first_token_s - r.arrival_s);
  }
  if (r.arrival_s > 0) vllm.e2e_s.observe(r.finished_s - r.arrival_s);
  if (scheduled && r.arrival_s > 0) vllm.queue_s.observe(r.scheduled_s - r.arrival_s);
  if (scheduled) vllm.inference_s.observe(r.finished_s - r.scheduled_s);
  if (scheduled && has_first) vllm.prefill_s.observe(r.first_token_s - r.scheduled_s);
  if (has_first) vllm.decode_s.observe(r.finished_s - r.first_token_s);
  if (has_first && r.generated_tokens >= 2) {
    vllm.request_tpot_s.observe((r.finished_s - r.first_token_s) / (r.generated_tokens - 1));
  }
  vllm.prompt_tokens.observe(r.prompt_tokens);
  vllm.generation_tokens.observe(r.generated_tokens);
  // Each of a client request's n choices is an engine request of its own and observed as one
  // (vLLM observes the longest of the n once).
  vllm.max_generation_tokens.observe(r.generated_tokens);
  if (r.max_tokens > 0) vllm.params_max_tokens.observe(r.max_tokens);
  if (r.choice == 0) vllm.params_n.observe(r.n);  // once per client request, however many answers it asked for
}

RequestSummary MetricsState::summarize(const RequestRecord& r) const {
  RequestSummary s;
  s.id = r.id;
  s.finish = r.finish;
  s.prompt_tokens = r.prompt_tokens;
  s.cached_tokens = r.cached_tokens;
  s.generated_tokens = r.generated_tokens;
  s.max_tokens = r.max_tokens;
  s.n = r.n;
  s.slot = r.slot;
  s.finished_wall_s = wall_of(r.finished_s);
  if (r.arrival_s > 0) s.e2e_s = r.finished_s - r.arrival_s;
  if (r.arrival_s > 0 && r.scheduled_s > 0) s.queue_s = r.scheduled_s - r.arrival_s;
  if (r.arrival_s > 0 && r.first_token_s > 0) s.ttft_s = r.first_token_s - r.arrival_s;
  if (r.scheduled_s > 0 && r.first_token_s > 0) s.prefill_s = r.first_token_s - r.scheduled_s;
  if (r.first_token_s > 0) s.decode_s = r.finished_s - r.first_token_s;
  if (s.decode_s > 0 && r.generated_tokens >= 2) {
    s.decode_tok_s = (r.generated_tokens - 1) / s.decode_s;
  }
  if (r.prompt_tokens > 0) {
    s.hit_rate = static_cast<double>(r.cached_tokens) / static_cast<double>(r.prompt_tokens);
  }
  return s;
}

void MetricsState::request_finished(const RequestRecord& r) {
  auto it = in_flight_.find(r.id);
  const InFlight* f = it == in_flight_.end() ? nullptr : &it->second;
  observe_finished_histograms(r, f);
  // Tokens the engine reported without an on_token call still count once.
  const int seen = f ? f->tokens_seen : 0;
  if (r.generated_tokens > seen) generation_tokens += r.generated_tokens - seen;
  if (r.scheduled_s > 0) prompt_tokens += r.prompt_tokens;
  if (int i = finish_index(r.finish); i >= 0) finished[i] += 1;
  if (it != in_flight_.end()) in_flight_.erase(it);

  RequestSummary s = summarize(r);
  if (r.scheduled_s > 0) last = s;  // a request that never read its prompt has no hit rate
  recent.push_back(s);
  while (recent.size() > options.keep_requests) recent.pop_front();
}

void MetricsState::step(const StepRecord& s) {
  vllm.iteration_tokens.observe(s.n_rows);
  window_rows.observe(s.n_rows);
  spec_drafts += static_cast<double>(s.spec.drafts);
  spec_draft_tokens += static_cast<double>(s.spec.draft_tokens);
  spec_accepted_tokens += static_cast<double>(s.spec.accepted_tokens);
  // An engine that speculates reports every position each step (zeros included), so the
  // per-position family appears with the engine's draft length even when the server did not
  // set num_speculative_tokens.
  if (s.spec_accepted_per_pos.size() > spec_accepted_per_pos.size()) {
    spec_accepted_per_pos.resize(s.spec_accepted_per_pos.size(), 0.0);
  }
  for (size_t i = 0; i < s.spec_accepted_per_pos.size(); ++i) {
    spec_accepted_per_pos[i] += static_cast<double>(s.spec_accepted_per_pos[i]);
  }
  auto add = [&](int group, int n_rows) {
    if (static_cast<size_t>(group) >= groups.size()) groups.resize(group + 1);
    groups[group].windows += 1;
    groups[group].rows += static_cast<uint64_t>(n_rows);
  };
  if (s.group >= 0) {
    add(s.group, s.n_rows);
    return;
  }
  // A joined window counts as a window of every group that had rows in it.
  for (size_t g = 0; g < s.group_rows.size(); ++g) {
    if (s.group_rows[g] > 0) add(static_cast<int>(g), s.group_rows[g]);
  }
}

void MetricsState::http_request(std::string_view handler, std::string_view method, int status) {
  // Status classes ("2xx") as vLLM's HTTP instrumentation writes them.
  std::string status_class = (status >= 100 && status <= 599)
                                 ? std::string(1, static_cast<char>('0' + status / 100)) + "xx"
                                 : std::string("other");
  auto key = std::make_tuple(std::string(handler), std::string(method), status_class);
  auto it = http_requests.find(key);
  if (it == http_requests.end() && http_requests.size() >= options.max_http_label_sets) {
    std::get<0>(key) = "other";
    it = http_requests.find(key);
  }
  if (it == http_requests.end()) it = http_requests.emplace(std::move(key), 0.0).first;
  it->second += 1;
}

void MetricsState::sample(const EngineSnapshot& snap, const HostSample& host, double now_mono_s) {
  HistoryPoint p;
  p.wall_s = wall_of(now_mono_s);
  p.tok_s = snap.decode_tok_s;
  p.prefill_tok_s = snap.prefill_tok_s;
  p.running = snap.n_running;
  p.waiting = snap.n_waiting;
  if (snap.kv.blocks_total > 0) {
    p.kv_usage = static_cast<double>(snap.kv.blocks_used) / snap.kv.blocks_total;
  }
  history.push_back(p);
  while (history.size() > kHistoryPoints) history.pop_front();
  last_sample_mono_s = now_mono_s;

  if (host.cpu_ticks) {
    if (last_cpu_ticks) {
      if (auto share = cpu_busy_share(*last_cpu_ticks, *host.cpu_ticks)) cpu_share = share;
    }
    last_cpu_ticks = host.cpu_ticks;
  }
  if (host.memory) memory = host.memory;
  gpus = host.gpus;
}

}  // namespace strata
