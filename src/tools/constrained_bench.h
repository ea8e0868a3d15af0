// `strata bench --json-schema FILE`: what a structured-output constraint costs on one model.
//
// One request alone through the engine, unconstrained and then constrained by the schema
// (the grammar response_format json_schema compiles to), alternately `runs` times each; the
// best decode tok/s of each (first token to last, so prefill is excluded) and their ratio.
// Both sample at temperature 1 with the same seed, so the sampling work is the same. The
// constrained output is then replayed through a fresh RequestConstraint to time the mask of
// every step as the engine computed it (median, p90, mean), on this model's vocabulary.
// Runs on the calling thread; one engine.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace strata {

struct ConstrainedBenchOptions {
  std::string model_path;
  std::string schema_path;  // a JSON schema file
  int n_threads = 0;        // 0 = all cores
  int prompt_tokens = 128;
  int max_new = 128;        // per request; a constrained one also stops when its output is complete
  int runs = 3;             // of each kind, alternating
};

struct ConstrainedBenchReport {
  std::string model_path;
  std::string schema_path;
  int n_threads = 0;
  int n_vocab = 0;
  double plain_tok_s = 0;        // best of runs
  double constrained_tok_s = 0;  // best of runs
  double ratio = 0;              // constrained / plain
  int constrained_tokens = 0;    // tokens of the last constrained output
  bool completed = false;        // that output is a complete document under the schema
  double mask_median_us = 0;     // its masks, recomputed by a fresh constraint
  double mask_p90_us = 0;
  double mask_mean_us = 0;
};

Result<ConstrainedBenchReport> run_constrained_bench(const ConstrainedBenchOptions& options);
std::string format_constrained_bench(const ConstrainedBenchReport& report);
nlohmann::json constrained_bench_json(const ConstrainedBenchReport& report);

}  // namespace strata
