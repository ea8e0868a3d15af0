// Model-level throughput measurement for `strata bench`: prompt processing, single-sequence
// decode and batched decode of several sequences in one forward pass, on a contiguous K/V
// cache (no engine, no scheduler). Token ids are fixed pseudo-random ones; decode feeds
// back the greedy token so the work matches real generation.
//
// Stateless functions; the caller's ThreadPool does the work.
#pragma once

#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "model/model.h"
#include "model/step_profile.h"

namespace strata {

struct ForwardBenchOptions {
  int prompt_tokens = 512;
  int prefill_chunk = 128;           // rows per forward pass while reading the prompt
  int decode_steps = 32;             // forward passes per decode measurement
  // Position the decode figures (single and batched) start from, in [0, prompt_tokens]; -1:
  // right after the prompt. 0 is an empty context, as llama-bench's tg figures are measured;
  // the K/V before it is the prompt's.
  int decode_depth = -1;
  std::vector<int> batch_sizes = {2, 4, 8};
  DType kv_type = DType::kF16;
  int kv_block_tokens = 16;
  bool profile = false;              // also time each step's parts (model/step_profile.h)
};

struct ForwardBenchResult {
  double prefill_tok_s = 0;
  double decode_tok_s = 0;              // one sequence, from decode_first_pos
  int decode_first_pos = 0;             // position of every decode figure's first step
  std::vector<int32_t> decode_tokens;   // the single-sequence decode's greedy tokens, in order
  std::vector<double> batch_tok_s;      // aggregate, per batch_sizes entry
  double decode_step_s = 0;             // seconds per single-sequence step
  // With options.profile: prefill, decode and each batch size, in that order.
  std::vector<PhaseProfile> profiles;
};

// The pseudo-random token the prompt holds at position pos, and the first token each decode
// figure feeds at its first position.
int32_t forward_bench_token(int pos, int n_vocab);

// Fails with kInvalidArgument for non-positive sizes, a decode depth outside [-1, prompt_tokens]
// or a K/V type the model cannot use.
Result<ForwardBenchResult> bench_forward(const Model& model, ThreadPool& pool, const ForwardBenchOptions& options);

}  // namespace strata
