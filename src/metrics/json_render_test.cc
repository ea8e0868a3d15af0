#include "metrics/json_render.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace strata {
namespace {

using nlohmann::json;

EngineSnapshot snapshot() {
  EngineSnapshot snap;
  snap.model_name = "name-inside-the-file";  // the served id (options.model_name) wins
  snap.arch = "llama";
  snap.n_ctx = 512;
  snap.n_parallel = 2;
  snap.n_groups = 1;
  snap.n_stages = 1;
  snap.n_threads = 2;
  snap.n_running = 1;
  snap.slots = {{0, 0, SlotState::kReading, 30, 0, 0.0, 4, {}}, {1, 0, SlotState::kIdle, 0, 0, 0, 0, {}}};
  snap.kv.block_tokens = 16;
  snap.kv.blocks_total = 10;
  snap.kv.blocks_used = 5;
  snap.kv.dtype = "f16";
  snap.stage_busy_s = {2.0};
  snap.prefill_tok_s = 120.0;
  return snap;
}

RequestRecord finished(uint64_t id, double t) {
  RequestRecord r;
  r.id = id;
  r.finish = FinishReason::kStop;
  r.arrival_s = t;
  r.scheduled_s = t + 0.5;
  r.first_token_s = t + 1.0;
  r.finished_s = t + 3.0;
  r.prompt_tokens = 8;
  r.cached_tokens = 2;
  r.generated_tokens = 5;
  r.max_tokens = 16;
  r.slot = 1;
  return r;
}

class JsonRender : public ::testing::Test {
 protected:
  JsonRender() : st_(opts(), 100.0, 5000.0) {}
  static ServingMetricsOptions opts() {
    ServingMetricsOptions o;
    o.model_name = "stories260K";
    o.max_model_len = 512;
    o.version = "0.1.0";
    o.keep_requests = 20;
    return o;
  }
  json render(bool all = false) { return json::parse(render_json(st_, snap_, 110.0, all)); }
  MetricsState st_;
  EngineSnapshot snap_ = snapshot();
};

TEST_F(JsonRender, HasEverySection) {
  json j = render();
  for (const char* key : {"time", "engine", "live", "stages", "groups", "window", "kv", "park",
                          "requests", "requests_kept", "totals", "hardware", "history"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["engine"]["model"], "stories260K");
  EXPECT_EQ(j["engine"]["version"], "0.1.0");
  EXPECT_EQ(j["engine"]["context"], 512);
  EXPECT_EQ(j["engine"]["kv_block_tokens"], 16);
  EXPECT_EQ(j["time"]["uptime_s"], 10.0);
  EXPECT_EQ(j["time"]["wall_s"], 5010.0);
}

TEST_F(JsonRender, LiveShowsStateAndSlots) {
  json j = render();
  EXPECT_EQ(j["live"]["state"], "reading");
  EXPECT_EQ(j["live"]["running"], 1);
  EXPECT_EQ(j["live"]["prefill_tok_s"], 120.0);
  ASSERT_EQ(j["live"]["slots"].size(), 2u);
  EXPECT_EQ(j["live"]["slots"][0]["state"], "reading");
  EXPECT_EQ(j["live"]["slots"][0]["prompt_tokens"], 30);
  EXPECT_EQ(j["live"]["slots"][1]["state"], "idle");
  EXPECT_EQ(j["stages"][0]["busy_s"], 2.0);
  EXPECT_EQ(j["kv"]["usage"], 0.5);
  EXPECT_EQ(j["kv"]["free_blocks"], 5);
  EXPECT_EQ(j["park"]["enabled"], false);
  EXPECT_FALSE(j["park"].contains("bytes"));
}

TEST_F(JsonRender, ParkShowsStatesForHybridModelsOnly) {
  snap_.kv.park_capacity_bytes = 1 << 20;
  snap_.kv.parked_blocks = 7;
  snap_.kv.parked_states = 2;
  snap_.kv.restored_states = 1;
  json j = render();
  EXPECT_EQ(j["park"]["blocks"], 7);
  EXPECT_FALSE(j["park"].contains("states"));
  snap_.kv.state_snapshots_total = 6;
  j = render();
  EXPECT_EQ(j["park"]["states"], 2);
  EXPECT_EQ(j["park"]["restored_states"], 1);
}

TEST_F(JsonRender, GroupsCarryTheSnapshotsBusySeconds) {
  snap_.n_parallel = 4;
  snap_.n_groups = 2;
  snap_.group_busy_s = {1.25, 0.0};
  st_.step({0, 3, 3, 0, {}, {}, {}});
  json g = render()["groups"];
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0]["group"], 0);
  EXPECT_EQ(g[0]["windows"], 1);
  EXPECT_EQ(g[0]["rows"], 3);
  EXPECT_EQ(g[0]["busy_s"], 1.25);
  // Group 1 never ran a window: it is listed with zeros rather than left out.
  EXPECT_EQ(g[1]["group"], 1);
  EXPECT_EQ(g[1]["windows"], 0);
  EXPECT_EQ(g[1]["busy_s"], 0.0);
}

