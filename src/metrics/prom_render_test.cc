#include "metrics/prom_render.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>

namespace strata {
namespace {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
};

struct Family {
  std::string type;
  int help_lines = 0, type_lines = 0;
  std::vector<Sample> samples;
};

// Reads the exposition the way a strict scraper would and fails the test on anything odd:
// a header without samples, a sample outside its family, a repeated header.
std::map<std::string, Family> parse(const std::string& text) {
  std::map<std::string, Family> families;
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      std::string name = line.substr(7, line.find(' ', 7) - 7);
      if (!current.empty()) {
        EXPECT_FALSE(families[current].samples.empty()) << "orphan header " << current;
      }
      current = name;
      families[name].help_lines += 1;
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      std::string rest = line.substr(7);
      std::string name = rest.substr(0, rest.find(' '));
      EXPECT_EQ(name, current) << "TYPE without HELP";
      families[name].type = rest.substr(rest.find(' ') + 1);
      families[name].type_lines += 1;
      continue;
    }
    Sample s;
    size_t brace = line.find('{'), space = line.rfind(' ');
    s.name = line.substr(0, std::min(brace, space));
    if (brace != std::string::npos) {
      std::string body = line.substr(brace + 1, line.rfind('}') - brace - 1);
      size_t i = 0;
      while (i < body.size()) {
        size_t eq = body.find('=', i);
        std::string key = body.substr(i, eq - i), value;
        size_t j = eq + 2;
        for (; body[j] != '"'; ++j) {
          if (body[j] == '\\') {
            ++j;
            value.push_back(body[j] == 'n' ? '\n' : body[j]);
          } else {
            value.push_back(body[j]);
          }
        }
        s.labels[key] = value;
        i = j + 2;
      }
    }
    s.value = line.substr(space + 1);
    EXPECT_EQ(s.name.rfind(current, 0), 0u) << s.name << " outside family " << current;
    families[current].samples.push_back(s);
  }
  if (!current.empty()) {
    EXPECT_FALSE(families[current].samples.empty()) << "orphan " << current;
  }
  return families;
}

std::vector<std::string> le_values(const Family& f) {
  std::vector<std::string> out;
  for (const Sample& s : f.samples) {
    if (s.name.size() > 7 && s.name.substr(s.name.size() - 7) == "_bucket") {
      out.push_back(s.labels.at("le"));
    }
  }
  return out;
}

std::string value_of(const Family& f, const std::string& name,
                     const std::map<std::string, std::string>& must_have = {}) {
  for (const Sample& s : f.samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : must_have) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (match) return s.value;
  }
  return "<absent>";
}

EngineSnapshot busy_snapshot() {
  EngineSnapshot snap;
  snap.model_name = "stories260K";
  snap.arch = "llama";
  snap.n_ctx = 512;
  snap.n_parallel = 4;
  snap.n_groups = 2;
  snap.n_stages = 2;
  snap.n_threads = 2;
  snap.n_running = 2;
  snap.n_waiting = 1;
  snap.slots = {{0, 0, SlotState::kGenerating, 10, 5, 40.0, 7, {}},
                {1, 1, SlotState::kReading, 30, 0, 0.0, 8, {}},
                {2, 0, SlotState::kIdle, 0, 0, 0.0, 0, {}},
                {3, 1, SlotState::kIdle, 0, 0, 0.0, 0, {}}};
  snap.kv.block_tokens = 16;
  snap.kv.blocks_total = 128;
  snap.kv.blocks_used = 32;
  snap.kv.blocks_cached = 16;
  snap.kv.dtype = "f16";
  snap.kv.prefix_queries_tokens = 100;
  snap.kv.prefix_hit_tokens = 40;
  snap.stage_busy_s = {1.5, 0.25};
  snap.decode_tok_s = 40.0;
  snap.prefill_tok_s = 300.0;
  return snap;
}

