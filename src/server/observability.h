// ServeObservability: the metrics and the web page of one `strata serve`, wired into the HTTP
// server as RouteHooks (GET /metrics, GET / and assets, the per-response counter).
//
// Life cycle, following the model's: prepare() before Engine::Create (it makes the
// ServingMetrics the engine reports to), attach() once the engine runs (starts the sampler,
// opens /metrics), detach() before the engine is destroyed. Until attach(), /metrics answers
// 503; responses before prepare() are not counted. The object must outlive the HTTP server.
// Hooks may be called from any thread; prepare/attach/detach from the loading thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "server/route_hooks.h"

namespace strata {
class MetricsSampler;
class ServingMetrics;
}  // namespace strata

namespace strata::server {

class ServeObservability {
 public:
  explicit ServeObservability(std::string version);
  ~ServeObservability();

  RouteHooks hooks();
  // model_name: the name clients see; max_model_len: the per-request context.
  EngineObserver* prepare(const std::string& model_name, int max_model_len);
  // Before prepare(): the engine settings file in use (`serve --config`) and the keys taken
  // from it, for the Monitor page.
  void set_config_in_use(std::string file, std::vector<std::string> keys);
  void attach(Engine* engine);
  void detach();

 private:
  HttpBody render_metrics(const std::string& accept, const std::string& query);

  std::string version_;
  std::string model_name_;
  std::string config_file_;
  std::vector<std::string> config_keys_;
  std::unique_ptr<ServingMetrics> metrics_;
  std::unique_ptr<MetricsSampler> sampler_;
  std::atomic<ServingMetrics*> counting_{nullptr};  // set once metrics_ exists
  std::atomic<Engine*> engine_{nullptr};            // set while attached
};

}  // namespace strata::server