TEST_F(JsonRender, AJoinedWindowCountsForEveryGroupWithRowsInIt) {
  snap_.n_parallel = 6;
  snap_.n_groups = 3;
  snap_.joined_groups = true;
  snap_.group_busy_s = {0.5, 0.0, 0.25};
  const std::vector<int> rows = {2, 0, 3};
  StepRecord joined{-1, 5, 0, 5, {}, {}, {}};
  joined.group_rows = rows;
  st_.step(joined);
  st_.step({2, 4, 4, 0, {}, {}, {}});
  json j = render();
  EXPECT_EQ(j["engine"]["joined_groups"], true);
  json g = j["groups"];
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0]["windows"], 1);
  EXPECT_EQ(g[0]["rows"], 2);
  EXPECT_EQ(g[1]["windows"], 0);
  EXPECT_EQ(g[1]["rows"], 0);
  EXPECT_EQ(g[2]["windows"], 2);
  EXPECT_EQ(g[2]["rows"], 7);
}

TEST_F(JsonRender, NoBusySecondsWhenTheSnapshotHasNone) {
  st_.step({0, 3, 3, 0, {}, {}, {}});
  json g = render()["groups"];
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0]["windows"], 1);
  EXPECT_FALSE(g[0].contains("busy_s"));
}

TEST_F(JsonRender, NewestTwelveRequestsByDefaultAllOnRequest) {
  for (uint64_t id = 1; id <= 30; ++id) st_.request_finished(finished(id, id));
  json j = render();
  ASSERT_EQ(j["requests"].size(), 12u);
  EXPECT_EQ(j["requests"][0]["id"], 30);
  EXPECT_EQ(j["requests_kept"], 20);
  json all = render(true);
  ASSERT_EQ(all["requests"].size(), 20u);
  EXPECT_EQ(all["requests"][19]["id"], 11);
  const json& r = j["requests"][0];
  EXPECT_EQ(r["finish"], "stop");
  EXPECT_EQ(r["queue_s"], 0.5);
  EXPECT_EQ(r["ttft_s"], 1.0);
  EXPECT_EQ(r["e2e_s"], 3.0);
  EXPECT_EQ(r["decode_tok_s"], 2.0);
  EXPECT_EQ(r["hit_rate"], 0.25);
  EXPECT_EQ(r["finished_wall_s"], 30 + 3.0 + 4900.0);
  EXPECT_EQ(j["last"]["hit_rate"], 0.25);
  EXPECT_EQ(j["totals"]["finished"]["stop"], 30.0);
  EXPECT_EQ(j["totals"]["generation_tokens"], 150.0);
}

