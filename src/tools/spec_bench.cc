#include "tools/spec_bench.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <thread>

#include "base/clock.h"
#include "base/thread_pool.h"
#include "model/contiguous_kv.h"
#include "model/model.h"
#include "sampling/ngram_drafter.h"
#include "tensor/dtype.h"
#include "tokenizer/tokenizer.h"
#include "tools/batch_runner.h"

namespace strata {
namespace {

int32_t bench_token(int i, int n_vocab) {
  return static_cast<int32_t>(3 + (static_cast<uint32_t>(i) * 2654435761u >> 9) % static_cast<uint32_t>(n_vocab - 3));
}

// Seconds of one forward pass over rows at positions [first_pos, first_pos + n_rows), the
// best of `repeats` (the rows overwrite the same K/V positions each time).
double time_rows(const Model& model, ContiguousKv& kv, ForwardScratch& scratch, ThreadPool& pool,
                 std::vector<float>& logits, int first_pos, int n_rows, int repeats) {
  const int n_vocab = model.hparams().n_vocab;
  std::vector<Row> rows;
  for (int i = 0; i < n_rows; ++i) rows.push_back(Row{0, first_pos + i, bench_token(first_pos + i, n_vocab), true});
  double best_s = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const double t0 = monotonic_s();
    model.forward(rows, kv, logits.data(), scratch, pool);
    best_s = std::min(best_s, monotonic_s() - t0);
  }
  return best_s;
}

Status measure_verify_cost(const SpecBenchOptions& o, int n_threads, SpecBenchReport* r) {
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, Model::Load(o.model_path));
  const int max_k = *std::max_element(o.draft_lengths.begin(), o.draft_lengths.end());
  const int max_rows = std::max(o.prompt_tokens, 1 + max_k);
  const int max_tokens = o.prompt_tokens + 1 + max_k;
  ThreadPool pool(n_threads);
  std::unique_ptr<ForwardScratch> scratch = model->make_scratch(max_rows, max_tokens, n_threads);
  const KvLayout layout = model->kv_layout(DType::kF16, 16);
  STRATA_RETURN_IF_ERROR(model->check_kv_layout(layout));
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<ContiguousKv> kv, ContiguousKv::Create(layout, 1, max_tokens));
  std::vector<float> logits(static_cast<size_t>(max_rows) * model->hparams().n_vocab);
  time_rows(*model, *kv, *scratch, pool, logits, 0, o.prompt_tokens, 1);  // the context, and warm-up
  r->decode_step_s = time_rows(*model, *kv, *scratch, pool, logits, o.prompt_tokens, 1, o.verify_repeats);
  for (int k : o.draft_lengths) {
    SpecVerifyCost c;
    c.draft_tokens = k;
    c.step_s = time_rows(*model, *kv, *scratch, pool, logits, o.prompt_tokens, 1 + k, o.verify_repeats);
    c.ratio_to_decode = c.step_s / r->decode_step_s;
    r->verify.push_back(c);
  }
  return Status::Ok();
}

// The engine's drafter while the bench runs: the recorded continuation while replaying,
// prompt lookup otherwise.
struct BenchDrafter {
  std::mutex mu;
  std::vector<int32_t> recorded;  // prompt + plain continuation
  bool replay = false;
  int draft(std::span<const int32_t> tokens, std::span<int32_t> out) {
    std::lock_guard<std::mutex> lock(mu);
    if (!replay) return ngram_draft(tokens, NgramDraftOptions{}, out);
    if (recorded.size() <= tokens.size() || !std::equal(tokens.begin(), tokens.end(), recorded.begin())) return 0;
    const size_t n = std::min(out.size(), recorded.size() - tokens.size());
    std::copy_n(recorded.begin() + static_cast<long>(tokens.size()), n, out.begin());
    return static_cast<int>(n);
  }
};

