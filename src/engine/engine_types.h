// Plain structs the engine exchanges with its users (server, CLI tools, metrics).
// No behaviour here; see engine.h for the contracts.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace strata {

namespace grammar {
class CompiledGrammar;
}

struct SamplingParams {
  float temperature = 0.0f;   // 0 = greedy
  int top_k = 0;              // 0 = off
  float top_p = 1.0f;         // 1 = off
  float min_p = 0.0f;         // 0 = off
  float repeat_penalty = 1.0f;
  int repeat_last_n = 64;
  float frequency_penalty = 0.0f;
  float presence_penalty = 0.0f;
  std::vector<std::pair<int32_t, float>> logit_bias;
  uint64_t seed = 0;          // the random stream is keyed by (seed, position)
  int n_top_logprobs = 0;     // > 0: report this many alternatives per token
  bool logprobs = false;
};

enum class FinishReason { kNone, kStop, kLength, kAbort, kError };
const char* finish_reason_name(FinishReason r);  // "stop", "length", "abort", "error"

struct GenerateRequest {
  std::vector<int32_t> prompt_tokens;
  int max_tokens = 256;
  SamplingParams sampling;
  std::vector<std::string> stop;  // stop strings, matched across token boundaries
  bool ignore_eos = false;
  // The client asked for n answers (OpenAI's n) and this request is answer `choice` of them
  // (0..n-1); each is its own engine request. Recorded for metrics: vllm:request_params_n is
  // observed once per client request, at its choice 0.
  int n = 1;
  int choice = 0;
  // The grammar the output must follow (response_format, grammar, a forced tool call), built
  // by the caller and shared read-only; null: unconstrained. The engine thread runs a matcher
  // over it and masks each step's tokens (engine/request_constraint.h).
  std::shared_ptr<const grammar::CompiledGrammar> constraint;
  // Speculative decoding for this request: -1 = the engine's setting (EngineOptions::spec),
  // 0 = off, n > 0 = draft at most n tokens per step (never more than the engine's
  // --spec-tokens). Only an engine started with a drafter can speculate. The output is the
  // same either way; only its speed changes.
  int speculative_tokens = -1;
  // An embedding instead of a generation: the request reads its prompt and ends there, its
  // kDone carrying the model's final-norm output at the last prompt token (last-token
  // pooling, not normalised; Engine::submit says which models). Nothing is sampled, so
  // max_tokens and sampling are ignored and the prompt may fill the whole context.
  bool embed = false;
};

// What speculation did for one request (or, summed, for the engine).
struct SpecCounts {
  uint64_t drafts = 0;           // verification steps that carried at least one drafted token
  uint64_t draft_tokens = 0;     // drafted tokens verified
  uint64_t accepted_tokens = 0;  // drafted tokens that equalled the target's token
};

struct TopLogprob {
  int32_t token = 0;
  float logprob = 0.0f;
};

// One event delivered to a request's callback, in order: zero or more kTokens, then exactly
// one kDone or kError.
struct RequestEvent {
  enum class Kind { kToken, kDone, kError } kind = Kind::kToken;
  int32_t token = -1;
  // kToken: new complete UTF-8 text (empty while bytes or a possible stop-string prefix are
  // held back). kDone: the held-back text released at the end (usually empty): append it.
  std::string text;
  float logprob = 0.0f;
  std::vector<TopLogprob> top_logprobs;
  FinishReason finish = FinishReason::kNone;   // kDone
  std::string error;                           // kError: what is wrong
  int prompt_tokens = 0;                       // kDone / kError: usage
  int cached_tokens = 0;                       // prompt tokens served from prefix cache or park store
  int completion_tokens = 0;
  std::vector<float> embedding;                // kDone of an embed request: n_embd floats
};

enum class SlotState { kIdle, kReading, kGenerating };
const char* slot_state_name(SlotState s);  // "idle", "reading", "generating"

struct SlotInfo {
  int slot = 0;
  int group = 0;
  SlotState state = SlotState::kIdle;
  int prompt_tokens = 0;
  int generated = 0;
  double tok_s = 0.0;
  uint64_t request_id = 0;
  SpecCounts spec;
};

