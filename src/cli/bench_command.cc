// `strata bench`: how fast this machine runs a model, in one run: memory read bandwidth,
// prompt processing, single-sequence decode, batched decode of 2/4/8 sequences, and how close
// decode comes to the bandwidth roofline (every decode step streams all the weights once).
//
// This is the model-level benchmark (forward passes on a contiguous K/V cache). The engine-
// level benchmark (--concurrency: many requests through the scheduler) plugs in at
// run_engine_bench() below.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "base/thread_pool.h"
#include "cli/commands.h"
#include "kernels/bandwidth.h"
#include "kernels/kernels.h"
#include "model/model.h"
#include "tensor/dtype.h"
#include "tools/constrained_bench.h"
#include "tools/engine_bench.h"
#include "tools/forward_bench.h"
#include "tools/moe_bench.h"
#include "tools/spec_bench.h"

namespace strata::cli {

namespace {

struct BenchFlags {
  std::string model_path;
  int n_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  bool json = false;
  int prompt_tokens = 512;
  int prefill_chunk = 128;
  int decode_steps = 32;
  std::string concurrency;  // "1,2,4,8": engine-level benchmark (src/tools/engine_bench.h)
  int max_new = 64;         // engine-level: tokens generated per request
  std::string layouts = "1x1,2x2,2x2p";  // engine-level: STAGESxGROUPS, p = groups pipelined
  int cache_prompt_tokens = 1024;   // engine-level: prefix-cache / park measurement (0: skip)
  bool profile = false;             // --profile: time per step part (model/step_profile.h)
  int context_tokens = 0;           // --context N: prefill of N tokens and decode at depth N only
  int decode_depth = -1;            // --decode-depth N: decode figures from position N (-1: after the prompt)
  std::string kv_type = "f16";      // K/V cache element type of the model-level figures
  std::string spec;                 // --spec 1,2,4: speculative decoding bench (tools/spec_bench.h)
  std::string json_schema;          // --json-schema FILE: constrained vs plain decode (tools/constrained_bench.h)
};

struct BenchReport {
  double load_s = 0;
  double bandwidth_gbs = 0;
  ForwardBenchResult forward;
  double roofline_ratio = 0;
  bool has_moe = false;      // a mixture-of-experts model: the expert reads below
  MoeBenchReport moe;
};

// The engine-level benchmark: requests through the scheduler (src/tools/engine_bench.h).
int run_engine_bench(const BenchFlags& flags) {
  if (flags.model_path.empty()) {
    std::fprintf(stderr, "bench: -m FILE is required\n");
    return 2;
  }
  EngineBenchOptions o;
  o.model_path = flags.model_path;
  o.n_threads = flags.n_threads;
  o.max_new = flags.max_new;
  o.cache_prompt_tokens = flags.cache_prompt_tokens;
  auto concurrency = parse_int_list(flags.concurrency, "--concurrency");
  if (!concurrency.ok()) {
    std::fprintf(stderr, "bench: %s\n", concurrency.status().message().c_str());
    return 2;
  }
  o.concurrency = *concurrency;
  auto layouts = parse_layouts(flags.layouts, "--layouts");
  if (!layouts.ok()) {
    std::fprintf(stderr, "bench: %s\n", layouts.status().message().c_str());
    return 2;
  }
  o.layouts = *layouts;
  auto report = strata::run_engine_bench(o);
  if (!report.ok()) {
    std::fprintf(stderr, "bench: %s\n", report.status().ToString().c_str());
    return 1;
  }
  if (flags.json) {
    std::printf("%s\n", engine_bench_json(*report).dump().c_str());
  } else {
    std::printf("%s", format_engine_bench(*report).c_str());
  }
  return 0;
}

// Expert bytes read per decode step and steps/s with 1 and with each batch size of distinct
// sequences (tools/moe_bench.h). Short prompts: routing, not depth, is what differs.
Status bench_experts(const Model& model, ThreadPool& pool, const ForwardBenchOptions& o, BenchReport* r) {
  std::vector<int> n_seqs = {1};
  n_seqs.insert(n_seqs.end(), o.batch_sizes.begin(), o.batch_sizes.end());
  const int prompt_tokens = std::min(o.prompt_tokens, 32);
  STRATA_ASSIGN_OR_RETURN(std::vector<ExpertReads> reads,
                          measure_expert_reads(model, pool, n_seqs, prompt_tokens, o.decode_steps));
  r->moe = make_moe_bench_report(model.hparams(), model.decode_weight_bytes(), reads, r->bandwidth_gbs,
                                 prompt_tokens);
  r->has_moe = true;
  return Status::Ok();
}

// --context N and --kv-type: the long-context figures (prompt of N tokens, decode at depth
// N, no batched decode) on a K/V cache of the given type. --decode-depth N: the decode figures
// from position N instead of after the prompt (0 matches llama-bench's tg, from an empty
// context; 128 its batched-bench after 128-token prompts).
void add_context_flags(CLI::App* sub, BenchFlags* flags) {
  sub->add_option("--context", flags->context_tokens,
                  "long context: prefill of an N-token prompt and decode at depth N (skips batched decode)");
  sub->add_option("--kv-type", flags->kv_type, "K/V cache type")->capture_default_str()->check(
      CLI::IsMember({"f16", "f32", "q8_0"}));
  sub->add_option("--decode-depth", flags->decode_depth,
                  "decode figures from this context depth, 0 to the prompt's length (default: after the prompt)")
      ->check(CLI::NonNegativeNumber);
}

void apply_context_flags(const BenchFlags& f, ForwardBenchOptions* o) {
  o->kv_type = dtype_from_name(f.kv_type).value_or(DType::kF16);
  o->decode_depth = f.decode_depth;
  if (f.context_tokens <= 0) return;
  o->prompt_tokens = f.context_tokens;
  o->batch_sizes.clear();
}

// --profile: each phase's time per step part, as a table (text) or an object (JSON).
void add_profile_flag(CLI::App* sub, BenchFlags* flags) {
  sub->add_flag("--profile", flags->profile,
                "also print time per step part (matmul by type, attention, norms, sampling, thread-pool waits)");
}

nlohmann::json profile_json(const std::vector<PhaseProfile>& phases) {
  nlohmann::json out = nlohmann::json::array();
  for (const PhaseProfile& p : phases) {
    nlohmann::json parts = nlohmann::json::object();
    for (size_t t = 0; t < p.parts.matmul_ns.size(); ++t) {
      if (p.parts.matmul_calls[t] > 0) parts["matmul " + std::string(dtype_name(static_cast<DType>(t)))] = p.parts.matmul_ns[t] * 1e-9;
    }
    for (size_t i = 0; i < p.parts.part_ns.size(); ++i) parts[step_part_name(static_cast<StepPart>(i))] = p.parts.part_ns[i] * 1e-9;
    out.push_back({{"phase", p.name}, {"steps", p.n_steps}, {"total_s", p.total_s}, {"parts_s", parts},
                   {"pool_wait_s", p.parts.pool_wait_ns * 1e-9}});
  }
  return out;
}

void print_text(const BenchFlags& f, const Model& m, const BenchReport& r, const ForwardBenchOptions& o, int n_threads) {
  const Hparams& hp = m.hparams();
  std::printf("model      %s: %s, %d layers, %d wide, %.2f GB of weights (%.2f GB read per decode step)\n",
              f.model_path.c_str(), hp.arch.c_str(), hp.n_layer, hp.n_embd, m.weight_bytes() / 1e9,
              m.decode_weight_bytes() / 1e9);
  std::printf("machine    %d threads, %s kernels, memory read bandwidth %.1f GB/s\n", n_threads, kernels::active_isa(),
              r.bandwidth_gbs);
  std::printf("load       %.2f s\n", r.load_s);
  std::printf("prefill    %.1f tok/s (%d-token prompt in chunks of %d rows)\n", r.forward.prefill_tok_s,
              o.prompt_tokens, o.prefill_chunk);
  const std::string from = r.forward.decode_first_pos == o.prompt_tokens
                               ? "after the prompt"
                               : "from depth " + std::to_string(r.forward.decode_first_pos);
  std::printf("decode     %.1f tok/s (1 sequence, %d steps %s; K/V %s)\n", r.forward.decode_tok_s, o.decode_steps,
              from.c_str(), f.kv_type.c_str());
  for (size_t i = 0; i < o.batch_sizes.size(); ++i) {
    std::printf("decode x%-2d %.1f tok/s aggregate (%d sequences in one forward pass)\n", o.batch_sizes[i],
                r.forward.batch_tok_s[i], o.batch_sizes[i]);
  }
  std::printf("roofline   %.2f (%.2f GB x %.1f steps/s / %.1f GB/s)\n", r.roofline_ratio, m.decode_weight_bytes() / 1e9,
              r.forward.decode_tok_s, r.bandwidth_gbs);
  if (r.has_moe) std::printf("%s", format_moe_bench(r.moe).c_str());
  for (const PhaseProfile& p : r.forward.profiles) std::printf("%s", format_phase_profile(p).c_str());
}

void print_json(const BenchFlags& f, const Model& m, const BenchReport& r, const ForwardBenchOptions& o, int n_threads) {
  nlohmann::json batch = nlohmann::json::object();
  for (size_t i = 0; i < o.batch_sizes.size(); ++i) batch[std::to_string(o.batch_sizes[i])] = r.forward.batch_tok_s[i];
  nlohmann::json j = {
      {"bandwidth_gbs", r.bandwidth_gbs},
      {"prefill_tok_s", r.forward.prefill_tok_s},
      {"decode_tok_s", r.forward.decode_tok_s},
      {"decode_batch_tok_s", batch},
      {"roofline_ratio", r.roofline_ratio},
      {"model", f.model_path},
      {"threads", n_threads},
      {"isa", kernels::active_isa()},
      {"load_s", r.load_s},
      {"prompt_tokens", o.prompt_tokens},
      {"prefill_chunk", o.prefill_chunk},
      {"decode_steps", o.decode_steps},
      {"decode_depth", r.forward.decode_first_pos},
      {"kv_type", f.kv_type},
      {"weight_bytes", m.weight_bytes()},
      {"decode_weight_bytes", m.decode_weight_bytes()},
  };
  if (r.has_moe) j["moe"] = moe_bench_json(r.moe);
  if (!r.forward.profiles.empty()) j["profile"] = profile_json(r.forward.profiles);
  std::printf("%s\n", j.dump().c_str());
}

// A side bench's report as JSON or text, or its error: the exit code of `strata bench`.
template <class Report>
int print_side_bench(const Result<Report>& r, bool json, nlohmann::json (*to_json)(const Report&),
                     std::string (*to_text)(const Report&)) {
  if (!r.ok()) {
    std::fprintf(stderr, "bench: %s\n", r.status().message().c_str());
    return 1;
  }
  std::printf("%s", json ? (to_json(*r).dump() + "\n").c_str() : to_text(*r).c_str());
  return 0;
}

void add_spec_flag(CLI::App* sub, BenchFlags* flags) {
  sub->add_option("--spec", flags->spec,
                  "speculative decoding: verification cost of 1+k rows, replay and n-gram drafting against "
                  "plain decode, for these draft lengths k, e.g. 1,2,3,4,5,6,7,8 (uses --prompt-tokens, --max-new)");
}

int run_spec_bench_command(const BenchFlags& f) {
  SpecBenchOptions o;
  o.model_path = f.model_path;
  o.n_threads = f.n_threads;
  o.prompt_tokens = f.prompt_tokens;
  o.max_new = f.max_new;
  Result<std::vector<int>> ks = parse_int_list(f.spec, "--spec");
  if (!ks.ok()) {
    std::fprintf(stderr, "bench: %s\n", ks.status().message().c_str());
    return 2;
  }
  o.draft_lengths = *ks;
  return print_side_bench(run_spec_bench(o), f.json, spec_bench_json, format_spec_bench);
}

// --json-schema FILE: decode constrained by a schema against plain decode, and the mask time.
void add_json_schema_flag(CLI::App* sub, BenchFlags* flags) {
  sub->add_option("--json-schema", flags->json_schema,
                  "structured outputs: decode tok/s constrained by this JSON schema file against plain decode, "
                  "and the token-mask time per step (uses --prompt-tokens, --max-new)");
}

int run_constrained_bench_command(const BenchFlags& f) {
  ConstrainedBenchOptions o;
  o.model_path = f.model_path;
  o.schema_path = f.json_schema;
  o.n_threads = f.n_threads;
  o.prompt_tokens = f.prompt_tokens;
  o.max_new = f.max_new;
  return print_side_bench(run_constrained_bench(o), f.json, constrained_bench_json, format_constrained_bench);
}

int run_bench(const BenchFlags& f) {
  if (!f.spec.empty()) return run_spec_bench_command(f);
  if (!f.json_schema.empty()) return run_constrained_bench_command(f);
  if (!f.concurrency.empty()) return run_engine_bench(f);
  if (f.model_path.empty()) {
    std::fprintf(stderr, "bench: -m FILE is required\n");
    return 2;
  }
  if (f.n_threads < 1 || f.prompt_tokens <= 0 || f.prefill_chunk <= 0 || f.decode_steps <= 0) {
    std::fprintf(stderr, "bench: --threads must be >= 1 and --prompt-tokens, --chunk, --decode-steps positive\n");
    return 2;
  }
  if (f.context_tokens < 0) {
    std::fprintf(stderr, "bench: --context %d must be a positive token count\n", f.context_tokens);
    return 2;
  }
  const int n_threads = f.n_threads;
  BenchReport r;
  const double load_start_s = monotonic_s();
  auto model = Model::Load(f.model_path);
  if (!model.ok()) {
    std::fprintf(stderr, "bench: %s\n", model.status().ToString().c_str());
    return 2;
  }
  r.load_s = monotonic_s() - load_start_s;
  ThreadPool pool(n_threads);
  r.bandwidth_gbs = kernels::measure_read_bandwidth_gbs(pool);

  ForwardBenchOptions o;
  o.prompt_tokens = f.prompt_tokens;
  o.prefill_chunk = f.prefill_chunk;
  o.decode_steps = f.decode_steps;
  o.profile = f.profile;
  apply_context_flags(f, &o);
  auto forward = bench_forward(**model, pool, o);
  if (!forward.ok()) {
    std::fprintf(stderr, "bench: %s\n", forward.status().ToString().c_str());
    return 2;
  }
  r.forward = *forward;
  if (r.bandwidth_gbs > 0) {
    r.roofline_ratio = static_cast<double>((*model)->decode_weight_bytes()) * r.forward.decode_tok_s / (r.bandwidth_gbs * 1e9);
  }
  if ((*model)->hparams().is_moe()) {
    Status st = bench_experts(**model, pool, o, &r);
    if (!st.ok()) {
      std::fprintf(stderr, "bench: %s\n", st.ToString().c_str());
      return 2;
    }
  }
  if (f.json) {
    print_json(f, **model, r, o, n_threads);
  } else {
    print_text(f, **model, r, o, n_threads);
  }
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("bench", "Measure bandwidth, prompt and decode speed of a model on this machine");
  auto flags = std::make_shared<BenchFlags>();
  sub->add_option("-m,--model", flags->model_path, "GGUF model file");
  sub->add_option("--threads", flags->n_threads, "threads")->capture_default_str();
  sub->add_flag("--json", flags->json, "print one JSON object");
  sub->add_option("--prompt-tokens", flags->prompt_tokens, "prompt length for prefill")->capture_default_str();
  sub->add_option("--chunk", flags->prefill_chunk, "prompt rows per forward pass")->capture_default_str();
  sub->add_option("--decode-steps", flags->decode_steps, "forward passes per decode figure")->capture_default_str();
  sub->add_option("--concurrency", flags->concurrency,
                  "engine-level benchmark: concurrent requests per run, e.g. 1,2,4,8");
  sub->add_option("--max-new", flags->max_new, "engine-level: tokens generated per request")->capture_default_str();
  sub->add_option("--layouts", flags->layouts, "engine-level: STAGESxGROUPS list; a trailing p pipelines the groups (--join-groups off)")->capture_default_str();
  sub->add_option("--cache-prompt-tokens", flags->cache_prompt_tokens,
                  "engine-level: prompt length of the prefix-cache/park measurement (0: skip)")
      ->capture_default_str();
  add_context_flags(sub, flags.get());
  add_profile_flag(sub, flags.get());
  add_spec_flag(sub, flags.get());
  add_json_schema_flag(sub, flags.get());
  sub->callback([flags, exit_code] { *exit_code = run_bench(*flags); });
}

}  // namespace strata::cli
