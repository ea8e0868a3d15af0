// `strata calibrate`: which engine settings run this model fastest on this machine, with
// every slot busy. One measurement = one setting (threads, --parallel, --prefill-chunk,
// stages x groups, joined or pipelined) run by measure_engine_setting (engine_bench.h) with
// as many concurrent requests as slots, `runs` times on one engine; the median run is the
// setting's figure and the others its spread (one run on a shared machine can be off by a
// third, enough to choose the wrong setting). The grid is searched one dimension at a time from
// its first values, keeping the best so far, until the time budget runs out.
//
// The search and the choice take the measuring function as a parameter, so tests drive
// them with made-up figures. Pure functions; no state.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "engine/engine.h"
#include "tools/engine_bench.h"

namespace strata {

struct CalibSetting {
  int n_threads = 1;
  int n_parallel = 4;
  int prefill_chunk = 256;
  EngineLayout layout;
  bool operator==(const CalibSetting& o) const {
    return n_threads == o.n_threads && n_parallel == o.n_parallel && prefill_chunk == o.prefill_chunk &&
           layout.n_stages == o.layout.n_stages && layout.n_groups == o.layout.n_groups &&
           layout.join_groups == o.layout.join_groups;
  }
};

// The values to try; the first of each list is where the search starts.
struct CalibGrid {
  std::vector<int> threads;
  std::vector<int> parallel;
  std::vector<int> prefill_chunk;
  std::vector<EngineLayout> layouts;
};

// What every measurement runs: one request per slot, all submitted at once.
struct CalibWorkload {
  std::string model_path;
  int prompt_tokens = 128;
  int max_new = 32;
  int n_ctx = 0;
  std::string kv_type = "f16";
  int runs = 3;                    // per setting; the median run counts
};

struct CalibMeasurement {
  CalibSetting setting;
  bool ok = false;
  std::string error;               // !ok: why the setting could not run (e.g. groups do not divide slots)
  double total_tok_s = 0.0;        // generated tokens of all slots / wall time, prompts included
  double per_request_tok_s = 0.0;
  double ttft_median_s = 0.0;
  double cost_s = 0.0;             // what the measurement took, engine start included
  int n_runs = 0;                  // ok: the figures above are the median run's of n_runs
  double total_tok_s_min = 0.0;    // ok: the spread of total tok/s over the runs
  double total_tok_s_max = 0.0;
};

struct CalibRule {
  // Settings whose requests each generate slower than this are not chosen (unless none is
  // fast enough: then the fastest per request is). 0: only total tok/s counts.
  double min_request_tok_s = 0.0;
};

struct CalibReport {
  std::vector<CalibMeasurement> measured;   // in the order measured
  std::vector<CalibSetting> skipped;        // not measured: the budget ran out
  int best = -1;                            // index into measured; -1: nothing ran
  std::string why;                          // how best was chosen
};

using MeasureFn = std::function<CalibMeasurement(const CalibSetting&)>;

// Index of the best ok measurement under rule (-1 if none ran); *why says how it was chosen.
int choose_best(const std::vector<CalibMeasurement>& measured, const CalibRule& rule, std::string* why);

// Measures the grid's first setting, then each dimension in turn (threads, layouts,
// parallel, prefill chunk) around the best so far, each setting once, while the spent cost
// plus the mean cost so far fits budget_s (the first always runs).
CalibReport run_calibration(const CalibGrid& grid, const MeasureFn& measure, double budget_s, const CalibRule& rule);

// The real measurement: starts an engine with the setting and runs the workload
// workload.runs times.
CalibMeasurement measure_calib_setting(const CalibWorkload& workload, const CalibSetting& setting);
// An ok measurement from runs (at least one): the figures of the median run by total tok/s
// (the lower middle one for an even count), the min and max of total tok/s beside them.
CalibMeasurement summarize_calib_runs(const CalibSetting& setting, const std::vector<ConcurrencyResult>& runs);

EngineOptions calib_engine_options(const CalibWorkload& workload, const CalibSetting& setting);
std::string calib_setting_label(const CalibSetting& setting);
std::string format_calibration(const CalibReport& report, const CalibWorkload& workload);
// The config file `strata serve --config` reads (engine_config_file.h), recording the table.
nlohmann::json calibration_config_json(const CalibReport& report, const CalibWorkload& workload);

}  // namespace strata