ServingMetricsOptions options() {
  ServingMetricsOptions o;
  o.model_name = "stories260K";
  o.max_model_len = 512;
  o.version = "0.1.0";
  return o;
}

RequestRecord record(uint64_t id, FinishReason finish, double arrival, double scheduled,
                     double first, double finished, int prompt, int cached, int generated) {
  RequestRecord r;
  r.id = id;
  r.finish = finish;
  r.arrival_s = arrival;
  r.scheduled_s = scheduled;
  r.first_token_s = first;
  r.finished_s = finished;
  r.prompt_tokens = prompt;
  r.cached_tokens = cached;
  r.generated_tokens = generated;
  r.max_tokens = 64;
  r.slot = 0;
  return r;
}

// Two requests: one streamed three tokens and stopped; one aborted while queued.
void drive(MetricsState& st) {
  st.request_queued(1, 100.0);
  st.request_queued(2, 100.5);
  st.step({0, 12, 12, 0, {}, {}, {}});
  st.token(1, 100.75, true);
  st.token(1, 100.875, false);
  st.token(1, 101.0, false);
  st.step({1, 2, 0, 2, {}, {}, {}});
  st.request_finished(record(1, FinishReason::kStop, 100.0, 100.5, 100.75, 101.0, 12, 3, 3));
  st.request_finished(record(2, FinishReason::kAbort, 100.5, 0, 0, 102.0, 20, 0, 0));
  st.http_request("/v1/chat/completions", "POST", 200);
  st.http_request("/v1/chat/completions", "POST", 200);
  st.http_request("/metrics", "GET", 404);
}

ProcessStats process() {
  ProcessStats p;
  p.cpu_s = 1.25;
  p.resident_bytes = 4096;
  p.virtual_bytes = 8192;
  p.open_fds = 9;
  p.max_fds = 1024;
  p.start_time_s = 1.7e9;
  return p;
}

class PromRender : public ::testing::Test {
 protected:
  PromRender() : st_(options(), 0.0, 1000.0) {}
  std::map<std::string, Family> render() {
    text_ = render_prometheus(st_, snap_, process());
    return parse(text_);
  }
  MetricsState st_;
  EngineSnapshot snap_ = busy_snapshot();
  std::string text_;
};

TEST_F(PromRender, ExposesEveryVllmFamilyWithItsType) {
  drive(st_);
  auto f = render();
  const std::map<std::string, std::string> expected = {
      {"vllm:num_requests_running", "gauge"},
      {"vllm:num_requests_waiting", "gauge"},
      {"vllm:kv_cache_usage_perc", "gauge"},
      {"vllm:gpu_cache_usage_perc", "gauge"},
      {"vllm:cache_config_info", "gauge"},
      {"vllm:prompt_tokens_total", "counter"},
      {"vllm:generation_tokens_total", "counter"},
      {"vllm:request_success_total", "counter"},
      {"vllm:num_preemptions_total", "counter"},
      {"vllm:prefix_cache_queries_total", "counter"},
      {"vllm:prefix_cache_hits_total", "counter"},
      {"vllm:spec_decode_num_drafts_total", "counter"},
      {"vllm:spec_decode_num_draft_tokens_total", "counter"},
      {"vllm:spec_decode_num_accepted_tokens_total", "counter"},
      {"vllm:time_to_first_token_seconds", "histogram"},
      {"vllm:inter_token_latency_seconds", "histogram"},
      {"vllm:time_per_output_token_seconds", "histogram"},
      {"vllm:request_time_per_output_token_seconds", "histogram"},
      {"vllm:e2e_request_latency_seconds", "histogram"},
      {"vllm:request_queue_time_seconds", "histogram"},
      {"vllm:request_inference_time_seconds", "histogram"},
      {"vllm:request_prefill_time_seconds", "histogram"},
      {"vllm:request_decode_time_seconds", "histogram"},
      {"vllm:request_prompt_tokens", "histogram"},
      {"vllm:request_generation_tokens", "histogram"},
      {"vllm:request_max_num_generation_tokens", "histogram"},
      {"vllm:request_params_max_tokens", "histogram"},
      {"vllm:request_params_n", "histogram"},
      {"vllm:iteration_tokens_total", "histogram"},
  };
  std::map<std::string, std::string> got;
  for (const auto& [name, fam] : f) {
    if (name.rfind("vllm:", 0) == 0) got[name] = fam.type;
    EXPECT_EQ(fam.help_lines, 1) << name;
    EXPECT_EQ(fam.type_lines, 1) << name;
  }
  EXPECT_EQ(got, expected);
}

