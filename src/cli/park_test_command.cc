// `strata park-test`: proves parked K/V restores exactly. In one engine with --park-dir:
//   A         a long conversation turn; then park (A's blocks move to the store: 1st park)
//   B         another conversation; then park
//   A2        A's follow-up (A + A's reply + a new turn): A's blocks are restored
//   park      A parked the second time: only A2's new blocks are written
//   B2        B's follow-up, restored too
//   restart   A2 again in a new engine on the same directory
// A2 is compared (tokens and logits bits) with A2 computed cold in an engine without
// parking. Exits 0 only when A2 is identical (before and after the restart), its blocks were
// restored, and the second park of A wrote fewer bytes than the first.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/engine.h"
#include "tools/batch_runner.h"
#include "tools/bench_prompts.h"

namespace strata::cli {
namespace {

struct ParkTestFlags {
  std::string model_path;
  std::string park_dir;
  int prompt_tokens = 400;
  int max_new = 16;
  int n_threads = 0;
  std::string kv_type = "f16";
};

struct Run {
  std::unique_ptr<BatchRunner> runner = std::make_unique<BatchRunner>();
  std::unique_ptr<Engine> engine;
  ~Run() {
    if (engine) engine->shutdown(5.0);
  }
  BatchOutcome one(const GenerateRequest& r) { return runner->run(*engine, {{r}})[0]; }
  KvStats kv() const { return engine->snapshot().kv; }
};

std::unique_ptr<Run> start_run(const ParkTestFlags& f, const std::string& park_dir) {
  EngineOptions o;
  o.model_path = f.model_path;
  o.n_parallel = 1;
  o.n_threads = f.n_threads;
  o.kv_type = f.kv_type;
  o.park_dir = park_dir;
  auto run = std::make_unique<Run>();
  run->runner->attach(&o);
  auto e = Engine::Create(o);
  if (!e.ok()) {
    std::fprintf(stderr, "park-test: %s\n", e.status().ToString().c_str());
    return nullptr;
  }
  run->engine = std::move(e).value();
  return run;
}

GenerateRequest follow_up(const GenerateRequest& first, const BatchOutcome& reply, const std::vector<int32_t>& turn) {
  GenerateRequest r = first;
  r.prompt_tokens.insert(r.prompt_tokens.end(), reply.tokens.begin(), reply.tokens.end());
  r.prompt_tokens.insert(r.prompt_tokens.end(), turn.begin(), turn.end());
  return r;
}

bool ok(const BatchOutcome& o) {
  if (o.submit_status.ok() && o.done.kind == RequestEvent::Kind::kDone) return true;
  std::fprintf(stderr, "park-test: request failed: %s\n",
               o.submit_status.ok() ? o.done.error.c_str() : o.submit_status.ToString().c_str());
  return false;
}

struct Figures {
  uint64_t first_park_bytes = 0, second_park_bytes = 0;
  int restored_tokens = 0, restored_after_restart = 0;
  uint64_t bytes_reused = 0;
  double ttft_cold_s = 0, ttft_restored_s = 0, ttft_restart_s = 0;
  bool identical = false, identical_after_restart = false, b_identical = false;
};

void print(const ParkTestFlags& f, const GenerateRequest& a, const GenerateRequest& b, const GenerateRequest& a2,
           const Figures& r, const std::string& dir) {
  std::printf("park-test %s (park dir %s)\n", f.model_path.c_str(), dir.c_str());
  std::printf("prompts      A %zu tokens, B %zu tokens, A's follow-up %zu tokens\n", a.prompt_tokens.size(),
              b.prompt_tokens.size(), a2.prompt_tokens.size());
  std::printf("first park   %llu bytes (A)\n", static_cast<unsigned long long>(r.first_park_bytes));
  std::printf("second park  %llu bytes (A's follow-up: new blocks only)\n",
              static_cast<unsigned long long>(r.second_park_bytes));
  std::printf("restored     %d tokens (%llu K/V bytes reused); after restart %d tokens\n", r.restored_tokens,
              static_cast<unsigned long long>(r.bytes_reused), r.restored_after_restart);
  std::printf("TTFT         %.1f ms cold, %.1f ms restored, %.1f ms restored after restart\n", r.ttft_cold_s * 1e3,
              r.ttft_restored_s * 1e3, r.ttft_restart_s * 1e3);
  std::printf("follow-up    %s to the run without parking; after restart %s; B's follow-up %s\n",
              r.identical ? "IDENTICAL" : "DIFFERS", r.identical_after_restart ? "IDENTICAL" : "DIFFERS",
              r.b_identical ? "IDENTICAL" : "DIFFERS");
}

// The outcomes of the whole sequence (see the top of the file).
struct Outcomes {
  GenerateRequest a, b, a2, b2;
  BatchOutcome a_out, b_out, a2_out, b2_out, a2_restart, a2_cold, b2_cold;
  KvStats before_a2, after_a2;
  uint64_t first_park_bytes = 0, second_park_bytes = 0;
};

bool converse(const ParkTestFlags& f, const std::string& dir, Run& reference, Outcomes* o) {
  auto parked = start_run(f, dir);
  if (!parked) return false;
  if (parked->kv().parked_blocks > 0) {
    std::fprintf(stderr, "park-test: %s already holds %llu parked blocks; give an empty --park-dir\n", dir.c_str(),
                 static_cast<unsigned long long>(parked->kv().parked_blocks));
    return false;
  }
  const Tokenizer& tok = reference.engine->tokenizer();  // reference lives to the end
  o->a.prompt_tokens = bench_prompt(tok, 1, f.prompt_tokens);
  o->b.prompt_tokens = bench_prompt(tok, 2, f.prompt_tokens + f.prompt_tokens / 2);
  o->a.max_tokens = o->b.max_tokens = f.max_new;
  o->a.ignore_eos = o->b.ignore_eos = true;
  o->a_out = parked->one(o->a);
  parked->engine->park_idle();
  o->first_park_bytes = parked->kv().park_bytes_written;
  o->b_out = parked->one(o->b);
  parked->engine->park_idle();
  o->a2 = follow_up(o->a, o->a_out, bench_turn(tok, 0));
  o->b2 = follow_up(o->b, o->b_out, bench_turn(tok, 1));
  o->before_a2 = parked->kv();
  o->a2_out = parked->one(o->a2);
  o->after_a2 = parked->kv();
  parked->engine->park_idle();
  o->second_park_bytes = parked->kv().park_bytes_written - o->after_a2.park_bytes_written;
  o->b2_out = parked->one(o->b2);
  parked.reset();  // restart: the next engine rebuilds its index from the directory
  auto restarted = start_run(f, dir);
  if (!restarted) return false;
  o->a2_restart = restarted->one(o->a2);
  GenerateRequest warm_up;
  warm_up.prompt_tokens = bench_prompt(tok, 3, 8);
  warm_up.max_tokens = 2;
  reference.one(warm_up);  // the cold figure should not include first-touch page faults
  o->a2_cold = reference.one(o->a2);
  auto fresh = start_run(f, "");
  if (!fresh) return false;
  o->b2_cold = fresh->one(o->b2);
  for (const BatchOutcome* r : {&o->a_out, &o->b_out, &o->a2_out, &o->b2_out, &o->a2_restart, &o->a2_cold, &o->b2_cold}) {
    if (!ok(*r)) return false;
  }
  return true;
}

int run_park_test(const ParkTestFlags& f) {
  const bool temporary = f.park_dir.empty();
  std::string dir = temporary ? (std::filesystem::temp_directory_path() / ("strata-park-test-" + std::to_string(::getpid()))).string()
                              : f.park_dir;
  auto reference = start_run(f, "");
  Outcomes o;
  const bool ran = reference && converse(f, dir, *reference, &o);
  if (temporary) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  if (!ran) return 2;
  Figures r;
  r.first_park_bytes = o.first_park_bytes;
  r.second_park_bytes = o.second_park_bytes;
  r.restored_tokens = o.a2_out.done.cached_tokens;
  r.restored_after_restart = o.a2_restart.done.cached_tokens;
  r.bytes_reused = o.after_a2.bytes_reused - o.before_a2.bytes_reused;
  r.ttft_cold_s = o.a2_cold.ttft_s();
  r.ttft_restored_s = o.a2_out.ttft_s();
  r.ttft_restart_s = o.a2_restart.ttft_s();
  r.identical = first_difference(o.a2_out, o.a2_cold) < 0;
  r.identical_after_restart = first_difference(o.a2_restart, o.a2_cold) < 0;
  r.b_identical = first_difference(o.b2_out, o.b2_cold) < 0;
  const bool restored =
      o.after_a2.restores > o.before_a2.restores && r.restored_tokens > 0 && r.restored_after_restart > 0;
  print(f, o.a, o.b, o.a2, r, dir);
  const bool pass = r.identical && r.identical_after_restart && r.b_identical && restored &&
                    r.second_park_bytes < r.first_park_bytes;
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace

void add_park_test_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("park-test", "Check that parked K/V is restored exactly and written once");
  auto f = std::make_shared<ParkTestFlags>();
  sub->add_option("-m,--model", f->model_path, "GGUF model file")->required();
  sub->add_option("--park-dir", f->park_dir, "park store directory (default: a temporary one, removed after)");
  sub->add_option("--prompt-tokens", f->prompt_tokens, "length of conversation A's first prompt")->capture_default_str();
  sub->add_option("--max-new", f->max_new, "tokens generated per turn")->capture_default_str();
  sub->add_option("--threads", f->n_threads, "threads (0: all cores)")->capture_default_str();
  sub->add_option("--kv-type", f->kv_type, "f16, f32 or q8_0")->capture_default_str();
  sub->callback([f, exit_code] { *exit_code = run_park_test(*f); });
}

}  // namespace strata::cli