double spec_decode_tok_s(const BatchOutcome& out) {
  const double span_s = out.finished_s - out.first_token_s;
  return out.tokens.size() > 1 && span_s > 0 ? static_cast<double>(out.tokens.size() - 1) / span_s : 0.0;
}

// Runs one request alone; the engine's counters before and after give its acceptance.
BatchOutcome run_one(Engine& engine, BatchRunner& runner, GenerateRequest r, int spec_tokens, SpecRunResult* res) {
  r.speculative_tokens = spec_tokens;
  const SpecCounts before = engine.snapshot().spec;
  std::vector<BatchOutcome> outs = runner.run(engine, {BatchJob{r, 0.0}});
  const SpecCounts after = engine.snapshot().spec;
  if (res) {
    const double drafted = static_cast<double>(after.draft_tokens - before.draft_tokens);
    const double steps = static_cast<double>(after.drafts - before.drafts);
    res->acceptance = drafted > 0 ? static_cast<double>(after.accepted_tokens - before.accepted_tokens) / drafted : 0;
    res->drafted_per_step = steps > 0 ? drafted / steps : 0;
    res->tok_s = spec_decode_tok_s(outs[0]);
  }
  return std::move(outs[0]);
}

GenerateRequest spec_bench_request(int n_prompt, int max_new, int n_vocab, int period) {
  GenerateRequest r;
  r.prompt_tokens.push_back(1);
  for (int i = 1; i < n_prompt; ++i) r.prompt_tokens.push_back(bench_token(period > 0 ? i % period : i, n_vocab));
  r.max_tokens = max_new;
  r.ignore_eos = true;
  return r;
}

}  // namespace

Result<SpecBenchReport> run_spec_bench(const SpecBenchOptions& o) {
  if (o.model_path.empty()) return Status::InvalidArgument("bench --spec: no model (-m)");
  if (o.prompt_tokens < 2 || o.max_new < 2 || o.verify_repeats < 1 || o.draft_lengths.empty()) {
    return Status::InvalidArgument("bench --spec: prompt tokens and --max-new must be at least 2");
  }
  for (int k : o.draft_lengths) {
    if (k < 1 || k > 32) return Status::InvalidArgument("bench --spec: draft lengths must be 1..32, got " + std::to_string(k));
  }
  SpecBenchReport rep;
  rep.model_path = o.model_path;
  rep.n_threads = o.n_threads > 0 ? o.n_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  STRATA_RETURN_IF_ERROR(measure_verify_cost(o, rep.n_threads, &rep));

  BenchDrafter drafter;
  BatchRunner runner;
  EngineOptions eo;
  eo.model_path = o.model_path;
  eo.n_parallel = 1;
  eo.n_threads = rep.n_threads;
  eo.n_ctx = o.prompt_tokens + o.max_new + 8;
  eo.spec.max_draft_tokens = *std::max_element(o.draft_lengths.begin(), o.draft_lengths.end());
  eo.spec.drafter = [&drafter](uint64_t, std::span<const int32_t> t, std::span<int32_t> out) {
    return drafter.draft(t, out);
  };
  runner.attach(&eo);
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(eo));
  const int n_vocab = static_cast<int>(engine->tokenizer().n_vocab());
  const GenerateRequest plain = spec_bench_request(o.prompt_tokens, o.max_new, n_vocab, 0);
  run_one(*engine, runner, spec_bench_request(8, 4, n_vocab, 0), 0, nullptr);  // warm-up
  SpecRunResult plain_res;
  const BatchOutcome base = run_one(*engine, runner, plain, 0, &plain_res);
  rep.plain_tok_s = plain_res.tok_s;
  {
    std::lock_guard<std::mutex> lock(drafter.mu);
    drafter.recorded = plain.prompt_tokens;
    drafter.recorded.insert(drafter.recorded.end(), base.tokens.begin(), base.tokens.end());
    drafter.replay = true;
  }
  for (int k : o.draft_lengths) {
    SpecRunResult res;
    res.drafter = "replay";
    res.max_draft_tokens = k;
    res.same_tokens = run_one(*engine, runner, plain, k, &res).tokens == base.tokens;
    res.ratio_to_plain = res.tok_s / rep.plain_tok_s;
    rep.runs.push_back(res);
  }
  {
    std::lock_guard<std::mutex> lock(drafter.mu);
    drafter.replay = false;
  }
  // A passage of 32 tokens over and over: what prompt lookup is for.
  const GenerateRequest copy = spec_bench_request(o.prompt_tokens, o.max_new, n_vocab, 32);
  SpecRunResult copy_plain;
  const BatchOutcome copy_base = run_one(*engine, runner, copy, 0, &copy_plain);
  rep.ngram_plain_tok_s = copy_plain.tok_s;
  for (int k : {4, eo.spec.max_draft_tokens}) {
    SpecRunResult res;
    res.drafter = "ngram";
    res.max_draft_tokens = k;
    res.same_tokens = run_one(*engine, runner, copy, k, &res).tokens == copy_base.tokens;
    res.ratio_to_plain = res.tok_s / rep.ngram_plain_tok_s;
    rep.runs.push_back(res);
    if (k == eo.spec.max_draft_tokens) break;
  }
  engine->shutdown(10.0);
  return rep;
}