TEST_F(PromRender, VllmAndStrataSamplesCarryModelNameAndEngine) {
  drive(st_);
  for (const auto& [name, fam] : render()) {
    const bool labelled = name.rfind("vllm:", 0) == 0 || name.rfind("strata:", 0) == 0;
    for (const Sample& s : fam.samples) {
      EXPECT_EQ(labelled, s.labels.count("model_name") == 1) << s.name;
      if (!labelled) continue;
      EXPECT_EQ(s.labels.at("model_name"), "stories260K") << s.name;
      EXPECT_EQ(s.labels.at("engine"), "0") << s.name;
    }
  }
}

TEST_F(PromRender, HistogramsUseVllmBucketsPrintedLikePython) {
  auto f = render();
  const std::vector<std::string> ttft = {"0.001", "0.005", "0.01", "0.02", "0.04", "0.06",
                                         "0.08",  "0.1",   "0.25", "0.5",  "0.75", "1.0",
                                         "2.5",   "5.0",   "7.5",  "10.0", "20.0", "40.0",
                                         "80.0",  "160.0", "640.0", "2560.0", "+Inf"};
  const std::vector<std::string> itl = {"0.01", "0.025", "0.05", "0.075", "0.1",  "0.15", "0.2",
                                        "0.3",  "0.4",   "0.5",  "0.75",  "1.0",  "2.5",  "5.0",
                                        "7.5",  "10.0",  "20.0", "40.0",  "80.0", "+Inf"};
  const std::vector<std::string> latency = {
      "0.3",  "0.5",  "0.8",  "1.0",  "1.5",   "2.0",   "2.5",   "5.0",   "10.0",   "15.0",   "20.0",
      "30.0", "40.0", "50.0", "60.0", "120.0", "240.0", "480.0", "960.0", "1920.0", "7680.0", "+Inf"};
  const std::vector<std::string> tokens = {"1.0",  "2.0",   "5.0",   "10.0",  "20.0",
                                           "50.0", "100.0", "200.0", "500.0", "+Inf"};
  EXPECT_EQ(le_values(f["vllm:time_to_first_token_seconds"]), ttft);
  for (const char* n : {"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds",
                        "vllm:request_time_per_output_token_seconds"}) {
    EXPECT_EQ(le_values(f[n]), itl) << n;
  }
  for (const char* n : {"vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
                        "vllm:request_inference_time_seconds", "vllm:request_prefill_time_seconds",
                        "vllm:request_decode_time_seconds"}) {
    EXPECT_EQ(le_values(f[n]), latency) << n;
  }
  for (const char* n : {"vllm:request_prompt_tokens", "vllm:request_generation_tokens",
                        "vllm:request_max_num_generation_tokens", "vllm:request_params_max_tokens"}) {
    EXPECT_EQ(le_values(f[n]), tokens) << n;
  }
  EXPECT_EQ(le_values(f["vllm:request_params_n"]),
            (std::vector<std::string>{"1.0", "2.0", "5.0", "10.0", "20.0", "+Inf"}));
  EXPECT_EQ(le_values(f["vllm:iteration_tokens_total"]),
            (std::vector<std::string>{"1.0", "8.0", "16.0", "32.0", "64.0", "128.0", "256.0",
                                      "512.0", "1024.0", "2048.0", "4096.0", "8192.0", "16384.0",
                                      "+Inf"}));
}

