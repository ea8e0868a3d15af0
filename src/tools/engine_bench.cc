#include "tools/engine_bench.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "engine/engine.h"
#include "tokenizer/tokenizer.h"
#include "tools/batch_runner.h"
#include "tools/bench_prompts.h"

namespace strata {

namespace {

struct EngineAndRunner {
  std::unique_ptr<BatchRunner> runner = std::make_unique<BatchRunner>();
  std::unique_ptr<Engine> engine;
  ~EngineAndRunner() {
    if (engine) engine->shutdown(5.0);
  }
};

Result<std::unique_ptr<EngineAndRunner>> start(EngineOptions o) {
  auto e = std::make_unique<EngineAndRunner>();
  e->runner->attach(&o);
  STRATA_ASSIGN_OR_RETURN(e->engine, Engine::Create(o));
  return e;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

ConcurrencyResult summarize(const std::vector<BatchOutcome>& outs) {
  ConcurrencyResult r;
  r.concurrency = static_cast<int>(outs.size());
  double first_submit = outs.front().submit_s, last_finish = 0.0, per_request = 0.0;
  std::vector<double> ttft;
  for (const BatchOutcome& o : outs) {
    first_submit = std::min(first_submit, o.submit_s);
    last_finish = std::max(last_finish, o.finished_s);
    r.n_tokens += o.done.completion_tokens;
    ttft.push_back(o.ttft_s());
    double gen_s = o.finished_s - o.first_token_s;
    if (o.done.completion_tokens > 1 && gen_s > 0) per_request += (o.done.completion_tokens - 1) / gen_s;
  }
  r.wall_s = last_finish - first_submit;
  r.total_tok_s = r.wall_s > 0 ? r.n_tokens / r.wall_s : 0.0;
  r.per_request_tok_s = per_request / static_cast<double>(outs.size());
  r.ttft_median_s = median(ttft);
  r.ttft_max_s = *std::max_element(ttft.begin(), ttft.end());
  return r;
}

Status check_outcomes(const std::vector<BatchOutcome>& outs) {
  for (const BatchOutcome& o : outs) {
    if (!o.submit_status.ok()) return o.submit_status;
    if (o.done.kind == RequestEvent::Kind::kError) return Status::Internal("request failed: " + o.done.error);
  }
  return Status::Ok();
}

GenerateRequest request(std::vector<int32_t> prompt, int max_new) {
  GenerateRequest r;
  r.prompt_tokens = std::move(prompt);
  r.max_tokens = max_new;
  r.ignore_eos = true;
  return r;
}

// Starts an engine with the options and warms it up: faults the weights in and starts every
// stage's threads.
Result<std::unique_ptr<EngineAndRunner>> start_warm(const EngineOptions& options) {
  STRATA_ASSIGN_OR_RETURN(auto e, start(options));
  const Tokenizer& tok = e->engine->tokenizer();
  STRATA_RETURN_IF_ERROR(check_outcomes(e->runner->run(*e->engine, {{request(bench_prompt(tok, 999, 16), 4)}})));
  return e;
}

// c requests submitted at once, prompts numbered from *index on: the one way every engine
// figure here is measured.
Result<ConcurrencyResult> run_concurrent(EngineAndRunner& e, int c, int prompt_tokens, int max_new, int* index) {
  const Tokenizer& tok = e.engine->tokenizer();
  std::vector<BatchJob> jobs;
  for (int i = 0; i < c; ++i) jobs.push_back({request(bench_prompt(tok, (*index)++, prompt_tokens), max_new)});
  const std::vector<double> busy_before = e.engine->snapshot().stage_busy_s;
  auto outs = e.runner->run(*e.engine, jobs);
  STRATA_RETURN_IF_ERROR(check_outcomes(outs));
  ConcurrencyResult r = summarize(outs);
  const EngineSnapshot after = e.engine->snapshot();
  for (size_t s = 0; s < after.stage_busy_s.size() && s < busy_before.size(); ++s) {
    r.stage_busy.push_back(r.wall_s > 0 ? (after.stage_busy_s[s] - busy_before[s]) / r.wall_s : 0.0);
  }
  r.n_stages = after.n_stages;
  r.n_groups = after.n_groups;
  r.joined_groups = after.joined_groups;
  return r;
}

Status bench_layout(const EngineBenchOptions& opt, EngineOptions base, const EngineLayout& layout,
                    EngineBenchReport* report) {
  base.n_stages = layout.n_stages;
  base.n_groups = layout.n_groups;
  base.join_groups = layout.join_groups;
  STRATA_ASSIGN_OR_RETURN(auto e, start_warm(base));
  int index = 1000 * layout.n_stages + 100 * layout.n_groups;
  for (int c : opt.concurrency) {
    STRATA_ASSIGN_OR_RETURN(ConcurrencyResult r, run_concurrent(*e, c, opt.prompt_tokens, opt.max_new, &index));
    report->runs.push_back(r);
  }
  return Status::Ok();
}

Status bench_cache(const EngineBenchOptions& opt, EngineOptions base, EngineBenchReport* report) {
  std::string dir = opt.park_dir;
  const bool temporary = dir.empty();
  if (temporary) dir = (std::filesystem::temp_directory_path() / ("strata-bench-park-" + std::to_string(::getpid()))).string();
  base.park_dir = dir;
  base.n_stages = 1;
  base.n_groups = 1;
  CacheResult& c = report->cache;
  BatchOutcome warm;
  GenerateRequest follow;
  {
    STRATA_ASSIGN_OR_RETURN(auto e, start(base));
    const Tokenizer& tok = e->engine->tokenizer();
    GenerateRequest first = request(bench_prompt(tok, 7, opt.cache_prompt_tokens), 8);
    auto cold = e->runner->run(*e->engine, {{first}});
    STRATA_RETURN_IF_ERROR(check_outcomes(cold));
    follow = first;
    follow.prompt_tokens.insert(follow.prompt_tokens.end(), cold[0].tokens.begin(), cold[0].tokens.end());
    std::vector<int32_t> turn = bench_turn(tok, 0);
    follow.prompt_tokens.insert(follow.prompt_tokens.end(), turn.begin(), turn.end());
    auto cached = e->runner->run(*e->engine, {{follow}});
    STRATA_RETURN_IF_ERROR(check_outcomes(cached));
    c.ttft_cold_s = cold[0].ttft_s();
    c.ttft_cached_s = cached[0].ttft_s();
    c.cached_tokens = cached[0].done.cached_tokens;
    warm = cached[0];
  }  // shutdown parks every cached block
  {
    STRATA_ASSIGN_OR_RETURN(auto e, start(base));
    auto parked = e->runner->run(*e->engine, {{follow}});
    STRATA_RETURN_IF_ERROR(check_outcomes(parked));
    c.ttft_parked_s = parked[0].ttft_s();
    c.restored_tokens = parked[0].done.cached_tokens;
    c.identical = first_difference(parked[0], warm) < 0;
  }
  c.prompt_tokens = static_cast<int>(follow.prompt_tokens.size());
  report->has_cache = true;
  if (temporary) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return Status::Ok();
}

}  // namespace

namespace {

// "a,b,,c" -> {"a", "b", "", "c"}: empty items are kept, so the parsers below reject them.
std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> items;
  size_t pos = 0;
  for (size_t comma; (comma = text.find(',', pos)) != std::string::npos; pos = comma + 1) {
    items.push_back(text.substr(pos, comma - pos));
  }
  items.push_back(text.substr(pos));
  return items;
}

}  // namespace

Result<std::vector<int>> parse_int_list(const std::string& text, const std::string& flag) {
  std::vector<int> out;
  for (const std::string& item : split_commas(text)) {
    char* end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 1 || v > 4096) {
      return Status::InvalidArgument(flag + " " + text + ": '" + item + "' is not a positive integer");
    }
    out.push_back(static_cast<int>(v));
  }
  return out;
}

