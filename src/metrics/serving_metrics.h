// ServingMetrics: the server's metrics. Receives engine events (as the EngineObserver) and
// HTTP responses, and renders GET /metrics as Prometheus text or as the Monitor page's JSON.
//
// Owns a MetricsState behind one mutex; every method is thread-safe. A render takes the
// lock once, so each scrape is consistent (a histogram's +Inf bucket equals its _count)
// and changes no counter. Event methods do constant work and allocate only when a request
// starts or finishes, never per token. Pass it as EngineOptions::observer; it must outlive
// the engine.
//
// Usage (server):
//   ServingMetrics metrics({.model_name = id, .max_model_len = n_ctx, .version = v});
//   options.observer = &metrics;                         // before Engine::Create
//   optional, once the engine exists; destroy it before the engine:
//   MetricsSampler sampler(&metrics, [&] { return engine->snapshot(); });
//   GET /metrics: auto r = metrics.render_for_query(engine->snapshot(), accept, query_string);
//                 res.set_content(r.body, r.content_type);
//   after every response: metrics.on_http_request(route_pattern, method, status);
// Without a sampler, each render takes the once-a-second history point and CPU reading.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "engine/engine_types.h"
#include "metrics/metrics_format.h"
#include "metrics/metrics_state.h"
#include "metrics/serving_metrics_options.h"

namespace strata {

class ServingMetrics final : public EngineObserver {
 public:
  explicit ServingMetrics(ServingMetricsOptions options);

  // Sets the model_name label and the context that bounds the token-count histograms, for
  // servers that know them only once the model has loaded. Call before the first request:
  // histograms that already hold observations keep their bounds.
  void set_model(std::string model_name, int max_model_len);

  void on_request_queued(uint64_t id, double arrival_s) override;
  void on_token(uint64_t id, double time_s, bool first) override;
  void on_request_finished(const RequestRecord& record) override;
  void on_step(const StepRecord& step) override;

  // Counts one HTTP response in http_requests_total. `handler` should be the route
  // ("/v1/chat/completions"), not the raw path, so the label set stays small.
  void on_http_request(std::string_view handler, std::string_view method, int status);

  // Takes a history point and a host CPU/RAM reading when at least a second has passed
  // since the last one. MetricsSampler calls it every second; render() calls it too.
  void sample(const EngineSnapshot& snap);
  void sample_at(const EngineSnapshot& snap, double now_mono_s);

  struct Rendered {
    std::string body;
    std::string content_type;
  };
  // GET /metrics: Prometheus text or JSON as choose_metrics_format() decides.
  // query_format: the "format" query parameter ("prometheus", "json" or "").
  // all_requests: ?requests=all, list every kept finished request.
  Rendered render(const EngineSnapshot& snap, std::string_view accept_header,
                  std::string_view query_format, bool all_requests);
  // The same, reading "format" and "requests=all" from the raw query string ("a=1&b=2").
  Rendered render_for_query(const EngineSnapshot& snap, std::string_view accept_header,
                            std::string_view query_string);
  std::string render_prometheus(const EngineSnapshot& snap);
  std::string render_json(const EngineSnapshot& snap, bool all_requests);

 private:
  bool sample_due(double now_mono_s) const;

  mutable std::mutex mu_;
  MetricsState state_;
};

}  // namespace strata