TEST(PromRenderLongContext, TokenBucketsReachAMillionAsGoStyleExponent) {
  ServingMetricsOptions o = options();
  o.max_model_len = 1000000;
  MetricsState st(o, 0.0, 0.0);
  auto f = parse(render_prometheus(st, busy_snapshot(), {}));
  std::vector<std::string> le = le_values(f["vllm:request_prompt_tokens"]);
  ASSERT_GE(le.size(), 3u);
  EXPECT_EQ(le[le.size() - 3], "500000.0");
  EXPECT_EQ(le[le.size() - 2], "1e+06");
  EXPECT_EQ(le.back(), "+Inf");
}

TEST_F(PromRender, ARequestForSeveralChoicesIsOneObservationOfItsN) {
  for (int c = 0; c < 3; ++c) {
    RequestRecord r = record(static_cast<uint64_t>(10 + c), FinishReason::kStop, 100.0, 100.5, 100.75, 101.0, 12, 0, 3);
    r.n = 3;
    r.choice = c;
    st_.request_finished(r);
  }
  auto f = render();
  const Family& n = f["vllm:request_params_n"];
  EXPECT_EQ(value_of(n, "vllm:request_params_n_count"), "1.0");
  EXPECT_EQ(value_of(n, "vllm:request_params_n_sum"), "3.0");
  // Each choice is a request of its own everywhere else.
  EXPECT_EQ(value_of(f["vllm:request_success_total"], "vllm:request_success_total", {{"finished_reason", "stop"}}),
            "3.0");
}

TEST_F(PromRender, InfBucketEqualsCountInEveryHistogram) {
  drive(st_);
  int histograms = 0;
  for (const auto& [name, fam] : render()) {
    if (fam.type != "histogram") continue;
    ++histograms;
    EXPECT_EQ(value_of(fam, name + "_bucket", {{"le", "+Inf"}}), value_of(fam, name + "_count"))
        << name;
  }
  EXPECT_EQ(histograms, 16);
}

TEST_F(PromRender, CountersMoveByTheEventsSeen) {
  drive(st_);
  auto f = render();
  EXPECT_EQ(value_of(f["vllm:prompt_tokens_total"], "vllm:prompt_tokens_total"), "12.0");
  EXPECT_EQ(value_of(f["vllm:generation_tokens_total"], "vllm:generation_tokens_total"), "3.0");
  const Family& done = f["vllm:request_success_total"];
  EXPECT_EQ(value_of(done, "vllm:request_success_total", {{"finished_reason", "stop"}}), "1.0");
  EXPECT_EQ(value_of(done, "vllm:request_success_total", {{"finished_reason", "abort"}}), "1.0");
  EXPECT_EQ(value_of(done, "vllm:request_success_total", {{"finished_reason", "length"}}), "0.0");
  EXPECT_EQ(value_of(done, "vllm:request_success_total", {{"finished_reason", "error"}}), "0.0");
  const Family& itl = f["vllm:inter_token_latency_seconds"];
  EXPECT_EQ(value_of(itl, "vllm:inter_token_latency_seconds_count"), "2.0");
  EXPECT_EQ(value_of(itl, "vllm:inter_token_latency_seconds_sum"), "0.25");
  // TTFT counts from arrival (queue included): 0.75 s.
  const Family& ttft = f["vllm:time_to_first_token_seconds"];
  EXPECT_EQ(value_of(ttft, "vllm:time_to_first_token_seconds_count"), "1.0");
  EXPECT_EQ(value_of(ttft, "vllm:time_to_first_token_seconds_sum"), "0.75");
  EXPECT_EQ(value_of(ttft, "vllm:time_to_first_token_seconds_bucket", {{"le", "0.5"}}), "0.0");
  EXPECT_EQ(value_of(ttft, "vllm:time_to_first_token_seconds_bucket", {{"le", "0.75"}}), "1.0");
  const Family& e2e = f["vllm:e2e_request_latency_seconds"];
  EXPECT_EQ(value_of(e2e, "vllm:e2e_request_latency_seconds_count"), "2.0");
  EXPECT_EQ(value_of(e2e, "vllm:e2e_request_latency_seconds_sum"), "2.5");
  EXPECT_EQ(value_of(f["vllm:request_queue_time_seconds"], "vllm:request_queue_time_seconds_count"),
            "1.0");
  EXPECT_EQ(value_of(f["vllm:iteration_tokens_total"], "vllm:iteration_tokens_total_sum"), "14.0");
  const Family& http = f["http_requests_total"];
  EXPECT_EQ(value_of(http, "http_requests_total",
                     {{"handler", "/v1/chat/completions"}, {"method", "POST"}, {"status", "2xx"}}),
            "2.0");
  EXPECT_EQ(value_of(http, "http_requests_total", {{"handler", "/metrics"}, {"status", "4xx"}}),
            "1.0");
  EXPECT_EQ(value_of(f["strata:group_rows_total"], "strata:group_rows_total", {{"group", "1"}}),
            "2.0");
  // The aborted request never read its prompt, so the last hit rate is request 1's: 3 of 12.
  EXPECT_EQ(value_of(f["strata:last_hit_rate"], "strata:last_hit_rate"), "0.25");
}