Result<std::vector<EngineLayout>> parse_layouts(const std::string& text, const std::string& flag) {
  std::vector<EngineLayout> out;
  for (const std::string& item : split_commas(text)) {
    EngineLayout l;
    int n_read = 0;
    char tail[2] = {0, 0};
    const int n_fields = std::sscanf(item.c_str(), "%dx%d%n%1c", &l.n_stages, &l.n_groups, &n_read, tail);
    const bool pipelined = n_fields == 3 && tail[0] == 'p' && item.size() == static_cast<size_t>(n_read) + 1;
    if (n_fields < 2 || (n_fields == 3 && !pipelined) || l.n_stages < 1 || l.n_groups < 1) {
      return Status::InvalidArgument(flag + " " + text + ": '" + item + "' is not STAGESxGROUPS or STAGESxGROUPSp");
    }
    l.join_groups = !pipelined;
    out.push_back(l);
  }
  return out;
}

Result<std::vector<ConcurrencyResult>> measure_engine_setting(const EngineOptions& options, int prompt_tokens,
                                                              int max_new, int n_runs) {
  if (n_runs < 1) return Status::InvalidArgument("n_runs must be at least 1, got " + std::to_string(n_runs));
  STRATA_ASSIGN_OR_RETURN(auto e, start_warm(options));
  int index = 2000;
  std::vector<ConcurrencyResult> runs;
  for (int i = 0; i < n_runs; ++i) {
    STRATA_ASSIGN_OR_RETURN(ConcurrencyResult r, run_concurrent(*e, options.n_parallel, prompt_tokens, max_new, &index));
    runs.push_back(std::move(r));
  }
  return runs;
}

