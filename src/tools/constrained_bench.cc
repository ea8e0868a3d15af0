#include "tools/constrained_bench.h"

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "base/clock.h"
#include "engine/request_constraint.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/json_schema.h"
#include "tokenizer/tokenizer.h"
#include "tools/batch_runner.h"

namespace strata {
namespace {

Result<std::shared_ptr<const grammar::CompiledGrammar>> compile_schema_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument(fmt::format("bench --json-schema: cannot read '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  grammar::SchemaJson schema = grammar::SchemaJson::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (schema.is_discarded()) return Status::InvalidArgument(fmt::format("bench --json-schema: '{}' is not JSON", path));
  Result<std::string> gbnf = grammar::json_schema_to_gbnf(schema);
  if (!gbnf.ok()) return Status::InvalidArgument(fmt::format("bench --json-schema '{}': {}", path, gbnf.status().message()));
  STRATA_ASSIGN_OR_RETURN(grammar::Grammar g, grammar::parse_gbnf(*gbnf));
  return grammar::CompiledGrammar::Compile(g);
}

double plain_decode_tok_s(const BatchOutcome& out) {
  const double span_s = out.finished_s - out.first_token_s;
  return out.tokens.size() > 1 && span_s > 0 ? static_cast<double>(out.tokens.size() - 1) / span_s : 0.0;
}

GenerateRequest constrained_bench_request(int n_prompt, int max_new, int n_vocab) {
  GenerateRequest r;
  r.prompt_tokens.push_back(1);
  for (int i = 1; i < n_prompt; ++i) {
    r.prompt_tokens.push_back(static_cast<int32_t>(3 + (static_cast<uint32_t>(i) * 2654435761u >> 9) % (n_vocab - 3)));
  }
  r.max_tokens = max_new;
  r.sampling.temperature = 1.0f;
  r.sampling.seed = 42;
  return r;
}

// Replays the output through a fresh constraint, timing each step's mask.
void time_masks(const Engine& engine, const std::shared_ptr<const grammar::CompiledGrammar>& g,
                const std::vector<int32_t>& tokens, ConstrainedBenchReport* r) {
  RequestConstraint constraint(g, build_constraint_vocabulary(engine.tokenizer()));
  std::vector<double> us;
  for (int32_t t : tokens) {
    const double t0 = monotonic_s();
    constraint.allowed();
    us.push_back((monotonic_s() - t0) * 1e6);
    if (!constraint.accept(t)) break;  // an end token
  }
  r->completed = constraint.complete();
  if (us.empty()) return;
  r->mask_mean_us = std::accumulate(us.begin(), us.end(), 0.0) / us.size();
  std::sort(us.begin(), us.end());
  r->mask_median_us = us[us.size() / 2];
  r->mask_p90_us = us[(us.size() - 1) * 9 / 10];
}

}  // namespace

Result<ConstrainedBenchReport> run_constrained_bench(const ConstrainedBenchOptions& o) {
  if (o.model_path.empty()) return Status::InvalidArgument("bench --json-schema: no model (-m)");
  if (o.prompt_tokens < 2 || o.max_new < 2 || o.runs < 1) {
    return Status::InvalidArgument("bench --json-schema: prompt tokens and --max-new must be at least 2");
  }
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<const grammar::CompiledGrammar> g, compile_schema_file(o.schema_path));
  ConstrainedBenchReport rep;
  rep.model_path = o.model_path;
  rep.schema_path = o.schema_path;
  rep.n_threads = o.n_threads > 0 ? o.n_threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  BatchRunner runner;
  EngineOptions eo;
  eo.model_path = o.model_path;
  eo.n_parallel = 1;
  eo.n_threads = rep.n_threads;
  eo.n_ctx = o.prompt_tokens + o.max_new + 8;
  runner.attach(&eo);
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<Engine> engine, Engine::Create(eo));
  rep.n_vocab = static_cast<int>(engine->tokenizer().n_vocab());
  GenerateRequest plain = constrained_bench_request(o.prompt_tokens, o.max_new, rep.n_vocab);
  plain.ignore_eos = true;
  GenerateRequest constrained = constrained_bench_request(o.prompt_tokens, o.max_new, rep.n_vocab);
  constrained.constraint = g;
  runner.run(*engine, {BatchJob{constrained_bench_request(8, 4, rep.n_vocab), 0.0}});  // warm-up
  BatchOutcome last;
  for (int i = 0; i < o.runs; ++i) {
    rep.plain_tok_s = std::max(rep.plain_tok_s, plain_decode_tok_s(runner.run(*engine, {BatchJob{plain, 0.0}})[0]));
    last = std::move(runner.run(*engine, {BatchJob{constrained, 0.0}})[0]);
    STRATA_RETURN_IF_ERROR(last.submit_status);
    rep.constrained_tok_s = std::max(rep.constrained_tok_s, plain_decode_tok_s(last));
  }
  rep.ratio = rep.plain_tok_s > 0 ? rep.constrained_tok_s / rep.plain_tok_s : 0;
  rep.constrained_tokens = static_cast<int>(last.tokens.size());
  time_masks(*engine, g, last.tokens, &rep);
  engine->shutdown(10.0);
  return rep;
}

std::string format_constrained_bench(const ConstrainedBenchReport& r) {
  return fmt::format(
      "constrained decoding, {}, {} threads, schema {}\n"
      "  plain decode        {:.2f} tok/s\n"
      "  constrained decode  {:.2f} tok/s  ({:.1f}% of plain; {} tokens, {})\n"
      "  mask per token ({}-token vocabulary): median {:.1f} us, p90 {:.1f} us, mean {:.1f} us\n",
      r.model_path, r.n_threads, r.schema_path, r.plain_tok_s, r.constrained_tok_s, 100 * r.ratio,
      r.constrained_tokens, r.completed ? "a complete document" : "cut at --max-new", r.n_vocab, r.mask_median_us,
      r.mask_p90_us, r.mask_mean_us);
}

nlohmann::json constrained_bench_json(const ConstrainedBenchReport& r) {
  return {{"model", r.model_path},
          {"schema", r.schema_path},
          {"threads", r.n_threads},
          {"n_vocab", r.n_vocab},
          {"plain_tok_s", r.plain_tok_s},
          {"constrained_tok_s", r.constrained_tok_s},
          {"ratio", r.ratio},
          {"constrained_tokens", r.constrained_tokens},
          {"completed", r.completed},
          {"mask_us", {{"median", r.mask_median_us}, {"p90", r.mask_p90_us}, {"mean", r.mask_mean_us}}}};
}

}  // namespace strata
