// MetricsState: everything ServingMetrics accumulates from engine and HTTP events, plus the
// last once-a-second samples (history points, host CPU/RAM).
//
// Plain data with the methods that apply one event each; the renderers read the fields.
// Not thread-safe: ServingMetrics holds its lock around every call. Invariants: counters
// only grow; each histogram's count equals its +Inf bucket; `recent` holds at most
// options.keep_requests entries, newest at the back; `history` at most kHistoryPoints.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "engine/engine_types.h"
#include "metrics/histogram.h"
#include "metrics/proc_stats.h"
#include "metrics/serving_metrics_options.h"

namespace strata {

// Finish reasons in label order; index with finish_index().
inline constexpr std::array<const char*, 4> kFinishReasons = {"stop", "length", "abort", "error"};
// -1 for FinishReason::kNone.
int finish_index(FinishReason r);
const char* slot_state_label(SlotState s);
// The engine as one word: "generating" when any slot generates, else "reading" when any
// slot reads a prompt, else "idle".
const char* engine_state_label(const EngineSnapshot& snap);
// Slots per state, indexed idle, reading, generating.
std::array<int, 3> count_slot_states(const EngineSnapshot& snap);
inline constexpr std::array<const char*, 3> kSlotStates = {"idle", "reading", "generating"};

// One finished request as the Monitor page lists it. Durations are -1 when the request
// never reached that point (e.g. aborted while queued has no ttft).
struct RequestSummary {
  uint64_t id = 0;
  FinishReason finish = FinishReason::kNone;
  int prompt_tokens = 0, cached_tokens = 0, generated_tokens = 0, max_tokens = 0, n = 1;
  int slot = -1;
  double finished_wall_s = 0;
  double queue_s = -1, ttft_s = -1, e2e_s = -1, prefill_s = -1, decode_s = -1;
  double decode_tok_s = -1;
  double hit_rate = -1;  // cached / prompt tokens; -1 without prompt tokens
};

struct HistoryPoint {
  double wall_s = 0;
  double tok_s = 0, prefill_tok_s = 0;
  int running = 0, waiting = 0;
  double kv_usage = -1;  // -1 when the pool has no blocks
};

struct HostSample {
  std::optional<HostCpuTicks> cpu_ticks;
  std::optional<HostMemory> memory;
  std::vector<GpuBusy> gpus;
};

struct GroupCounters {
  uint64_t windows = 0;
  uint64_t rows = 0;
};

class MetricsState;
// Batch groups the renderers list, 0..n-1: every group in the snapshot's group_busy_s and
// any group a step reported. A group that never ran a window lists 0 windows and 0 rows, so
// each group's figures exist from the start (counters are not made up: they are 0).
size_t n_listed_groups(const MetricsState& st, const EngineSnapshot& snap);
// Group g's step counters; zeros for a group no step has reported yet.
GroupCounters group_counters(const MetricsState& st, size_t g);

struct VllmHistograms {
  Histogram ttft_s, inter_token_s, request_tpot_s;
  Histogram e2e_s, queue_s, inference_s, prefill_s, decode_s;
  Histogram prompt_tokens, generation_tokens, max_generation_tokens, params_max_tokens, params_n;
  Histogram iteration_tokens;
};

class MetricsState {
 public:
  static constexpr size_t kHistoryPoints = 60;

  explicit MetricsState(const ServingMetricsOptions& options, double start_mono_s,
                        double start_wall_s);

  // New model_name; new token-histogram bounds unless a histogram already has observations.
  void set_model(std::string model_name, int max_model_len);
  void request_queued(uint64_t id, double arrival_s);
  void token(uint64_t id, double time_s, bool first);
  void request_finished(const RequestRecord& r);
  void step(const StepRecord& s);
  void http_request(std::string_view handler, std::string_view method, int status);
  // One history point and host reading, taken at now_mono_s.
  void sample(const EngineSnapshot& snap, const HostSample& host, double now_mono_s);

  double wall_of(double mono_s) const { return mono_s + wall_minus_mono_s; }

  ServingMetricsOptions options;
  double start_mono_s, wall_minus_mono_s;

  double prompt_tokens = 0, generation_tokens = 0;
  std::array<double, 4> finished = {0, 0, 0, 0};
  double spec_drafts = 0, spec_draft_tokens = 0, spec_accepted_tokens = 0;
  std::vector<double> spec_accepted_per_pos;
  // (handler, method, status class) -> count; ordered so every scrape lists them alike.
  std::map<std::tuple<std::string, std::string, std::string>, double> http_requests;

  VllmHistograms vllm;
  Histogram window_rows;
  std::vector<GroupCounters> groups;

  std::deque<RequestSummary> recent;
  std::optional<RequestSummary> last;  // the last finished request that got a slot

  std::deque<HistoryPoint> history;
  std::optional<double> last_sample_mono_s;
  std::optional<double> cpu_share;
  std::optional<HostCpuTicks> last_cpu_ticks;
  std::optional<HostMemory> memory;
  std::vector<GpuBusy> gpus;

 private:
  struct InFlight {
    double arrival_s = 0;
    double last_token_s = 0;
    int tokens_seen = 0;
    bool ttft_observed = false;
  };
  void observe_finished_histograms(const RequestRecord& r, const InFlight* f);
  RequestSummary summarize(const RequestRecord& r) const;

  std::unordered_map<uint64_t, InFlight> in_flight_;
};

}  // namespace strata
