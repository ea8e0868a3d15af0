// run_server: the life of `strata serve` — open the port, load the model behind it, serve,
// and drain on request.
//
// Sequence: bind and print "strata: listening on http://HOST:PORT" (so /health answers 503
// while loading); load the model on the calling thread; serve until wait_for_stop says so;
// then refuse new work (503 on open connections, listening socket closed), give running
// requests up to drain_timeout_s to finish (the engine aborts the rest), wait for every
// response to be written, and return.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "engine/engine.h"
#include "server/model_text.h"
#include "server/route_hooks.h"
#include "server/server_config.h"

namespace strata::server {

// What a model loader hands over: the running engine and its text side.
struct LoadedModel {
  std::unique_ptr<Engine> engine;
  std::unique_ptr<ModelText> text;
  std::string name;  // the default model name (e.g. the file's stem); --alias overrides it
  // Called after the drain, before the engine is destroyed (e.g. to stop a metrics sampler
  // that reads engine snapshots). May be empty.
  std::function<void()> before_unload;
};

using ModelLoader = std::function<Result<LoadedModel>()>;
// Waits up to timeout_s; true when the server should stop (e.g. TerminationSignals::wait).
using StopWaiter = std::function<bool(double timeout_s)>;

// Told the bound port once the server accepts connections (before the model loads).
using ListeningCallback = std::function<void(int port)>;

// Returns Ok after a clean drain; the bind or load error otherwise.
Status run_server(const ServerConfig& config, const ModelLoader& load, RouteHooks hooks,
                  const StopWaiter& wait_for_stop, const ListeningCallback& on_listening = nullptr);

}  // namespace strata::server