TEST_F(PromRender, LastHitRateIsTheLastRequestWithAPrompt) {
  st_.request_finished(record(5, FinishReason::kLength, 1, 2, 3, 4, 40, 30, 8));
  auto f = render();
  EXPECT_EQ(value_of(f["strata:last_hit_rate"], "strata:last_hit_rate"), "0.75");
}

TEST_F(PromRender, FinishReasonsArePrecreatedAtZero) {
  auto f = render();
  const Family& done = f["vllm:request_success_total"];
  ASSERT_EQ(done.samples.size(), 4u);
  for (const char* r : {"stop", "length", "abort", "error"}) {
    EXPECT_EQ(value_of(done, "vllm:request_success_total", {{"finished_reason", r}}), "0.0") << r;
  }
}

TEST_F(PromRender, StrataFamiliesShowTheSnapshot) {
  auto f = render();
  const Family& state = f["strata:live_state"];
  EXPECT_EQ(value_of(state, "strata:live_state", {{"state", "generating"}}), "1.0");
  EXPECT_EQ(value_of(state, "strata:live_state", {{"state", "reading"}}), "0.0");
  EXPECT_EQ(value_of(state, "strata:live_state", {{"state", "idle"}}), "0.0");
  EXPECT_EQ(value_of(f["strata:live_slots"], "strata:live_slots", {{"state", "idle"}}), "2.0");
  EXPECT_EQ(value_of(f["strata:live_tok_s"], "strata:live_tok_s"), "40.0");
  EXPECT_EQ(value_of(f["strata:live_prefill_tok_s"], "strata:live_prefill_tok_s"), "300.0");
  EXPECT_EQ(value_of(f["strata:stage_busy_seconds_total"], "strata:stage_busy_seconds_total",
                     {{"stage", "1"}}),
            "0.25");
  EXPECT_EQ(value_of(f["strata:kv_free_blocks"], "strata:kv_free_blocks"), "80.0");
  EXPECT_EQ(value_of(f["vllm:kv_cache_usage_perc"], "vllm:kv_cache_usage_perc"), "0.25");
  EXPECT_EQ(f["strata:stage_busy_seconds_total"].type, "counter");
  EXPECT_EQ(f["strata:window_rows"].type, "histogram");
  const Family& engine = f["strata:engine_info"];
  ASSERT_EQ(engine.samples.size(), 1u);
  EXPECT_EQ(engine.samples[0].labels.at("stages"), "2");
  EXPECT_EQ(engine.samples[0].labels.at("windows"), "per_group");
  snap_.joined_groups = true;
  EXPECT_EQ(render()["strata:engine_info"].samples.at(0).labels.at("windows"), "joined");
  const Family& info = f["vllm:cache_config_info"];
  ASSERT_EQ(info.samples.size(), 1u);
  EXPECT_EQ(info.samples[0].labels.at("block_size"), "16");
  EXPECT_EQ(info.samples[0].labels.at("num_gpu_blocks"), "128");
  EXPECT_EQ(info.samples[0].labels.at("cache_dtype"), "f16");
  EXPECT_EQ(info.samples[0].labels.at("enable_prefix_caching"), "True");
  EXPECT_EQ(value_of(f["process_open_fds"], "process_open_fds"), "9.0");
  EXPECT_EQ(value_of(f["process_start_time_seconds"], "process_start_time_seconds"), "1.7e+09");
}

