#include "tools/forward_bench.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "base/clock.h"
#include "kernels/kernels.h"
#include "model/contiguous_kv.h"

namespace strata {

int32_t forward_bench_token(int pos, int n_vocab) {
  return static_cast<int32_t>((static_cast<uint32_t>(pos) * 2654435761u >> 7) % static_cast<uint32_t>(n_vocab));
}

namespace {

// Everything one measurement needs, sized once for the largest batch.
struct Bench {
  const Model& model;
  ThreadPool& pool;
  std::unique_ptr<ContiguousKv> kv;
  std::unique_ptr<ForwardScratch> scratch;
  std::vector<float> logits;
  std::vector<Row> rows;
};

// Reads the prompt into sequence 0 in chunks; returns seconds.
double prefill(Bench& b, int prompt_tokens, int chunk) {
  const int n_vocab = b.model.hparams().n_vocab;
  const double start_s = monotonic_s();
  for (int pos0 = 0; pos0 < prompt_tokens; pos0 += chunk) {
    const int n = std::min(chunk, prompt_tokens - pos0);
    b.rows.clear();
    for (int i = 0; i < n; ++i) {
      b.rows.push_back(Row{0, pos0 + i, forward_bench_token(pos0 + i, n_vocab), pos0 + i == prompt_tokens - 1});
    }
    b.model.forward(b.rows, *b.kv, b.logits.data(), *b.scratch, b.pool);
  }
  return monotonic_s() - start_s;
}

// n_seqs sequences decoded together for n_steps forward passes from position first_pos (the
// K/V before it is the prompt's); returns seconds. seq0_tokens, if given, gets sequence 0's
// greedy tokens (set outside the timed loop's allocations).
double run_decode(Bench& b, int n_seqs, int first_pos, int n_steps, std::vector<int32_t>* seq0_tokens = nullptr) {
  const int n_vocab = b.model.hparams().n_vocab;
  std::vector<int32_t> next(static_cast<size_t>(n_seqs), forward_bench_token(first_pos, n_vocab));
  if (seq0_tokens != nullptr) seq0_tokens->assign(static_cast<size_t>(n_steps), 0);
  const double start_s = monotonic_s();
  for (int step = 0; step < n_steps; ++step) {
    b.rows.clear();
    for (int s = 0; s < n_seqs; ++s) b.rows.push_back(Row{s, first_pos + step, next[static_cast<size_t>(s)], true});
    b.model.forward(b.rows, *b.kv, b.logits.data(), *b.scratch, b.pool);
    ProfileTimer timer(b.scratch->profile(), StepPart::kSampling);
    for (int s = 0; s < n_seqs; ++s) {
      next[static_cast<size_t>(s)] = kernels::argmax(b.logits.data() + static_cast<size_t>(s) * n_vocab, n_vocab);
    }
    if (seq0_tokens != nullptr) (*seq0_tokens)[static_cast<size_t>(step)] = next[0];
  }
  return monotonic_s() - start_s;
}

// Gives sequences 1..n_seqs-1 the prompt of sequence 0 (and a hybrid model's recurrent state,
// which is sequence 0's after its decode: any state costs the same), so every batched sequence
// decodes at the same depth without reading the prompt again.
void share_prompt(Bench& b, int n_seqs, int prompt_tokens) {
  const KvLayout& layout = b.kv->layout();
  const int n_blocks = (prompt_tokens + layout.block_tokens - 1) / layout.block_tokens;
  for (int s = 1; s < n_seqs; ++s) {
    for (int blk = 0; blk < n_blocks; ++blk) std::memcpy(b.kv->block(s, 0, blk), b.kv->block(0, 0, blk), layout.block_bytes());
    if (layout.state_floats > 0) {
      std::memcpy(b.kv->recurrent_state(s), b.kv->recurrent_state(0), layout.state_floats * sizeof(float));
    }
  }
}

// Runs one phase (fn returns its seconds) with its parts timed when profiling.
template <typename F>
double phase(Bench& b, ForwardBenchResult* r, bool profile, std::string name, int n_steps, F fn) {
  if (!profile) return fn();
  PhaseProfile ph;
  ph.name = std::move(name);
  ph.n_steps = n_steps;
  b.scratch->set_profile(&ph.parts);
  b.pool.set_wait_counter(&ph.parts.pool_wait_ns);
  ph.total_s = fn();
  b.scratch->set_profile(nullptr);
  b.pool.set_wait_counter(nullptr);
  r->profiles.push_back(ph);
  return ph.total_s;
}

}  // namespace

Result<ForwardBenchResult> bench_forward(const Model& model, ThreadPool& pool, const ForwardBenchOptions& o) {
  if (o.prompt_tokens <= 0 || o.prefill_chunk <= 0 || o.decode_steps <= 0) {
    return Status::InvalidArgument("bench: prompt tokens, prefill chunk and decode steps must be positive");
  }
  if (o.decode_depth < -1 || o.decode_depth > o.prompt_tokens) {
    return Status::InvalidArgument("bench: decode depth " + std::to_string(o.decode_depth) +
                                   " is outside 0.." + std::to_string(o.prompt_tokens) + " (the prompt's length)");
  }
  int max_batch = 1;
  for (int n : o.batch_sizes) {
    if (n <= 0) return Status::InvalidArgument("bench: batch sizes must be positive");
    max_batch = std::max(max_batch, n);
  }
  const int max_tokens = o.prompt_tokens + o.decode_steps;
  const int max_rows = std::max(std::min(o.prefill_chunk, o.prompt_tokens), max_batch);
  Bench b{model, pool, nullptr, model.make_scratch(max_rows, max_tokens, pool.size()), {}, {}};
  const KvLayout layout = model.kv_layout(o.kv_type, o.kv_block_tokens);
  STRATA_RETURN_IF_ERROR(model.check_kv_layout(layout));
  STRATA_ASSIGN_OR_RETURN(b.kv, ContiguousKv::Create(layout, max_batch, max_tokens));
  b.logits.resize(static_cast<size_t>(max_batch) * model.hparams().n_vocab);
  b.rows.reserve(static_cast<size_t>(max_rows));

  // Warm-up: the first pass faults the mapped weights in from the page cache.
  run_decode(b, 1, 0, 1);
  ForwardBenchResult r;
  const int n_chunks = (o.prompt_tokens + o.prefill_chunk - 1) / o.prefill_chunk;
  r.prefill_tok_s = o.prompt_tokens / phase(b, &r, o.profile, "prefill", n_chunks, [&] {
    return prefill(b, o.prompt_tokens, o.prefill_chunk);
  });
  r.decode_first_pos = o.decode_depth < 0 ? o.prompt_tokens : o.decode_depth;
  r.decode_step_s = phase(b, &r, o.profile, "decode", o.decode_steps, [&] {
    return run_decode(b, 1, r.decode_first_pos, o.decode_steps, &r.decode_tokens);
  }) / o.decode_steps;
  r.decode_tok_s = 1.0 / r.decode_step_s;
  share_prompt(b, max_batch, o.prompt_tokens);
  for (int n : o.batch_sizes) {
    const double s = phase(b, &r, o.profile, "decode x" + std::to_string(n), o.decode_steps, [&] {
      return run_decode(b, n, r.decode_first_pos, o.decode_steps);
    });
    r.batch_tok_s.push_back(n * o.decode_steps / s);
  }
  return r;
}

}  // namespace strata
