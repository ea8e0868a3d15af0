#include "metrics/serving_metrics.h"

#include "base/clock.h"
#include "metrics/json_render.h"
#include "metrics/prom_render.h"
#include "metrics/proc_stats.h"

namespace strata {
namespace {

// A sampler ticking every second and a poller arriving a little early must not take two
// points for one second, nor skip one.
constexpr double kSampleSpacingS = 0.95;

// The value of `key` in a raw query string, or "" when absent.
std::string_view query_value(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    size_t eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      return eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    }
  }
  return {};
}

}  // namespace

ServingMetrics::ServingMetrics(ServingMetricsOptions options)
    : state_(options, monotonic_s(), wall_s()) {}

void ServingMetrics::set_model(std::string model_name, int max_model_len) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.set_model(std::move(model_name), max_model_len);
}

void ServingMetrics::on_request_queued(uint64_t id, double arrival_s) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.request_queued(id, arrival_s);
}

void ServingMetrics::on_token(uint64_t id, double time_s, bool first) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.token(id, time_s, first);
}

void ServingMetrics::on_request_finished(const RequestRecord& record) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.request_finished(record);
}

void ServingMetrics::on_step(const StepRecord& step) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.step(step);
}

void ServingMetrics::on_http_request(std::string_view handler, std::string_view method,
                                     int status) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.http_request(handler, method, status);
}

bool ServingMetrics::sample_due(double now_mono_s) const {
  return !state_.last_sample_mono_s || now_mono_s - *state_.last_sample_mono_s >= kSampleSpacingS;
}

void ServingMetrics::sample(const EngineSnapshot& snap) { sample_at(snap, monotonic_s()); }

void ServingMetrics::sample_at(const EngineSnapshot& snap, double now_mono_s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!sample_due(now_mono_s)) return;
  }
  // /proc is read outside the lock so engine events never wait on the file system.
  HostSample host;
  host.cpu_ticks = read_host_cpu_ticks(state_.options.proc_root);
  host.memory = read_host_memory(state_.options.proc_root);
  host.gpus = read_gpu_busy(state_.options.sys_root);
  std::lock_guard<std::mutex> lock(mu_);
  if (sample_due(now_mono_s)) state_.sample(snap, host, now_mono_s);
}

std::string ServingMetrics::render_prometheus(const EngineSnapshot& snap) {
  sample(snap);
  ProcessStats process = read_process_stats(state_.options.proc_root);
  std::lock_guard<std::mutex> lock(mu_);
  return ::strata::render_prometheus(state_, snap, process);
}

std::string ServingMetrics::render_json(const EngineSnapshot& snap, bool all_requests) {
  sample(snap);
  const double now = monotonic_s();
  std::lock_guard<std::mutex> lock(mu_);
  return ::strata::render_json(state_, snap, now, all_requests);
}

ServingMetrics::Rendered ServingMetrics::render(const EngineSnapshot& snap,
                                                std::string_view accept_header,
                                                std::string_view query_format, bool all_requests) {
  if (choose_metrics_format(accept_header, query_format) == MetricsFormat::kPrometheus) {
    return {render_prometheus(snap), std::string(kPrometheusContentType)};
  }
  return {render_json(snap, all_requests), std::string(kJsonContentType)};
}

ServingMetrics::Rendered ServingMetrics::render_for_query(const EngineSnapshot& snap,
                                                          std::string_view accept_header,
                                                          std::string_view query_string) {
  if (!query_string.empty() && query_string.front() == '?') query_string.remove_prefix(1);
  return render(snap, accept_header, query_value(query_string, "format"),
                query_value(query_string, "requests") == "all");
}

}  // namespace strata
