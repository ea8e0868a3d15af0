#include "metrics/serving_metrics.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "metrics/metrics_sampler.h"

namespace strata {
namespace {

ServingMetricsOptions opts() {
  ServingMetricsOptions o;
  o.model_name = "m";
  o.max_model_len = 256;
  return o;
}

TEST(ServingMetrics, NegotiatesContentType) {
  ServingMetrics m(opts());
  EngineSnapshot snap;
  auto prom = m.render(snap, "text/plain;version=0.0.4", "", false);
  EXPECT_EQ(prom.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(prom.body.rfind("# HELP vllm:num_requests_running", 0), 0u);
  auto js = m.render(snap, "*/*", "", false);
  EXPECT_EQ(js.content_type, "application/json");
  EXPECT_TRUE(nlohmann::json::parse(js.body).contains("live"));
  auto forced = m.render(snap, "*/*", "prometheus", false);
  EXPECT_EQ(forced.content_type, prom.content_type);
}

TEST(ServingMetrics, ReadsFormatAndRequestsFromTheQueryString) {
  ServingMetrics m(opts());
  for (uint64_t id = 1; id <= 15; ++id) {
    RequestRecord rec;
    rec.id = id;
    rec.finish = FinishReason::kStop;
    m.on_request_finished(rec);
  }
  EngineSnapshot snap;
  auto some = nlohmann::json::parse(m.render_for_query(snap, "*/*", "").body);
  EXPECT_EQ(some["requests"].size(), 12u);
  auto all = nlohmann::json::parse(m.render_for_query(snap, "*/*", "?x=1&requests=all").body);
  EXPECT_EQ(all["requests"].size(), 15u);
  EXPECT_EQ(m.render_for_query(snap, "*/*", "format=prometheus").content_type,
            "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(m.render_for_query(snap, "text/plain", "requests=all&format=json").content_type,
            "application/json");
}

// Many threads feeding events at once: every event is counted exactly once.
TEST(ServingMetrics, EventsFromManyThreadsAreAllCounted) {
  ServingMetrics m(opts());
  constexpr int kThreads = 4, kRequests = 50, kTokens = 10;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&m, t] {
      for (int r = 0; r < kRequests; ++r) {
        uint64_t id = static_cast<uint64_t>(t) * 1000 + r;
        m.on_request_queued(id, 1.0);
        for (int k = 0; k < kTokens; ++k) m.on_token(id, 2.0 + k * 0.01, k == 0);
        RequestRecord rec;
        rec.id = id;
        rec.finish = FinishReason::kLength;
        rec.arrival_s = 1.0;
        rec.scheduled_s = 1.5;
        rec.first_token_s = 2.0;
        rec.finished_s = 2.1;
        rec.prompt_tokens = 3;
        rec.generated_tokens = kTokens;
        m.on_request_finished(rec);
        m.on_http_request("/v1/completions", "POST", 200);
      }
    });
  }
  for (auto& th : threads) th.join();
  auto j = nlohmann::json::parse(m.render_json(EngineSnapshot{}, false));
  EXPECT_EQ(j["totals"]["finished"]["length"], kThreads * kRequests);
  EXPECT_EQ(j["totals"]["generation_tokens"], kThreads * kRequests * kTokens);
  EXPECT_EQ(j["totals"]["prompt_tokens"], kThreads * kRequests * 3);
  EXPECT_EQ(j["totals"]["http_requests"], kThreads * kRequests);
  std::string text = m.render_prometheus(EngineSnapshot{});
  const std::string itl_count = "vllm:inter_token_latency_seconds_count{model_name=\"m\",engine=\"0\"} ";
  size_t at = text.find(itl_count);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(text.substr(at + itl_count.size(), text.find('\n', at) - at - itl_count.size()),
            "1800.0");  // 200 requests x 9 gaps
}

TEST(ServingMetrics, SetModelBeforeRequestsSetsLabelAndBuckets) {
  ServingMetrics m(opts());
  m.set_model("late \"name\"", 100);
  std::string text = m.render_prometheus(EngineSnapshot{});
  EXPECT_NE(text.find("vllm:num_requests_running{model_name=\"late \\\"name\\\"\",engine=\"0\"} 0.0"),
            std::string::npos);
  EXPECT_NE(text.find("vllm:request_prompt_tokens_bucket{model_name=\"late \\\"name\\\"\",engine=\"0\",le=\"100.0\"} 0.0"),
            std::string::npos);
  EXPECT_EQ(text.find("le=\"200.0\""), std::string::npos);
}

TEST(ServingMetrics, SetModelAfterRequestsKeepsObservedBuckets) {
  ServingMetrics m(opts());
  RequestRecord rec;
  rec.id = 1;
  rec.finish = FinishReason::kStop;
  rec.prompt_tokens = 3;
  m.on_request_finished(rec);
  m.set_model("m2", 100);
  std::string text = m.render_prometheus(EngineSnapshot{});
  EXPECT_NE(text.find("vllm:request_prompt_tokens_bucket{model_name=\"m2\",engine=\"0\",le=\"200.0\"} 1.0"),
            std::string::npos);
}

TEST(ServingMetrics, TokensWithoutOnTokenStillCountOnce) {
  ServingMetrics m(opts());
  m.on_token(1, 1.0, true);
  RequestRecord rec;
  rec.id = 1;
  rec.finish = FinishReason::kStop;
  rec.generated_tokens = 4;  // the engine saw 4; only one on_token arrived
  m.on_request_finished(rec);
  auto j = nlohmann::json::parse(m.render_json(EngineSnapshot{}, false));
  EXPECT_EQ(j["totals"]["generation_tokens"], 4.0);
}

TEST(ServingMetrics, SampleTakesAtMostOnePointPerSecond) {
  ServingMetrics m(opts());
  EngineSnapshot snap;
  m.sample_at(snap, 10.0);
  m.sample_at(snap, 10.5);
  m.sample_at(snap, 11.0);
  auto j = nlohmann::json::parse(m.render_json(snap, false));
  // The render itself samples at the real clock, which may add one more point.
  EXPECT_GE(j["history"]["points"].size(), 2u);
  EXPECT_LE(j["history"]["points"].size(), 3u);
}

TEST(MetricsSampler, SamplesAtOnceAndStopsPromptly) {
  ServingMetrics m(opts());
  std::atomic<int> calls{0};
  {
    MetricsSampler sampler(&m, [&] {
      ++calls;
      return EngineSnapshot{};
    }, 3600.0);
    while (calls.load() == 0) std::this_thread::yield();
  }
  EXPECT_EQ(calls.load(), 1);
  auto j = nlohmann::json::parse(m.render_json(EngineSnapshot{}, false));
  EXPECT_GE(j["history"]["points"].size(), 1u);
}

}  // namespace
}  // namespace strata