Result<EngineBenchReport> run_engine_bench(const EngineBenchOptions& opt) {
  if (opt.concurrency.empty()) return Status::InvalidArgument("--concurrency lists no value");
  EngineBenchReport report;
  report.model_path = opt.model_path;
  report.max_new = opt.max_new;
  report.prompt_tokens = opt.prompt_tokens;
  report.n_parallel = opt.n_parallel > 0 ? opt.n_parallel : *std::max_element(opt.concurrency.begin(), opt.concurrency.end());
  EngineOptions base;
  base.model_path = opt.model_path;
  base.n_parallel = report.n_parallel;
  base.n_threads = opt.n_threads;
  base.n_ctx = opt.n_ctx;
  base.kv_type = opt.kv_type;
  base.max_queue = std::max(64, 2 * report.n_parallel);
  for (const EngineLayout& layout : opt.layouts) {
    Status st = bench_layout(opt, base, layout, &report);
    if (st.code() == Code::kInvalidArgument) {
      report.notes.push_back("--stages " + std::to_string(layout.n_stages) + " --batch-groups " +
                             std::to_string(layout.n_groups) + " skipped: " + st.message());
      continue;
    }
    STRATA_RETURN_IF_ERROR(st);
  }
  if (opt.cache_prompt_tokens > 0) STRATA_RETURN_IF_ERROR(bench_cache(opt, base, &report));
  report.n_threads = opt.n_threads;
  return report;
}

std::string format_engine_bench(const EngineBenchReport& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "engine bench  %s: %d slots, %d-token prompts, %d new tokens per request\n",
                r.model_path.c_str(), r.n_parallel, r.prompt_tokens, r.max_new);
  out += line;
  out += "stages groups windows    conc  total tok/s  per-req tok/s  TTFT median ms  TTFT max ms  stage busy %\n";
  for (const ConcurrencyResult& c : r.runs) {
    std::snprintf(line, sizeof line, "%6d %6d %-9s %5d %12.1f %14.1f %15.1f %12.1f ", c.n_stages, c.n_groups,
                  c.n_groups == 1 ? "one" : (c.joined_groups ? "joined" : "per group"), c.concurrency, c.total_tok_s, c.per_request_tok_s, c.ttft_median_s * 1e3, c.ttft_max_s * 1e3);
    out += line;
    for (double b : c.stage_busy) {
      std::snprintf(line, sizeof line, " %3.0f", b * 100);
      out += line;
    }
    out += "\n";
  }
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  if (r.has_cache) {
    const CacheResult& c = r.cache;
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    std::snprintf(line, sizeof line, "prefix cache  %d-token follow-up turn: first prompt TTFT %.1f ms\n",
                  c.prompt_tokens, c.ttft_cold_s * 1e3);
    out += line;
    std::snprintf(line, sizeof line, "  from the prefix cache       TTFT %.1f ms (%.1fx faster, %d tokens reused)\n",
                  c.ttft_cached_s * 1e3, ratio(c.ttft_cold_s, c.ttft_cached_s), c.cached_tokens);
    out += line;
    std::snprintf(line, sizeof line, "  after restart (park store)  TTFT %.1f ms (%.1fx faster, %d tokens restored)%s\n",
                  c.ttft_parked_s * 1e3, ratio(c.ttft_cold_s, c.ttft_parked_s), c.restored_tokens,
                  c.identical ? "" : "  OUTPUT DIFFERS");
    out += line;
  }
  return out;
}

nlohmann::json engine_bench_json(const EngineBenchReport& r) {
  nlohmann::json runs = nlohmann::json::array();
  for (const ConcurrencyResult& c : r.runs) {
    runs.push_back({{"stages", c.n_stages}, {"batch_groups", c.n_groups}, {"joined_groups", c.joined_groups},
                    {"concurrency", c.concurrency},
                    {"tokens", c.n_tokens}, {"wall_s", c.wall_s}, {"total_tok_s", c.total_tok_s},
                    {"per_request_tok_s", c.per_request_tok_s}, {"ttft_median_s", c.ttft_median_s},
                    {"ttft_max_s", c.ttft_max_s}, {"stage_busy", c.stage_busy}});
  }
  nlohmann::json j = {{"model", r.model_path}, {"parallel", r.n_parallel}, {"prompt_tokens", r.prompt_tokens},
                      {"max_new", r.max_new}, {"runs", runs}, {"notes", r.notes}};
  if (r.has_cache) {
    const CacheResult& c = r.cache;
    j["prefix_cache"] = {{"prompt_tokens", c.prompt_tokens}, {"ttft_cold_s", c.ttft_cold_s},
                         {"ttft_cached_s", c.ttft_cached_s}, {"cached_tokens", c.cached_tokens},
                         {"ttft_parked_s", c.ttft_parked_s}, {"restored_tokens", c.restored_tokens},
                         {"identical", c.identical}};
  }
  return j;
}

}  // namespace strata
