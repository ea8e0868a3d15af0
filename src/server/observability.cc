#include "server/observability.h"

#include "metrics/metrics_sampler.h"
#include "metrics/serving_metrics.h"
#include "server/api_error.h"
#include "server/sse.h"
#include "web/web_assets.h"

namespace strata::server {

ServeObservability::ServeObservability(std::string version) : version_(std::move(version)) {}

ServeObservability::~ServeObservability() { detach(); }

EngineObserver* ServeObservability::prepare(const std::string& model_name, int max_model_len) {
  ServingMetricsOptions options;
  options.model_name = model_name;
  options.max_model_len = max_model_len;
  model_name_ = model_name;
  options.version = version_;
  options.config_file = config_file_;
  options.config_keys = config_keys_;
  metrics_ = std::make_unique<ServingMetrics>(options);
  counting_.store(metrics_.get(), std::memory_order_release);
  return metrics_.get();
}

void ServeObservability::set_config_in_use(std::string file, std::vector<std::string> keys) {
  config_file_ = std::move(file);
  config_keys_ = std::move(keys);
}

void ServeObservability::attach(Engine* engine) {
  // The real context is known only once the engine has loaded the model (--ctx 0 = auto);
  // the token-count histograms are bounded by it, as vLLM bounds them by max_model_len.
  metrics_->set_model(model_name_, engine->snapshot().n_ctx);
  sampler_ = std::make_unique<MetricsSampler>(metrics_.get(), [engine] { return engine->snapshot(); });
  engine_.store(engine, std::memory_order_release);
}

void ServeObservability::detach() {
  engine_.store(nullptr, std::memory_order_release);
  sampler_.reset();
}

HttpBody ServeObservability::render_metrics(const std::string& accept, const std::string& query) {
  Engine* engine = engine_.load(std::memory_order_acquire);
  if (!engine) {
    ApiError error = ApiError::Unavailable("model_loading", "metrics start once the model has loaded");
    return {dump_json(openai_error_body(error)), "application/json", 503};
  }
  ServingMetrics::Rendered page = metrics_->render_for_query(engine->snapshot(), accept, query);
  return {std::move(page.body), std::move(page.content_type), 200};
}

RouteHooks ServeObservability::hooks() {
  RouteHooks hooks;
  hooks.render_metrics = [this](const std::string& accept, const std::string& query) {
    return render_metrics(accept, query);
  };
  hooks.web_asset = [](std::string_view path) -> std::optional<HttpBody> {
    std::optional<WebAsset> asset = web_asset(path);
    if (!asset) return std::nullopt;
    return HttpBody{std::string(asset->body), std::string(asset->content_type), 200};
  };
  hooks.on_http_request = [this](std::string_view handler, std::string_view method, int status) {
    if (ServingMetrics* m = counting_.load(std::memory_order_acquire)) m->on_http_request(handler, method, status);
  };
  return hooks;
}

}  // namespace strata::server
