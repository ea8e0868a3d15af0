#include "metrics/prom_render.h"

#include <array>
#include <string_view>

#include "metrics/prom_writer.h"
#include "metrics/strata_families.h"

namespace strata {
namespace {

// Labels every vllm: and strata: sample carries.
struct Common {
  std::array<PromLabel, 2> labels;
  explicit Common(const std::string& model) : labels{{{"model_name", model}, {"engine", "0"}}} {}
};

double kv_usage(const KvStats& kv) {
  return kv.blocks_total > 0 ? static_cast<double>(kv.blocks_used) / kv.blocks_total : 0.0;
}

void render_vllm_gauges(PromWriter& w, const Common& c, const MetricsState& st,
                        const EngineSnapshot& snap) {
  w.family("vllm:num_requests_running", "gauge", "Requests holding a slot (reading or generating).",
           c.labels);
  w.sample(snap.n_running);
  w.family("vllm:num_requests_waiting", "gauge", "Requests queued for a slot.", c.labels);
  w.sample(snap.n_waiting);
  if (snap.kv.blocks_total > 0) {
    w.family("vllm:kv_cache_usage_perc", "gauge",
             "Share of K/V blocks held by running requests (1 = full).", c.labels);
    w.sample(kv_usage(snap.kv));
    w.family("vllm:gpu_cache_usage_perc", "gauge",
             "Deprecated alias of vllm:kv_cache_usage_perc.", c.labels);
    w.sample(kv_usage(snap.kv));
  }
  w.family("vllm:cache_config_info", "gauge", "K/V cache configuration (value is 1).", c.labels);
  const std::string blocks = std::to_string(snap.kv.blocks_total);
  const std::string block_size = std::to_string(snap.kv.block_tokens);
  const std::array<PromLabel, 4> info = {
      {{"block_size", block_size},
       {"cache_dtype", snap.kv.dtype},
       {"enable_prefix_caching", st.options.enable_prefix_caching ? "True" : "False"},
       {"num_gpu_blocks", blocks}}};
  w.sample(info, 1.0);
}

void render_vllm_counters(PromWriter& w, const Common& c, const MetricsState& st,
                          const EngineSnapshot& snap) {
  w.family("vllm:prompt_tokens_total", "counter", "Prompt tokens of requests that got a slot.",
           c.labels);
  w.sample(st.prompt_tokens);
  w.family("vllm:generation_tokens_total", "counter", "Generated tokens.", c.labels);
  w.sample(st.generation_tokens);
  w.family("vllm:request_success_total", "counter", "Finished requests by finish reason.",
           c.labels);
  for (size_t i = 0; i < kFinishReasons.size(); ++i) {
    const std::array<PromLabel, 1> reason = {{{"finished_reason", kFinishReasons[i]}}};
    w.sample(reason, st.finished[i]);
  }
  w.family("vllm:num_preemptions_total", "counter",
           "Preemptions (Strata keeps a request in its slot to the end, so this stays 0).",
           c.labels);
  w.sample(0.0);
  w.family("vllm:prefix_cache_queries_total", "counter",
           "Prompt tokens looked up in the prefix cache.", c.labels);
  w.sample(static_cast<double>(snap.kv.prefix_queries_tokens));
  w.family("vllm:prefix_cache_hits_total", "counter",
           "Prompt tokens found in the prefix cache or the park store.", c.labels);
  w.sample(static_cast<double>(snap.kv.prefix_hit_tokens));
  w.family("vllm:spec_decode_num_drafts_total", "counter", "Speculative drafts.", c.labels);
  w.sample(st.spec_drafts);
  w.family("vllm:spec_decode_num_draft_tokens_total", "counter", "Speculative draft tokens.",
           c.labels);
  w.sample(st.spec_draft_tokens);
  w.family("vllm:spec_decode_num_accepted_tokens_total", "counter",
           "Accepted speculative tokens.", c.labels);
  w.sample(st.spec_accepted_tokens);
  w.family("vllm:spec_decode_num_accepted_tokens_per_pos_total", "counter",
           "Accepted speculative tokens by draft position.", c.labels);
  for (size_t pos = 0; pos < st.spec_accepted_per_pos.size(); ++pos) {
    const std::string position = std::to_string(pos);
    const std::array<PromLabel, 1> l = {{{"position", position}}};
    w.sample(l, st.spec_accepted_per_pos[pos]);
  }
}

void render_vllm_histograms(PromWriter& w, const Common& c, const MetricsState& st) {
  const VllmHistograms& h = st.vllm;
  struct Entry {
    const char* name;
    const char* help;
    const Histogram* hist;
  };
  const Entry entries[] = {
      {"vllm:time_to_first_token_seconds", "Arrival to first token, queue included.", &h.ttft_s},
      {"vllm:inter_token_latency_seconds", "Gap between two streamed tokens of a request.",
       &h.inter_token_s},
      {"vllm:time_per_output_token_seconds", "Deprecated alias of vllm:inter_token_latency_seconds.",
       &h.inter_token_s},
      {"vllm:request_time_per_output_token_seconds",
       "Per request: decode time over generated tokens after the first.", &h.request_tpot_s},
      {"vllm:e2e_request_latency_seconds", "Arrival to finish.", &h.e2e_s},
      {"vllm:request_queue_time_seconds", "Arrival to getting a slot.", &h.queue_s},
      {"vllm:request_inference_time_seconds", "Getting a slot to finish.", &h.inference_s},
      {"vllm:request_prefill_time_seconds", "Getting a slot to first token.", &h.prefill_s},
      {"vllm:request_decode_time_seconds", "First token to finish.", &h.decode_s},
      {"vllm:request_prompt_tokens", "Prompt length of finished requests.", &h.prompt_tokens},
      {"vllm:request_generation_tokens", "Generated tokens of finished requests.",
       &h.generation_tokens},
      {"vllm:request_max_num_generation_tokens",
       "Longest generation among a request's n sequences.", &h.max_generation_tokens},
      {"vllm:request_params_max_tokens", "The max_tokens a request asked for.",
       &h.params_max_tokens},
      {"vllm:request_params_n", "The n a request asked for.", &h.params_n},
      {"vllm:iteration_tokens_total", "Tokens (rows) per engine step.", &h.iteration_tokens},
  };
  for (const Entry& e : entries) {
    w.family(e.name, "histogram", e.help, c.labels);
    w.histogram(*e.hist);
  }
}

void render_process(PromWriter& w, const ProcessStats& p) {
  auto put = [&](const char* name, const char* type, const char* help,
                 const std::optional<double>& v) {
    if (!v) return;
    w.family(name, type, help);
    w.sample(*v);
  };
  put("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
      p.cpu_s);
  put("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
      p.resident_bytes);
  put("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", p.virtual_bytes);
  put("process_open_fds", "gauge", "Number of open file descriptors.", p.open_fds);
  put("process_max_fds", "gauge", "Maximum number of open file descriptors.", p.max_fds);
  put("process_start_time_seconds", "gauge",
      "Start time of the process since unix epoch in seconds.", p.start_time_s);
}

void render_http(PromWriter& w, const MetricsState& st) {
  w.family("http_requests_total", "counter", "HTTP responses by handler, method and status class.");
  for (const auto& [key, count] : st.http_requests) {
    const std::array<PromLabel, 3> l = {{{"handler", std::get<0>(key)},
                                         {"method", std::get<1>(key)},
                                         {"status", std::get<2>(key)}}};
    w.sample(l, count);
  }
}

}  // namespace

std::string render_prometheus(const MetricsState& state, const EngineSnapshot& snap,
                              const ProcessStats& process) {
  std::string out;
  out.reserve(48 * 1024);
  PromWriter w(&out);
  const Common c(state.options.model_name);
  render_vllm_gauges(w, c, state, snap);
  render_vllm_counters(w, c, state, snap);
  render_vllm_histograms(w, c, state);
  render_strata_families(w, c.labels, state, snap);
  render_process(w, process);
  render_http(w, state);
  return out;
}

}  // namespace strata
