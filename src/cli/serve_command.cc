// `strata serve`: the OpenAI- and Anthropic-compatible HTTP server (see docs/api.md).
// Flags are parsed here; everything else lives in src/server (run_server).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/engine.h"
#include "engine/engine_config_file.h"
#include "fetch/model_source.h"
#include "fetch/model_source_flags.h"
#include "fetch/progress_bar.h"
#include "server/api_key_file.h"
#include "server/engine_model.h"
#include "server/observability.h"
#include "server/server_config.h"
#include "server/server_runner.h"
#include "server/termination_signals.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "0.0.0"
#endif

namespace strata::cli {

namespace {

struct ServeFlags {
  server::ServerConfig server;
  EngineOptions engine;
  ModelSourceOptions source;
  std::string max_body = "16MiB";
  std::string api_key_file;
  std::string config_file;          // --config: engine settings (engine/engine_config_file.h)
  CLI::App* app = nullptr;          // the subcommand, to ask which flags were given
};

void add_engine_flags(CLI::App* sub, EngineOptions* e) {
  sub->add_option("--parallel", e->n_parallel, "request slots")->capture_default_str()->check(CLI::Range(1, 4096));
  sub->add_option("--ctx", e->n_ctx, "context per slot in tokens (0: the model's, at most 4096)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 22));
  sub->add_option("--max-queue", e->max_queue, "requests that may wait for a slot")
      ->capture_default_str()->check(CLI::Range(0, 1 << 20));
  sub->add_option("--prefill-chunk", e->prefill_chunk, "prompt rows per engine step")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  sub->add_option("--stages", e->n_stages, "pipeline stages")->capture_default_str()->check(CLI::Range(1, 256));
  sub->add_option("--batch-groups", e->n_groups, "slot groups (0: auto)")->capture_default_str()->check(CLI::Range(0, 4096));
  sub->add_option("--join-groups", e->join_groups,
                  "on: each step runs every group's rows in one window on all cores; off: groups pipelined "
                  "through the stages")
      ->capture_default_str();
  sub->add_option("--threads", e->n_threads, "worker threads (0: all cores)")->capture_default_str()->check(CLI::Range(0, 4096));
  sub->add_option("--kv-block", e->kv_block_tokens, "tokens per K/V block")->capture_default_str()->check(CLI::Range(1, 4096));
  sub->add_option("--kv-cache-mib", e->kv_cache_mib,
                  "K/V pool size, sliding-window layers' pool included (0: enough for every slot)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 24));
  sub->add_option("--state-cache-mib", e->state_cache_mib,
                  "hybrid models' state snapshots for prefix reuse (-1: three per slot, 0: none)")
      ->capture_default_str()->check(CLI::Range(-1, 1 << 24));
  sub->add_option("--kv-type", e->kv_type, "K/V element type")->capture_default_str()->check(CLI::IsMember({"f16", "f32", "q8_0"}));
  sub->add_option("--park-dir", e->park_dir, "directory for parked K/V (empty: no parking)");
  sub->add_option("--park-mib", e->park_mib, "park store capacity")->capture_default_str()->check(CLI::Range(0, 1 << 30));
}

void add_spec_flags(CLI::App* sub, SpecOptions* s) {
  sub->add_option("--spec", s->method,
                  "speculative decoding (output unchanged): ngram = draft by prompt lookup; draft = a draft "
                  "model (--model-draft, the default when one is given); empty: off")
      ->check(CLI::IsMember({"", "ngram", "draft"}));
  sub->add_option("--model-draft", s->draft_model_path,
                  "draft model for speculative decoding (same vocabulary as the model, smaller)");
  sub->add_option("--spec-tokens", s->max_draft_tokens, "most tokens a request drafts per step")
      ->capture_default_str()->check(CLI::Range(1, 32));
  sub->add_option("--spec-ngram-min", s->ngram_min, "shortest suffix prompt lookup matches")
      ->capture_default_str()->check(CLI::Range(1, 64));
  sub->add_option("--spec-ngram-max", s->ngram_max, "longest suffix prompt lookup matches")
      ->capture_default_str()->check(CLI::Range(1, 64));
}

void add_server_flags(CLI::App* sub, ServeFlags* f) {
  server::ServerConfig& s = f->server;
  // The environment fallbacks let a container image set its defaults (listen on every interface,
  // the model on a mounted volume) while `serve` invoked with other flags still gets them.
  sub->add_option("--host", s.host, "address to listen on")->capture_default_str()->envname("STRATA_HOST");
  sub->add_option("--port", s.port, "port to listen on (0: any free port)")
      ->capture_default_str()->check(CLI::Range(0, 65535))->envname("STRATA_PORT");
  sub->add_option("--api-key", s.api_keys, "accepted API key (repeatable; also $STRATA_API_KEY)");
  sub->add_option("--api-key-file", f->api_key_file,
                  "file of accepted API keys, one per line (e.g. a mounted secret)")
      ->envname("STRATA_API_KEY_FILE");
  sub->add_flag("--metrics-no-auth", s.metrics_no_auth, "serve /metrics without an API key");
  sub->add_option("--reasoning-format", s.reasoning_format,
                  "auto: a thinking model's <think> block goes to reasoning_content / thinking blocks; "
                  "none: it stays in the content")
      ->capture_default_str()->check(CLI::IsMember({"auto", "none"}));
  sub->add_option("--chat-template-file", s.chat_template_file,
                  "a Jinja chat template to use instead of the model's (e.g. a newer Qwen3 template)");
  sub->add_option("--max-body", f->max_body, "largest request body, e.g. 16MiB (answered 413 beyond)")
      ->capture_default_str();
  sub->add_option("--drain-timeout", s.drain_timeout_s, "seconds running requests get after SIGTERM")
      ->capture_default_str()->check(CLI::Range(0.0, 86400.0));
  sub->add_option("--max-connections", s.max_connections, "connections open at once (a new one gets 503 beyond)")
      ->capture_default_str()->check(CLI::Range(1, 65536));
  sub->add_option("--responses-store-mib", s.responses_store_mib,
                  "MiB of Responses API answers kept for previous_response_id (0: none)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 20));
  sub->add_option("--request-timeout", s.request_deadline_s,
                  "seconds a request's head and body may take to arrive (408 beyond)")
      ->capture_default_str()->check(CLI::Range(0.001, 3600.0));
  sub->add_option("--alias", s.model_alias, "model name shown to clients (default: the file's name)");
}

// "16MiB", "512k", "1048576" -> bytes (k/m/g are binary multiples).
bool parse_size_bytes(const std::string& text, uint64_t* out) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(value > 0)) return false;
  std::string unit(end);
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 1;
  if (unit == "k" || unit == "kb" || unit == "kib") scale = 1024.0;
  else if (unit == "m" || unit == "mb" || unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gb" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty() && unit != "b") return false;
  *out = static_cast<uint64_t>(value * scale);
  return true;
}

// --config FILE: its engine settings, except those given as flags. Reported by /v1/status
// and the Monitor page.
Status apply_config_file(ServeFlags& f, server::ServeObservability& observability) {
  if (f.config_file.empty()) return Status::Ok();
  STRATA_ASSIGN_OR_RETURN(EngineConfigFile file, read_engine_config(f.config_file));
  std::set<std::string> given;
  for (const std::string& key : engine_config_keys()) {
    if (f.app->get_option("--" + key)->count() > 0) given.insert(key);
  }
  const EngineConfigApplied applied = apply_engine_config(file, given, &f.engine);
  f.server.config_file = applied.path;
  f.server.config_from_file = applied.from_file;
  f.server.config_overridden = applied.overridden;
  observability.set_config_in_use(applied.path, applied.from_file);
  return Status::Ok();
}

int run_serve(ServeFlags& f) {
  if (!parse_size_bytes(f.max_body, &f.server.max_body_bytes)) {
    std::fprintf(stderr, "serve: --max-body '%s' is not a size (e.g. 16MiB, 512k, 1048576)\n", f.max_body.c_str());
    return 2;
  }
  if (const char* key = std::getenv("STRATA_API_KEY"); key && *key) f.server.api_keys.push_back(key);
  if (!f.api_key_file.empty()) {
    Result<std::vector<std::string>> keys = server::read_api_key_file(f.api_key_file);
    if (!keys.ok()) {
      std::fprintf(stderr, "serve: %s\n", keys.status().message().c_str());
      return 2;
    }
    f.server.api_keys.insert(f.server.api_keys.end(), keys->begin(), keys->end());
  }
  f.server.version = STRATA_VERSION;
  server::ServeObservability observability(STRATA_VERSION);
  if (Status st = apply_config_file(f, observability); !st.ok()) {
    std::fprintf(stderr, "serve: %s\n", st.message().c_str());
    return 2;
  }
  // HTTP threads started up front: every slot and queued request, plus room for status calls
  // (more start on demand, one per connection, up to --max-connections).
  f.server.http_threads = f.engine.n_parallel + f.engine.max_queue + 16;
  if (Status st = server::validate_server_config(f.server); !st.ok()) {
    std::fprintf(stderr, "serve: %s\n", st.message().c_str());
    return 2;
  }
  // Before any thread starts, so that every thread inherits the blocked mask.
  server::TerminationSignals signals;
  auto load = [&f, &observability]() -> Result<server::LoadedModel> {
    STRATA_ASSIGN_OR_RETURN(std::string path, resolve_model(f.source));
    EngineOptions options = f.engine;
    options.model_path = path;
    const std::string name = f.server.model_alias.empty() ? std::filesystem::path(path).stem().string()
                                                          : f.server.model_alias;
    options.observer = observability.prepare(name, options.n_ctx > 0 ? options.n_ctx : 4096);
    // A big file takes a while to read and pack: say how far along it is.
    auto bar = std::make_shared<ProgressBar>("loading " + std::filesystem::path(path).filename().string(), true);
    options.load_progress = [bar](uint64_t done, uint64_t total) {
      bar->update(done, total);
      if (done == total) bar->finish();
    };
    STRATA_ASSIGN_OR_RETURN(server::LoadedModel model, server::load_engine_model(options, f.server.chat_template_file));
    observability.attach(model.engine.get());
    model.before_unload = [&observability] { observability.detach(); };
    return model;
  };
  Status st = server::run_server(f.server, load, observability.hooks(),
                                 [&signals](double timeout_s) { return signals.wait(timeout_s); });
  if (!st.ok()) {
    std::fprintf(stderr, "serve: %s\n", st.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("serve", "Serve a model over HTTP (OpenAI and Anthropic APIs)");
  auto flags = std::make_shared<ServeFlags>();
  sub->add_option("-m,--model", flags->source.model_path, "GGUF model file (default: the default model, fetched once)")
      ->envname("STRATA_MODEL");
  add_model_source_flags(sub, &flags->source);
  add_engine_flags(sub, &flags->engine);
  add_spec_flags(sub, &flags->engine.spec);
  add_server_flags(sub, flags.get());
  sub->add_option("--config", flags->config_file,
                  "engine settings file (written by strata calibrate); flags given here override it");
  flags->app = sub;
  sub->callback([flags, exit_code] { *exit_code = run_serve(*flags); });
}

}  // namespace strata::cli