TEST_F(PromRender, GroupBusySecondsAreTheSnapshotsPerGroup) {
  snap_.group_busy_s = {1.0 / 3.0, 0.0};
  auto f = render();
  const Family& busy = f["strata:group_busy_seconds_total"];
  EXPECT_EQ(busy.type, "counter");
  EXPECT_EQ(busy.help_lines, 1);
  EXPECT_EQ(busy.type_lines, 1);
  ASSERT_EQ(busy.samples.size(), 2u);
  for (size_t g = 0; g < 2; ++g) {
    const Sample& s = busy.samples[g];
    EXPECT_EQ(s.name, "strata:group_busy_seconds_total");
    const std::map<std::string, std::string> labels = {
        {"model_name", "stories260K"}, {"engine", "0"}, {"group", std::to_string(g)}};
    EXPECT_EQ(s.labels, labels);
    // Shortest round-trip digits: reading the text back gives the snapshot's double.
    EXPECT_EQ(std::stod(s.value), snap_.group_busy_s[g]) << s.value;
  }
  EXPECT_EQ(busy.samples[0].value, "0.3333333333333333");
  EXPECT_EQ(busy.samples[1].value, "0.0");
}

TEST_F(PromRender, GroupBusySecondsAbsentWithoutGroupsInTheSnapshot) {
  drive(st_);  // steps alone give windows and rows, not busy time
  snap_.group_busy_s.clear();
  auto f = render();
  EXPECT_EQ(f.count("strata:group_busy_seconds_total"), 0u);
  EXPECT_EQ(text_.find("group_busy"), std::string::npos);
}

TEST_F(PromRender, GroupsThatNeverRanAWindowCountZero) {
  drive(st_);  // steps of groups 0 and 1
  snap_.group_busy_s = {0.5, 0.25, 0.0};
  auto f = render();
  for (const char* name : {"strata:group_windows_total", "strata:group_rows_total",
                           "strata:group_busy_seconds_total"}) {
    EXPECT_EQ(f[name].samples.size(), 3u) << name;
    EXPECT_EQ(value_of(f[name], name, {{"group", "2"}}), "0.0") << name;
  }
  EXPECT_EQ(value_of(f["strata:group_windows_total"], "strata:group_windows_total",
                     {{"group", "0"}}),
            "1.0");
}

