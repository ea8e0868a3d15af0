// The engine-level benchmark behind `strata bench --concurrency 1,2,4,8`: many requests
// through the scheduler (no HTTP), for several stage/group layouts, plus the time to first
// token of a long prompt cold, from the prefix cache, and from the park store after a
// restart.
//
// Pure driver code over the public Engine API; prints nothing itself (see
// format_engine_bench for the text form and engine_bench_json for the JSON form).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "engine/engine.h"

namespace strata {

// One engine layout to measure: --stages, --batch-groups and --join-groups.
struct EngineLayout {
  int n_stages = 1;
  int n_groups = 1;
  bool join_groups = true;
};

struct EngineBenchOptions {
  std::string model_path;
  std::vector<int> concurrency = {1, 2, 4, 8};
  std::vector<EngineLayout> layouts = {{1, 1, true}, {2, 2, true}, {2, 2, false}};
  int n_parallel = 0;               // 0: the largest concurrency
  int max_new = 64;                 // generated tokens per request (EOS ignored)
  int prompt_tokens = 64;           // per request in the concurrency runs
  int cache_prompt_tokens = 1024;   // the prefix-cache / park measurement (0: skip it)
  int n_threads = 0;
  int n_ctx = 0;
  std::string kv_type = "f16";
  std::string park_dir;             // empty: a fresh temporary directory, removed afterwards
};

struct ConcurrencyResult {
  int n_stages = 1;
  int n_groups = 1;
  bool joined_groups = false;       // the engine ran joined windows (more than one group, joined)
  int concurrency = 1;
  int n_tokens = 0;                 // generated, all requests
  double wall_s = 0.0;              // first submit to last finish
  double total_tok_s = 0.0;
  double per_request_tok_s = 0.0;   // mean over requests, after their first token
  double ttft_median_s = 0.0;
  double ttft_max_s = 0.0;
  std::vector<double> stage_busy;   // fraction of wall_s each stage spent computing
};

struct CacheResult {
  int prompt_tokens = 0;            // of the follow-up
  double ttft_cold_s = 0.0;         // the first prompt, nothing cached
  double ttft_cached_s = 0.0;       // the follow-up turn, same engine (prefix cache)
  int cached_tokens = 0;
  double ttft_parked_s = 0.0;       // the follow-up after a restart (park store)
  int restored_tokens = 0;
  bool identical = false;           // follow-up output equal in both cases
};

struct EngineBenchReport {
  std::string model_path;
  int n_threads = 0;
  int n_parallel = 0;
  int max_new = 0;
  int prompt_tokens = 0;
  std::vector<ConcurrencyResult> runs;
  std::vector<std::string> notes;   // layouts skipped and why
  bool has_cache = false;
  CacheResult cache;
};

Result<EngineBenchReport> run_engine_bench(const EngineBenchOptions& options);
// One setting with every slot busy: starts an engine with options (model_path set), warms
// it up, then submits options.n_parallel requests at once (prompt_tokens each, max_new
// tokens generated, EOS ignored), n_runs times on the same engine (fresh prompts each
// time, so no run reuses another's cached prefix). The same measurement the concurrency
// runs above make; `strata calibrate` calls it once per setting. Returns every run in order.
Result<std::vector<ConcurrencyResult>> measure_engine_setting(const EngineOptions& options, int prompt_tokens,
                                                              int max_new, int n_runs);
std::string format_engine_bench(const EngineBenchReport& report);
nlohmann::json engine_bench_json(const EngineBenchReport& report);

// "1,2,4,8" -> {1, 2, 4, 8}; errors name the bad item.
Result<std::vector<int>> parse_int_list(const std::string& text, const std::string& flag);
// "1x1,2x2,2x2p" -> layouts: STAGESxGROUPS, joined; a trailing p: groups pipelined
// (--join-groups off). Errors name the bad item.
Result<std::vector<EngineLayout>> parse_layouts(const std::string& text, const std::string& flag);

}  // namespace strata
