// `strata bench --spec`: what speculative decoding buys on one model.
//
//   - verification cost: one forward pass over 1 + k rows of one sequence (the last token
//     and k drafts) against a single-row decode step, k = each draft length asked for; the
//     weights are read once for all rows, so this is far below 1 + k steps;
//   - plain decode: one request alone, greedy, EOS ignored, its tok/s from first token to
//     last;
//   - replay: the same request with a drafter that proposes the continuation recorded from
//     the plain run (every draft accepted, no drafting cost): the mechanism's ceiling, at
//     each draft length; a benchmark tool, not a serving option;
//   - n-gram: prompt lookup (--spec ngram) on a copy-heavy prompt (a passage repeated).
// Every speculative run is also checked to give the plain run's tokens.
// Runs on the calling thread, one engine at a time; results are ratios to plain decode.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace strata {

struct SpecBenchOptions {
  std::string model_path;
  int n_threads = 0;                 // 0 = all cores
  int prompt_tokens = 128;           // context before the measured rows / the request's prompt
  int max_new = 64;                  // tokens generated per request
  std::vector<int> draft_lengths = {1, 2, 3, 4, 5, 6, 7, 8};
  int verify_repeats = 8;            // forward passes per verification figure
};

struct SpecVerifyCost {
  int draft_tokens = 0;
  double step_s = 0;                 // one pass over 1 + draft_tokens rows
  double ratio_to_decode = 0;        // step_s / one single-row step
};

struct SpecRunResult {
  std::string drafter;               // "replay" or "ngram"
  int max_draft_tokens = 0;
  double tok_s = 0;
  double ratio_to_plain = 0;
  double acceptance = 0;             // accepted / drafted tokens
  double drafted_per_step = 0;       // drafted tokens per verification
  bool same_tokens = false;          // equal to the plain run's tokens
};

struct SpecBenchReport {
  std::string model_path;
  int n_threads = 0;
  double decode_step_s = 0;          // single-row forward pass
  std::vector<SpecVerifyCost> verify;
  double plain_tok_s = 0;            // engine, one request, greedy
  double ngram_plain_tok_s = 0;      // the copy-heavy request without speculation
  std::vector<SpecRunResult> runs;
};

Result<SpecBenchReport> run_spec_bench(const SpecBenchOptions& options);
std::string format_spec_bench(const SpecBenchReport& report);
nlohmann::json spec_bench_json(const SpecBenchReport& report);

}  // namespace strata