TEST_F(PromRender, MoeFamiliesAreLowCardinality) {
  snap_.moe.n_layer = 2;
  snap_.moe.n_expert = 4;
  snap_.moe.n_expert_used = 2;
  snap_.moe.window_s = 60;
  snap_.moe.tokens = {6, 2, 2, 2, 12, 4, 0, 0};
  snap_.moe.routed_tokens_total = 400;
  snap_.moe.expert_bytes_read_total = 1 << 20;
  auto f = render();
  EXPECT_EQ(f["strata:moe_expert_imbalance"].type, "gauge");
  EXPECT_EQ(value_of(f["strata:moe_expert_imbalance"], "strata:moe_expert_imbalance"), "3.0");
  EXPECT_EQ(f["strata:moe_routed_tokens_total"].type, "counter");
  EXPECT_EQ(value_of(f["strata:moe_routed_tokens_total"], "strata:moe_routed_tokens_total"), "400.0");
  EXPECT_EQ(value_of(f["strata:moe_expert_read_bytes_total"], "strata:moe_expert_read_bytes_total"),
            "1.048576e+06");  // Python repr, as prometheus_client prints it
  // One series each, whatever the number of experts: no layer or expert labels.
  for (const char* name : {"strata:moe_expert_imbalance", "strata:moe_routed_tokens_total",
                           "strata:moe_expert_read_bytes_total"}) {
    ASSERT_EQ(f[name].samples.size(), 1u) << name;
    EXPECT_EQ(f[name].samples[0].labels.count("expert"), 0u) << name;
    EXPECT_EQ(f[name].samples[0].labels.count("layer"), 0u) << name;
  }
  snap_.moe.tokens.assign(8, 0);  // a quiet minute: no imbalance to report, counters stay
  f = render();
  EXPECT_EQ(f.count("strata:moe_expert_imbalance"), 0u);
  EXPECT_EQ(value_of(f["strata:moe_routed_tokens_total"], "strata:moe_routed_tokens_total"), "400.0");
}

TEST_F(PromRender, DenseModelHasNoMoeFamilies) {
  render();
  EXPECT_EQ(text_.find("strata:moe_"), std::string::npos);
}

TEST_F(PromRender, HybridModelsShowTheirStateSnapshots) {
  snap_.kv.state_snapshots_total = 12;
  snap_.kv.state_snapshots_used = 5;
  auto f = render();
  EXPECT_EQ(value_of(f["strata:state_snapshots_capacity"], "strata:state_snapshots_capacity"), "12.0");
  EXPECT_EQ(value_of(f["strata:state_snapshots_used"], "strata:state_snapshots_used"), "5.0");
  EXPECT_EQ(f["strata:state_snapshots_used"].type, "gauge");
}

TEST_F(PromRender, SlidingWindowPoolShowsOnlyForModelsThatHaveOne) {
  auto f = render();
  EXPECT_EQ(f.count("strata:kv_window_capacity_blocks"), 0u);
  snap_.kv.window_tokens = 1024;
  snap_.kv.window_blocks_total = 300;
  snap_.kv.window_blocks_used = 130;
  snap_.kv.window_blocks_cached = 40;
  f = render();
  EXPECT_EQ(value_of(f["strata:kv_window_tokens"], "strata:kv_window_tokens"), "1024.0");
  EXPECT_EQ(value_of(f["strata:kv_window_capacity_blocks"], "strata:kv_window_capacity_blocks"), "300.0");
  EXPECT_EQ(value_of(f["strata:kv_window_used_blocks"], "strata:kv_window_used_blocks"), "130.0");
  EXPECT_EQ(value_of(f["strata:kv_window_cached_blocks"], "strata:kv_window_cached_blocks"), "40.0");
  EXPECT_EQ(f["strata:kv_window_used_blocks"].type, "gauge");
}

TEST_F(PromRender, ParkedStatesShowForHybridModelsThatPark) {
  snap_.kv.park_capacity_bytes = 1 << 20;
  snap_.kv.parked_states = 3;
  snap_.kv.restored_states = 2;
  auto f = render();
  EXPECT_EQ(f.count("strata:park_states"), 0u);  // not a hybrid model
  snap_.kv.state_snapshots_total = 12;
  f = render();
  EXPECT_EQ(value_of(f["strata:park_states"], "strata:park_states"), "3.0");
  EXPECT_EQ(f["strata:park_states"].type, "gauge");
  EXPECT_EQ(value_of(f["strata:park_restored_states_total"], "strata:park_restored_states_total"), "2.0");
  EXPECT_EQ(f["strata:park_restored_states_total"].type, "counter");
}

