// The mixture-of-experts part of `strata bench`: how many expert weight bytes one decode
// step actually reads with 1 and with N sequences decoding together, and the bandwidth
// roofline on those bytes.
//
// A layer reads each expert at least one of its rows is routed to, once per pass; one
// sequence reads n_expert_used experts per layer, N distinct sequences read the union of
// their choices. So the bytes a step streams are the dense weights plus the experts read:
//   active bytes(N) = Model::decode_weight_bytes() (dense + n_expert_used experts per layer)
//                     - expert bytes(1) + expert bytes(N)
// and the roofline ratio is active bytes x steps/s / measured read bandwidth.
//
// measure_expert_reads runs and times its own decode passes, each sequence after a prompt of
// its own so that the sequences route like different conversations (forward_bench's batched
// sequences share one prompt and so pick the same experts; its scratch is its own, too).
// Bytes and steps/s thus come from the same passes, timed after an untimed warm-up run. Stateless; the pool does the work.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "base/thread_pool.h"
#include "model/model.h"

namespace strata {

struct ExpertReads {
  int n_seqs = 1;
  int n_steps = 0;
  uint64_t expert_bytes = 0;  // read over all n_steps decode passes
  double seconds = 0;         // the n_steps passes took
  double bytes_per_step() const { return n_steps > 0 ? static_cast<double>(expert_bytes) / n_steps : 0.0; }
  double steps_per_s() const { return seconds > 0 ? n_steps / seconds : 0.0; }
};

// One entry per n_seqs (each >= 1), in order: n_steps greedy decode passes of n_seqs
// sequences, each after its own prompt_tokens-token prompt, timed. kInvalidArgument for a dense
// model or non-positive sizes.
Result<std::vector<ExpertReads>> measure_expert_reads(const Model& model, ThreadPool& pool,
                                                      std::span<const int> n_seqs, int prompt_tokens, int n_steps);

struct MoeBenchRow {
  int n_seqs = 1;
  double expert_bytes_per_step = 0;
  double active_bytes_per_step = 0;  // dense weights + experts read
  double steps_per_s = 0;            // decode steps per second of the measured passes
  double roofline_ratio = 0;         // active bytes x steps/s / bandwidth; 0 without bandwidth
};

struct MoeBenchReport {
  int n_expert = 0;
  int n_expert_used = 0;
  int prompt_tokens = 0;
  int n_steps = 0;
  std::vector<MoeBenchRow> rows;
};

// reads must start with n_seqs 1 (the reference for the dense bytes); otherwise no rows.
MoeBenchReport make_moe_bench_report(const Hparams& hp, uint64_t decode_weight_bytes,
                                     std::span<const ExpertReads> reads, double bandwidth_gbs, int prompt_tokens);
std::string format_moe_bench(const MoeBenchReport& report);
nlohmann::json moe_bench_json(const MoeBenchReport& report);

}  // namespace strata
