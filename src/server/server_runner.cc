#include "server/server_runner.h"

#include <cstdio>
#include <thread>

#include "base/log.h"
#include "server/http_server.h"
#include "server/server_state.h"

namespace strata::server {

namespace {

constexpr double kRunnerStopPollS = 0.25;
// After the engine has finished or aborted every request, the answers' last events still have
// to reach their sockets; a client that does not read gets its connection's write timeout.
constexpr double kAnswerFlushS = 10.0;

// New requests get 503 from the start; the port stays open (answering 503) until the running
// requests have ended and their answers are written, then closes, ending idle connections.
void drain(ServerState& state, HttpServer& http, Engine* engine, double timeout_s) {
  STRATA_LOG_INFO("shutting down: no new requests; running ones get up to {:.1f}s", timeout_s);
  state.begin_drain();
  if (engine) engine->shutdown(timeout_s);
  if (!state.wait_for_answers(kAnswerFlushS)) {
    STRATA_LOG_WARN("shutting down: some answers were not written within {:.0f}s", kAnswerFlushS);
  }
  http.stop();
}

}  // namespace

Status run_server(const ServerConfig& config, const ModelLoader& load, RouteHooks hooks,
                  const StopWaiter& wait_for_stop, const ListeningCallback& on_listening) {
  STRATA_RETURN_IF_ERROR(validate_server_config(config));
  ServerState state(config);
  HttpServer http(&state, std::move(hooks));
  STRATA_ASSIGN_OR_RETURN(int port, http.bind());
  std::printf("strata: listening on http://%s:%d\n", config.host.c_str(), port);
  std::fflush(stdout);
  std::thread serve_thread([&http] { http.serve(); });
  http.wait_until_running();
  if (on_listening) on_listening(port);

  Result<LoadedModel> loaded = load();
  if (!loaded.ok()) {
    drain(state, http, nullptr, 0);
    serve_thread.join();
    return loaded.status();
  }
  ServedModel served{loaded->engine.get(), loaded->text.get(),
                     config.model_alias.empty() ? loaded->name : config.model_alias,
                     loaded->engine->snapshot().n_ctx};
  state.publish_model(&served);
  STRATA_LOG_INFO("model '{}' ready ({} tokens of context per request)", served.name, served.n_ctx);

  while (!wait_for_stop(kRunnerStopPollS)) {
  }
  drain(state, http, served.engine, config.drain_timeout_s);
  serve_thread.join();
  state.publish_model(nullptr);
  if (loaded->before_unload) loaded->before_unload();
  STRATA_LOG_INFO("stopped");
  return Status::Ok();
}

}  // namespace strata::server