TEST_F(PromRender, ValuesTheServerDoesNotHaveAreAbsentNotZero) {
  snap_.kv = KvStats{};  // no pool, no park store
  auto f = parse(render_prometheus(st_, snap_, ProcessStats{}));
  for (const char* absent :
       {"strata:cpu", "strata:ram_used_bytes", "strata:ram_total_bytes", "strata:gpu_util",
        "strata:park_blocks", "strata:park_bytes", "strata:last_hit_rate", "strata:state_snapshots_used",
        "vllm:kv_cache_usage_perc", "strata:kv_usage", "process_cpu_seconds_total",
        "process_open_fds", "http_requests_total",
        "vllm:spec_decode_num_accepted_tokens_per_pos_total"}) {
    EXPECT_EQ(f.count(absent), 0u) << absent;
  }
}

TEST_F(PromRender, HostFiguresAppearOnceSampledTwice) {
  HostSample h;
  h.cpu_ticks = HostCpuTicks{10, 100};
  h.memory = HostMemory{2048, 1024};
  st_.sample(snap_, h, 1.0);
  auto f = render();
  EXPECT_EQ(f.count("strata:cpu"), 0u);  // one reading gives no rate yet
  EXPECT_EQ(value_of(f["strata:ram_used_bytes"], "strata:ram_used_bytes"), "1024.0");
  h.cpu_ticks = HostCpuTicks{40, 200};
  h.gpus = {{0, 0.5}};
  st_.sample(snap_, h, 2.0);
  f = render();
  EXPECT_EQ(value_of(f["strata:cpu"], "strata:cpu"), "0.3");
  EXPECT_EQ(value_of(f["strata:gpu_util"], "strata:gpu_util", {{"gpu", "0"}}), "0.5");
}

TEST_F(PromRender, SpeculativePositionsArePrecreatedWhenConfigured) {
  ServingMetricsOptions o = options();
  o.num_speculative_tokens = 3;
  MetricsState st(o, 0.0, 0.0);
  auto f = parse(render_prometheus(st, snap_, {}));
  const Family& per_pos = f["vllm:spec_decode_num_accepted_tokens_per_pos_total"];
  ASSERT_EQ(per_pos.samples.size(), 3u);
  EXPECT_EQ(per_pos.samples[2].labels.at("position"), "2");
}

TEST_F(PromRender, ModelNameIsEscaped) {
  ServingMetricsOptions o = options();
  o.model_name = "we\"ird\\name\n";
  MetricsState st(o, 0.0, 0.0);
  std::string text = render_prometheus(st, snap_, {});
  EXPECT_NE(text.find("model_name=\"we\\\"ird\\\\name\\n\""), std::string::npos);
  auto f = parse(text);
  EXPECT_EQ(f["vllm:num_requests_running"].samples.at(0).labels.at("model_name"), o.model_name);
}

TEST_F(PromRender, RenderingChangesNothing) {
  drive(st_);
  std::string first = render_prometheus(st_, snap_, process());
  std::string second = render_prometheus(st_, snap_, process());
  ASSERT_EQ(first.size(), second.size());
  EXPECT_EQ(0, memcmp(first.data(), second.data(), first.size()));
}

TEST_F(PromRender, CountersNeverGoDownAsEventsArrive) {
  drive(st_);
  auto before = render();
  st_.request_queued(9, 200.0);
  st_.token(9, 200.5, true);
  st_.request_finished(record(9, FinishReason::kLength, 200.0, 200.1, 200.5, 201.0, 4, 0, 1));
  auto after = render();
  for (const auto& [name, fam] : after) {
    if (fam.type != "counter" && fam.type != "histogram") continue;
    for (const Sample& s : fam.samples) {
      if (s.name.size() > 4 && s.name.substr(s.name.size() - 4) == "_sum") continue;
      std::string old = value_of(before[name], s.name, s.labels);
      if (old == "<absent>") continue;
      EXPECT_GE(std::stod(s.value), std::stod(old)) << s.name;
    }
  }
}

}  // namespace
}  // namespace strata