TEST_F(JsonRender, RequestAbortedInQueueHasNoTimingsItNeverReached) {
  RequestRecord r;
  r.id = 3;
  r.finish = FinishReason::kAbort;
  r.arrival_s = 1.0;
  r.finished_s = 2.0;
  r.prompt_tokens = 4;
  st_.request_finished(r);
  json q = render()["requests"][0];
  EXPECT_EQ(q["finish"], "abort");
  EXPECT_EQ(q["e2e_s"], 1.0);
  EXPECT_FALSE(q.contains("queue_s"));
  EXPECT_FALSE(q.contains("ttft_s"));
  EXPECT_FALSE(q.contains("decode_tok_s"));
}

TEST_F(JsonRender, HistoryKeepsTheLastSixtySeconds) {
  HostSample host;
  for (int s = 0; s < 75; ++s) {
    snap_.decode_tok_s = s;
    st_.sample(snap_, host, 100.0 + s);
  }
  json h = render()["history"];
  EXPECT_EQ(h["interval_s"], 1);
  ASSERT_EQ(h["points"].size(), 60u);
  EXPECT_EQ(h["points"][0]["tok_s"], 15.0);
  EXPECT_EQ(h["points"][59]["tok_s"], 74.0);
  EXPECT_EQ(h["points"][59]["kv_usage"], 0.5);
  EXPECT_EQ(h["points"][59]["t"], 5074.0);
}

MoeLoad two_layer_load() {
  MoeLoad m;
  m.n_layer = 2;
  m.n_expert = 4;
  m.n_expert_used = 2;
  m.window_s = 60;
  m.tokens = {6, 2, 2, 2, 3, 3, 3, 3};
  m.routed_tokens_total = 100;
  m.expert_bytes_read_total = 65536;
  return m;
}

TEST_F(JsonRender, MoeHeatmapIsLayersByExperts) {
  snap_.moe = two_layer_load();
  json m = render()["moe"];
  EXPECT_EQ(m["n_layer"], 2);
  EXPECT_EQ(m["n_expert"], 4);
  EXPECT_EQ(m["n_expert_used"], 2);
  EXPECT_EQ(m["window_s"], 60);
  EXPECT_EQ(m["tokens"], json::parse("[[6, 2, 2, 2], [3, 3, 3, 3]]"));
  EXPECT_EQ(m["expert_imbalance"], 2.0);
  EXPECT_EQ(m["routed_tokens"], 100);
  EXPECT_EQ(m["expert_read_bytes"], 65536);
}

TEST_F(JsonRender, MoeWithoutRecentTokensHasNoImbalance) {
  snap_.moe = two_layer_load();
  snap_.moe.tokens.assign(8, 0);
  json m = render()["moe"];
  EXPECT_EQ(m["tokens"][1], json::parse("[0, 0, 0, 0]"));
  EXPECT_FALSE(m.contains("expert_imbalance"));
  EXPECT_EQ(m["routed_tokens"], 100);
}

TEST_F(JsonRender, DenseModelHasNoMoeSection) {
  EXPECT_FALSE(render().contains("moe"));
}

TEST_F(JsonRender, HardwareFiguresOnlyWhenRead) {
  json hw = render()["hardware"];
  EXPECT_FALSE(hw.contains("cpu"));
  EXPECT_FALSE(hw.contains("ram_total_bytes"));
  HostSample host;
  host.memory = HostMemory{4096, 1024};
  host.cpu_ticks = HostCpuTicks{0, 0};
  st_.sample(snap_, host, 101.0);
  host.cpu_ticks = HostCpuTicks{25, 100};
  st_.sample(snap_, host, 102.0);
  hw = render()["hardware"];
  EXPECT_EQ(hw["cpu"], 0.25);
  EXPECT_EQ(hw["ram_total_bytes"], 4096);
  EXPECT_EQ(hw["ram_used_bytes"], 1024);
}

}  // namespace
}  // namespace strata