std::string format_spec_bench(const SpecBenchReport& r) {
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line, "speculative decoding, %s, %d threads\n", r.model_path.c_str(), r.n_threads);
  s += line;
  std::snprintf(line, sizeof line, "  verify 1+k rows vs one decode step (%.2f ms):\n", r.decode_step_s * 1e3);
  s += line;
  for (const SpecVerifyCost& c : r.verify) {
    std::snprintf(line, sizeof line, "    k=%d  %.2f ms  %.2fx a step (%.2fx of %d steps)\n", c.draft_tokens, c.step_s * 1e3,
                  c.ratio_to_decode, c.ratio_to_decode / (1 + c.draft_tokens), 1 + c.draft_tokens);
    s += line;
  }
  std::snprintf(line, sizeof line, "  plain decode %.2f tok/s; copy-heavy prompt plain %.2f tok/s\n", r.plain_tok_s,
                r.ngram_plain_tok_s);
  s += line;
  for (const SpecRunResult& x : r.runs) {
    std::snprintf(line, sizeof line, "  %-6s k<=%d  %.2f tok/s  %.2fx plain  acceptance %.0f%%  %.2f drafted/step%s\n",
                  x.drafter.c_str(), x.max_draft_tokens, x.tok_s, x.ratio_to_plain, 100 * x.acceptance,
                  x.drafted_per_step, x.same_tokens ? "" : "  TOKENS DIFFER");
    s += line;
  }
  return s;
}

nlohmann::json spec_bench_json(const SpecBenchReport& r) {
  nlohmann::json verify = nlohmann::json::array();
  for (const SpecVerifyCost& c : r.verify) {
    verify.push_back({{"draft_tokens", c.draft_tokens}, {"step_s", c.step_s}, {"ratio_to_decode", c.ratio_to_decode}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const SpecRunResult& x : r.runs) {
    runs.push_back({{"drafter", x.drafter}, {"max_draft_tokens", x.max_draft_tokens}, {"tok_s", x.tok_s},
                    {"ratio_to_plain", x.ratio_to_plain}, {"acceptance", x.acceptance},
                    {"drafted_per_step", x.drafted_per_step}, {"same_tokens", x.same_tokens}});
  }
  return {{"model", r.model_path}, {"threads", r.n_threads}, {"decode_step_s", r.decode_step_s},
          {"verify", std::move(verify)}, {"plain_tok_s", r.plain_tok_s},
          {"ngram_plain_tok_s", r.ngram_plain_tok_s}, {"runs", std::move(runs)}};
}

}  // namespace strata
