// `strata batch-test`: proves continuous batching exact on a model. Runs K prompts one at a
// time in a one-slot engine, then all together in an engine with --parallel slots (and
// --stages/--batch-groups), and compares every request's tokens and logits bits:
//   strata batch-test -m model.gguf --parallel 8 --n 8 --stages 2 --batch-groups 2 --stagger 20
// Prints IDENTICAL or DIFFERS at token i per request and the aggregate tok/s of both runs;
// exits 0 only when every request is identical.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/engine.h"
#include "tools/batch_runner.h"
#include "tools/bench_prompts.h"

namespace strata::cli {
namespace {

struct BatchTestFlags {
  std::string model_path;
  int n_parallel = 4;
  int n_requests = 0;  // 0: --parallel
  int n_stages = 1;
  int n_groups = 0;
  bool join_groups = true;
  int max_new = 32;
  int stagger_ms = 0;
  int prompt_tokens = 24;
  int n_threads = 0;
  int prefill_chunk = 256;
  std::string kv_type = "f16";
  float temperature = 0.0f;
  uint64_t seed = 1;
};

struct Phase {
  std::unique_ptr<BatchRunner> runner = std::make_unique<BatchRunner>();
  std::unique_ptr<Engine> engine;
  ~Phase() {
    if (engine) engine->shutdown(5.0);
  }
};

bool start_phase(const BatchTestFlags& f, int parallel, int stages, int groups, Phase* p) {
  EngineOptions o;
  o.model_path = f.model_path;
  o.n_parallel = parallel;
  o.n_stages = stages;
  o.n_groups = groups;
  o.join_groups = f.join_groups;
  o.n_threads = f.n_threads;
  o.kv_type = f.kv_type;
  o.prefill_chunk = f.prefill_chunk;
  o.max_queue = std::max(64, f.n_requests);
  p->runner->attach(&o);
  auto e = Engine::Create(o);
  if (!e.ok()) {
    std::fprintf(stderr, "batch-test: %s\n", e.status().ToString().c_str());
    return false;
  }
  p->engine = std::move(e).value();
  return true;
}

double tok_s(const std::vector<BatchOutcome>& outs) {
  double first = outs.front().submit_s, last = 0;
  int n = 0;
  for (const BatchOutcome& o : outs) {
    first = std::min(first, o.submit_s);
    last = std::max(last, o.finished_s);
    n += o.done.completion_tokens;
  }
  return last > first ? n / (last - first) : 0.0;
}

bool failed(const std::vector<BatchOutcome>& outs) {
  for (const BatchOutcome& o : outs) {
    if (!o.submit_status.ok() || o.done.kind == RequestEvent::Kind::kError) {
      std::fprintf(stderr, "batch-test: request failed: %s\n",
                   o.submit_status.ok() ? o.done.error.c_str() : o.submit_status.ToString().c_str());
      return true;
    }
  }
  return false;
}

int run_batch_test(BatchTestFlags f) {
  if (f.n_requests == 0) f.n_requests = f.n_parallel;
  Phase solo, together;
  if (!start_phase(f, 1, 1, 1, &solo) || !start_phase(f, f.n_parallel, f.n_stages, f.n_groups, &together)) return 2;
  std::vector<BatchJob> jobs;
  for (int i = 0; i < f.n_requests; ++i) {
    BatchJob j;
    j.request.prompt_tokens = bench_prompt(solo.engine->tokenizer(), i, f.prompt_tokens + 3 * i);
    j.request.max_tokens = f.max_new;
    j.request.ignore_eos = true;
    j.request.sampling.temperature = f.temperature;
    j.request.sampling.seed = f.seed + i;
    j.delay_s = i * f.stagger_ms * 1e-3;
    jobs.push_back(j);
  }
  std::vector<BatchOutcome> alone;
  for (BatchJob j : jobs) {
    j.delay_s = 0;
    auto out = solo.runner->run(*solo.engine, {j});
    alone.push_back(out[0]);
  }
  std::vector<BatchOutcome> batched = together.runner->run(*together.engine, jobs);
  if (failed(alone) || failed(batched)) return 1;
  EngineSnapshot snap = together.engine->snapshot();
  std::printf("batch-test %s: %d requests, %d slots in %d groups%s, %d stages, %d new tokens each%s\n",
              f.model_path.c_str(), f.n_requests, snap.n_parallel, snap.n_groups,
              snap.joined_groups ? " (joined windows)" : "", snap.n_stages, f.max_new,
              f.stagger_ms > 0 ? (", staggered " + std::to_string(f.stagger_ms) + " ms").c_str() : "");
  int n_differ = 0;
  for (int i = 0; i < f.n_requests; ++i) {
    int d = first_difference(batched[i], alone[i]);
    if (d < 0) {
      std::printf("request %2d  slot %d  %3zu prompt tokens  IDENTICAL (%zu tokens)\n", i, batched[i].slot,
                  jobs[i].request.prompt_tokens.size(), batched[i].tokens.size());
    } else {
      ++n_differ;
      std::printf("request %2d  slot %d  %3zu prompt tokens  DIFFERS at token %d\n", i, batched[i].slot,
                  jobs[i].request.prompt_tokens.size(), d);
    }
  }
  std::printf("alone:    %.1f tok/s (one request at a time)\n", tok_s(alone));
  std::printf("together: %.1f tok/s aggregate\n", tok_s(batched));
  std::printf("%s\n", n_differ == 0 ? "all identical" : (std::to_string(n_differ) + " differ").c_str());
  return n_differ == 0 ? 0 : 1;
}

}  // namespace

void add_batch_test_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("batch-test", "Check that batched requests give exactly their solo output");
  auto f = std::make_shared<BatchTestFlags>();
  sub->add_option("-m,--model", f->model_path, "GGUF model file")->required();
  sub->add_option("--parallel", f->n_parallel, "slots of the batched engine")->capture_default_str();
  sub->add_option("--n", f->n_requests, "requests (default: --parallel)");
  sub->add_option("--stages", f->n_stages, "pipeline stages")->capture_default_str();
  sub->add_option("--batch-groups", f->n_groups, "batch groups (0: auto)")->capture_default_str();
  sub->add_option("--join-groups", f->join_groups, "on: one joined window per step; off: groups pipelined")
      ->capture_default_str();
  sub->add_option("--max-new", f->max_new, "tokens generated per request")->capture_default_str();
  sub->add_option("--stagger", f->stagger_ms, "ms between submissions")->capture_default_str();
  sub->add_option("--prompt-tokens", f->prompt_tokens, "prompt length of the first request (+3 per request)")
      ->capture_default_str();
  sub->add_option("--prefill-chunk", f->prefill_chunk, "prompt rows per step")->capture_default_str();
  sub->add_option("--threads", f->n_threads, "threads (0: all cores)")->capture_default_str();
  sub->add_option("--kv-type", f->kv_type, "f16, f32 or q8_0")->capture_default_str();
  sub->add_option("--temperature", f->temperature, "0: greedy")->capture_default_str();
  sub->add_option("--seed", f->seed, "sampling seed of the first request (+1 per request)")->capture_default_str();
  sub->callback([f, exit_code] { *exit_code = run_batch_test(*f); });
}

}  // namespace strata::cli