struct KvStats {
  int block_tokens = 0;
  int blocks_total = 0;
  int blocks_used = 0;     // referenced by running requests
  int blocks_cached = 0;   // unreferenced, kept for prefix reuse
  uint64_t evictions = 0;
  std::string dtype;
  uint64_t parked_blocks = 0;
  uint64_t parked_bytes = 0;
  uint64_t park_capacity_bytes = 0;
  uint64_t parks = 0;
  uint64_t restores = 0;
  uint64_t restored_blocks = 0;
  uint64_t parked_states = 0;    // hybrid models: state snapshots in the park store
  uint64_t restored_states = 0;  // and read back from it
  uint64_t park_bytes_written = 0;
  uint64_t bytes_reused = 0;    // K/V bytes not recomputed thanks to the cache or the park store
  uint64_t prefix_queries_tokens = 0;
  uint64_t prefix_hit_tokens = 0;
  // Hybrid models: recurrent-state snapshots (kvcache/state_cache.h) the cache can hold (0: none,
  // or not a hybrid model) and holds.
  int state_snapshots_total = 0;
  int state_snapshots_used = 0;
  // Models with sliding-window layers beside full ones: those layers' pool (kvcache/window_blocks.h),
  // which holds only each slot's window; 0 blocks total otherwise.
  int window_tokens = 0;
  int window_blocks_total = 0;
  int window_blocks_used = 0;
  int window_blocks_cached = 0;
};

// Mixture-of-experts routing of the engine's forward passes. A dense model has n_expert 0
// and no tokens.
struct MoeLoad {
  int n_layer = 0;
  int n_expert = 0;
  int n_expert_used = 0;            // experts each token is routed to, in every layer
  int window_s = 0;                 // the span `tokens` covers
  // Rows routed to each expert over the last window_s seconds, layer-major:
  // tokens[layer * n_expert + expert]. Every processed token adds n_expert_used in each layer.
  std::vector<uint64_t> tokens;
  uint64_t routed_tokens_total = 0;      // every routing since start, summed over layers and experts
  uint64_t expert_bytes_read_total = 0;  // expert weight bytes the forward passes read
};

// A consistent picture of the engine, taken under its lock.
struct EngineSnapshot {
  std::string model_name;
  std::string arch;
  int n_ctx = 0;
  int n_parallel = 0;
  int n_groups = 0;
  int n_stages = 0;
  bool joined_groups = false;         // one joined window per step (EngineOptions::join_groups)
  int n_threads = 0;
  int n_running = 0;
  int n_waiting = 0;
  std::vector<SlotInfo> slots;
  KvStats kv;
  std::vector<double> stage_busy_s;   // cumulative busy seconds per stage
  // Cumulative seconds any stage spent computing each group's windows (one per group): the
  // sum of its windows' per-stage compute times, queueing between stages excluded. Summed
  // over groups it equals the sum over stages.
  std::vector<double> group_busy_s;
  double decode_tok_s = 0.0;          // recent generation rate (all slots)
  double prefill_tok_s = 0.0;         // recent prompt reading rate
  uint64_t steps = 0;
  MoeLoad moe;
  // Speculative decoding since start (all zero without --spec); accepted_per_pos[i]: drafts
  // whose token at position i (0-based) was accepted; spec_max_draft_tokens entries.
  int spec_max_draft_tokens = 0;
  SpecCounts spec;
  std::vector<uint64_t> spec_accepted_per_pos;
};

// Everything known about one request when it finishes; times are monotonic_s() values.
struct RequestRecord {
  uint64_t id = 0;
  FinishReason finish = FinishReason::kNone;
  double arrival_s = 0, scheduled_s = 0, first_token_s = 0, finished_s = 0;
  int prompt_tokens = 0;
  int cached_tokens = 0;
  int generated_tokens = 0;
  int max_tokens = 0;
  int n = 1;
  int choice = 0;
  int slot = -1;
  SpecCounts spec;
};

// What one engine step did (one window through all stages).
struct StepRecord {
  int group = 0;                    // the window's group; -1: a joined window (every group)
  int n_rows = 0;
  int n_prefill_rows = 0;
  int n_decode_rows = 0;
  // A joined window's rows per group (index = group); valid only during on_step. Empty for
  // one group's window, whose rows all belong to `group`.
  std::span<const int> group_rows;
  // Speculative decoding in this step: the drafts verified and, per draft position (0-based),
  // how many drafts had that token accepted; valid only during on_step, empty without --spec.
  SpecCounts spec;
  std::span<const uint64_t> spec_accepted_per_pos;
};

// Receives engine events, on the engine's threads. Implementations must be quick and
// thread-safe (metrics take a lock); they must not call back into the engine.
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void on_request_queued(uint64_t id, double arrival_s) {}
  // Called for every generated token; the gap to the previous call is an inter-token latency.
  virtual void on_token(uint64_t id, double time_s, bool first) {}
  virtual void on_request_finished(const RequestRecord& record) {}
  virtual void on_step(const StepRecord& step) {}
};

}  // namespace strata
