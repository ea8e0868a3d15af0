#include "tools/moe_bench.h"

#include <algorithm>
#include <cstdio>

#include "base/clock.h"
#include "kernels/kernels.h"
#include "model/contiguous_kv.h"

namespace strata {
namespace {

// Fixed pseudo-random prompt ids, different for every sequence.
int32_t moe_prompt_token(int seq, int pos, int n_vocab) {
  const uint32_t h = (static_cast<uint32_t>(seq) * 7919u + static_cast<uint32_t>(pos) + 1u) * 2654435761u;
  return static_cast<int32_t>((h >> 7) % static_cast<uint32_t>(n_vocab));
}

struct Decoder {
  const Model& model;
  ThreadPool& pool;
  ContiguousKv& kv;
  ForwardScratch& scratch;
  std::vector<float> logits;
  std::vector<Row> rows;
};

// Reads each sequence's prompt; returns the greedy token after each.
std::vector<int32_t> read_prompts(Decoder& d, int n_seqs, int prompt_tokens) {
  const int n_vocab = d.model.hparams().n_vocab;
  std::vector<int32_t> next(static_cast<size_t>(n_seqs));
  for (int s = 0; s < n_seqs; ++s) {
    d.rows.clear();
    for (int p = 0; p < prompt_tokens; ++p) {
      d.rows.push_back(Row{s, p, moe_prompt_token(s, p, n_vocab), p == prompt_tokens - 1});
    }
    d.model.forward(d.rows, d.kv, d.logits.data(), d.scratch, d.pool);
    next[static_cast<size_t>(s)] = kernels::argmax(d.logits.data(), n_vocab);
  }
  return next;
}

// n_steps decode passes of sequences [0, n_seqs) from first_pos: the expert bytes read and
// the seconds taken.
ExpertReads decode_expert_reads(Decoder& d, std::vector<int32_t> next, int n_seqs, int first_pos, int n_steps) {
  const int n_vocab = d.model.hparams().n_vocab;
  d.scratch.expert_bytes_read() = 0;
  const double start_s = monotonic_s();
  for (int step = 0; step < n_steps; ++step) {
    d.rows.clear();
    for (int s = 0; s < n_seqs; ++s) d.rows.push_back(Row{s, first_pos + step, next[static_cast<size_t>(s)], true});
    d.model.forward(d.rows, d.kv, d.logits.data(), d.scratch, d.pool);
    for (int s = 0; s < n_seqs; ++s) {
      next[static_cast<size_t>(s)] = kernels::argmax(d.logits.data() + static_cast<size_t>(s) * n_vocab, n_vocab);
    }
  }
  return ExpertReads{n_seqs, n_steps, d.scratch.expert_bytes_read(), monotonic_s() - start_s};
}

}  // namespace

Result<std::vector<ExpertReads>> measure_expert_reads(const Model& model, ThreadPool& pool,
                                                      std::span<const int> n_seqs, int prompt_tokens, int n_steps) {
  if (!model.hparams().is_moe()) return Status::InvalidArgument("bench: the model has no experts");
  if (prompt_tokens <= 0 || n_steps <= 0) {
    return Status::InvalidArgument("bench: expert reads need a positive prompt length and step count");
  }
  int max_seqs = 1;
  for (int n : n_seqs) {
    if (n <= 0) return Status::InvalidArgument("bench: batch sizes must be positive");
    max_seqs = std::max(max_seqs, n);
  }
  const int max_tokens = prompt_tokens + n_steps;
  const KvLayout layout = model.kv_layout(DType::kF16, 16);
  STRATA_RETURN_IF_ERROR(model.check_kv_layout(layout));
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<ContiguousKv> kv, ContiguousKv::Create(layout, max_seqs, max_tokens));
  std::unique_ptr<ForwardScratch> scratch =
      model.make_scratch(std::max(max_seqs, prompt_tokens), max_tokens, static_cast<int>(pool.size()));
  Decoder d{model, pool, *kv, *scratch, {}, {}};
  d.logits.resize(static_cast<size_t>(max_seqs) * model.hparams().n_vocab);
  d.rows.reserve(static_cast<size_t>(std::max(max_seqs, prompt_tokens)));
  // Every run starts again after the prompts: its passes overwrite the same positions.
  const std::vector<int32_t> first = read_prompts(d, max_seqs, prompt_tokens);
  // Warm-up, untimed: the widest run touches every expert the timed runs will read (a
  // sequence routes the same whatever runs beside it), so no run pays first-touch page faults.
  decode_expert_reads(d, first, max_seqs, prompt_tokens, n_steps);
  std::vector<ExpertReads> out;
  for (int n : n_seqs) out.push_back(decode_expert_reads(d, first, n, prompt_tokens, n_steps));
  return out;
}

MoeBenchReport make_moe_bench_report(const Hparams& hp, uint64_t decode_weight_bytes,
                                     std::span<const ExpertReads> reads, double bandwidth_gbs, int prompt_tokens) {
  MoeBenchReport r;
  r.n_expert = hp.n_expert;
  r.n_expert_used = hp.n_expert_used;
  r.prompt_tokens = prompt_tokens;
  if (reads.empty() || reads[0].n_seqs != 1) return r;
  r.n_steps = reads[0].n_steps;
  // decode_weight_bytes holds n_expert_used experts per layer: what one sequence reads.
  const double dense = static_cast<double>(decode_weight_bytes) - reads[0].bytes_per_step();
  for (size_t i = 0; i < reads.size(); ++i) {
    MoeBenchRow row;
    row.n_seqs = reads[i].n_seqs;
    row.expert_bytes_per_step = reads[i].bytes_per_step();
    row.active_bytes_per_step = dense + row.expert_bytes_per_step;
    row.steps_per_s = reads[i].steps_per_s();
    if (bandwidth_gbs > 0) row.roofline_ratio = row.active_bytes_per_step * row.steps_per_s / (bandwidth_gbs * 1e9);
    r.rows.push_back(row);
  }
  return r;
}

std::string format_moe_bench(const MoeBenchReport& r) {
  std::string out;
  char line[256];
  for (const MoeBenchRow& row : r.rows) {
    std::snprintf(line, sizeof line,
                  "experts x%-2d %.3f GB of experts read per step (%d of %d used per token), active %.3f GB x %.1f "
                  "steps/s: roofline %.2f (distinct sequences)\n",
                  row.n_seqs, row.expert_bytes_per_step / 1e9, r.n_expert_used, r.n_expert,
                  row.active_bytes_per_step / 1e9, row.steps_per_s, row.roofline_ratio);
    out += line;
  }
  return out;
}

nlohmann::json moe_bench_json(const MoeBenchReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const MoeBenchRow& row : r.rows) {
    rows.push_back({{"seqs", row.n_seqs},
                    {"expert_bytes_per_step", row.expert_bytes_per_step},
                    {"active_bytes_per_step", row.active_bytes_per_step},
                    {"steps_per_s", row.steps_per_s},
                    {"roofline_ratio", row.roofline_ratio}});
  }
  return {{"n_expert", r.n_expert}, {"n_expert_used", r.n_expert_used}, {"prompt_tokens", r.prompt_tokens},
          {"steps", r.n_steps}, {"decode", std::move(rows)}};
}

}  // namespace strata
