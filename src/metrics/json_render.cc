#include "metrics/json_render.h"

#include <nlohmann/json.hpp>

#include "metrics/moe_imbalance.h"

namespace strata {
namespace {

using Json = nlohmann::ordered_json;

Json engine_json(const MetricsState& st, const EngineSnapshot& snap) {
  // The served model id (what clients put in "model"), as the model_name label.
  const std::string& model = st.options.model_name.empty() ? snap.model_name : st.options.model_name;
  return Json{{"model", model},
              {"arch", snap.arch},
              {"version", st.options.version},
              {"context", snap.n_ctx},
              {"parallel", snap.n_parallel},
              {"groups", snap.n_groups},
              {"stages", snap.n_stages},
              {"joined_groups", snap.joined_groups},
              {"threads", snap.n_threads},
              {"kv_block_tokens", snap.kv.block_tokens},
              {"kv_dtype", snap.kv.dtype},
              {"prefix_caching", st.options.enable_prefix_caching},
              {"config", Json{{"file", st.options.config_file}, {"from_file", st.options.config_keys}}},
              {"steps", snap.steps}};
}

Json live_json(const EngineSnapshot& snap) {
  Json slots = Json::array();
  for (const SlotInfo& s : snap.slots) {
    slots.push_back(Json{{"slot", s.slot},
                         {"group", s.group},
                         {"state", slot_state_label(s.state)},
                         {"prompt_tokens", s.prompt_tokens},
                         {"generated", s.generated},
                         {"tok_s", s.tok_s},
                         {"request_id", s.request_id},
                         {"spec_draft_tokens", s.spec.draft_tokens},
                         {"spec_accepted_tokens", s.spec.accepted_tokens}});
  }
  Json spec{{"max_draft_tokens", snap.spec_max_draft_tokens},
            {"drafts", snap.spec.drafts},
            {"draft_tokens", snap.spec.draft_tokens},
            {"accepted_tokens", snap.spec.accepted_tokens},
            {"accepted_per_pos", snap.spec_accepted_per_pos}};
  if (snap.spec.draft_tokens > 0) {
    spec["acceptance"] = static_cast<double>(snap.spec.accepted_tokens) / static_cast<double>(snap.spec.draft_tokens);
  }
  return Json{{"state", engine_state_label(snap)},
              {"spec", std::move(spec)},
              {"running", snap.n_running},
              {"waiting", snap.n_waiting},
              {"tok_s", snap.decode_tok_s},
              {"prefill_tok_s", snap.prefill_tok_s},
              {"slots", std::move(slots)}};
}

Json histogram_json(const Histogram& h) {
  Json buckets = Json::array();
  uint64_t cumulative = 0;
  for (size_t i = 0; i < h.bounds().size(); ++i) {
    cumulative += h.bucket(i);
    buckets.push_back(Json{{"le", h.bounds()[i]}, {"count", cumulative}});
  }
  Json j{{"count", h.count()}, {"sum", h.sum()}};
  if (h.count() > 0) j["mean"] = h.sum() / static_cast<double>(h.count());
  j["buckets"] = std::move(buckets);
  return j;
}

void add_work(Json& j, const MetricsState& st, const EngineSnapshot& snap) {
  Json stages = Json::array();
  for (size_t i = 0; i < snap.stage_busy_s.size(); ++i) {
    stages.push_back(Json{{"stage", i}, {"busy_s", snap.stage_busy_s[i]}});
  }
  Json groups = Json::array();
  for (size_t g = 0; g < n_listed_groups(st, snap); ++g) {
    const GroupCounters c = group_counters(st, g);
    Json group{{"group", g}, {"windows", c.windows}, {"rows", c.rows}};
    if (g < snap.group_busy_s.size()) group["busy_s"] = snap.group_busy_s[g];
    groups.push_back(std::move(group));
  }
  j["stages"] = std::move(stages);
  j["groups"] = std::move(groups);
  j["window"] = Json{{"rows", histogram_json(st.window_rows)}};
}

void add_kv_and_park(Json& j, const EngineSnapshot& snap) {
  const KvStats& kv = snap.kv;
  Json k{{"block_tokens", kv.block_tokens}, {"dtype", kv.dtype}};
  if (kv.blocks_total > 0) {
    k["capacity_blocks"] = kv.blocks_total;
    k["used_blocks"] = kv.blocks_used;
    k["cached_blocks"] = kv.blocks_cached;
    k["free_blocks"] = std::max(0, kv.blocks_total - kv.blocks_used - kv.blocks_cached);
    k["usage"] = static_cast<double>(kv.blocks_used) / kv.blocks_total;
  }
  if (kv.window_blocks_total > 0) {
    k["window"] = Json{{"tokens", kv.window_tokens},
                       {"capacity_blocks", kv.window_blocks_total},
                       {"used_blocks", kv.window_blocks_used},
                       {"cached_blocks", kv.window_blocks_cached}};
  }
  k["evictions"] = kv.evictions;
  k["reused_bytes"] = kv.bytes_reused;
  k["prefix_queried_tokens"] = kv.prefix_queries_tokens;
  k["prefix_hit_tokens"] = kv.prefix_hit_tokens;
  if (kv.prefix_queries_tokens > 0) {
    k["prefix_hit_rate"] =
        static_cast<double>(kv.prefix_hit_tokens) / static_cast<double>(kv.prefix_queries_tokens);
  }
  if (kv.state_snapshots_total > 0) {
    k["state_snapshots"] = Json{{"capacity", kv.state_snapshots_total}, {"used", kv.state_snapshots_used}};
  }
  j["kv"] = std::move(k);
  Json p{{"enabled", kv.park_capacity_bytes > 0}};
  if (kv.park_capacity_bytes > 0) {
    p["blocks"] = kv.parked_blocks;
    p["bytes"] = kv.parked_bytes;
    p["capacity_bytes"] = kv.park_capacity_bytes;
    p["parks"] = kv.parks;
    p["restores"] = kv.restores;
    p["restored_blocks"] = kv.restored_blocks;
    p["written_bytes"] = kv.park_bytes_written;
    if (kv.state_snapshots_total > 0) {
      p["states"] = kv.parked_states;
      p["restored_states"] = kv.restored_states;
    }
  }
  j["park"] = std::move(p);
}

// Durations of -1 mean "never reached" and are left out.
void put_if_known(Json& j, const char* key, double v) {
  if (v >= 0) j[key] = v;
}

Json request_json(const RequestSummary& r) {
  const int fi = finish_index(r.finish);
  Json j{{"id", r.id},
         {"finish", fi >= 0 ? kFinishReasons[fi] : "none"},
         {"prompt_tokens", r.prompt_tokens},
         {"cached_tokens", r.cached_tokens},
         {"generated_tokens", r.generated_tokens},
         {"max_tokens", r.max_tokens},
         {"n", r.n},
         {"slot", r.slot},
         {"finished_wall_s", r.finished_wall_s}};
  put_if_known(j, "queue_s", r.queue_s);
  put_if_known(j, "ttft_s", r.ttft_s);
  put_if_known(j, "prefill_s", r.prefill_s);
  put_if_known(j, "decode_s", r.decode_s);
  put_if_known(j, "e2e_s", r.e2e_s);
  put_if_known(j, "decode_tok_s", r.decode_tok_s);
  put_if_known(j, "hit_rate", r.hit_rate);
  return j;
}

void add_requests(Json& j, const MetricsState& st, bool all_requests) {
  Json list = Json::array();
  const size_t limit = all_requests ? st.recent.size() : st.options.show_requests;
  for (auto it = st.recent.rbegin(); it != st.recent.rend() && list.size() < limit; ++it) {
    list.push_back(request_json(*it));
  }
  j["requests"] = std::move(list);
  j["requests_kept"] = st.recent.size();
  if (st.last) j["last"] = request_json(*st.last);
}

void add_totals_and_hardware(Json& j, const MetricsState& st) {
  Json finished = Json::object();
  double n_finished = 0;
  for (size_t i = 0; i < kFinishReasons.size(); ++i) {
    finished[kFinishReasons[i]] = st.finished[i];
    n_finished += st.finished[i];
  }
  double n_http = 0;
  for (const auto& [key, count] : st.http_requests) n_http += count;
  j["totals"] = Json{{"requests", n_finished},
                     {"finished", std::move(finished)},
                     {"prompt_tokens", st.prompt_tokens},
                     {"generation_tokens", st.generation_tokens},
                     {"http_requests", n_http}};
  Json hw = Json::object();
  if (st.cpu_share) hw["cpu"] = *st.cpu_share;
  if (st.memory) {
    hw["ram_used_bytes"] = st.memory->used_bytes;
    hw["ram_total_bytes"] = st.memory->total_bytes;
  }
  Json gpus = Json::array();
  for (const GpuBusy& g : st.gpus) gpus.push_back(Json{{"gpu", g.gpu}, {"util", g.share}});
  hw["gpus"] = std::move(gpus);
  j["hardware"] = std::move(hw);
}

// The Monitor's expert-load heatmap: tokens[layer][expert] over the last window_s seconds.
// Absent for a dense model.
void add_moe(Json& j, const EngineSnapshot& snap) {
  const MoeLoad& moe = snap.moe;
  if (moe.n_expert <= 0 || moe.tokens.size() != static_cast<size_t>(moe.n_layer) * moe.n_expert) return;
  Json tokens = Json::array();
  for (int l = 0; l < moe.n_layer; ++l) {
    const auto first = moe.tokens.begin() + static_cast<ptrdiff_t>(l) * moe.n_expert;
    tokens.push_back(Json(std::vector<uint64_t>(first, first + moe.n_expert)));
  }
  Json m{{"n_layer", moe.n_layer},
         {"n_expert", moe.n_expert},
         {"n_expert_used", moe.n_expert_used},
         {"window_s", moe.window_s},
         {"tokens", std::move(tokens)}};
  if (std::optional<double> imbalance = moe_expert_imbalance(moe)) m["expert_imbalance"] = *imbalance;
  m["routed_tokens"] = moe.routed_tokens_total;
  m["expert_read_bytes"] = moe.expert_bytes_read_total;
  j["moe"] = std::move(m);
}

Json history_json(const MetricsState& st) {
  Json points = Json::array();
  for (const HistoryPoint& p : st.history) {
    Json q{{"t", p.wall_s},
           {"tok_s", p.tok_s},
           {"prefill_tok_s", p.prefill_tok_s},
           {"running", p.running},
           {"waiting", p.waiting}};
    if (p.kv_usage >= 0) q["kv_usage"] = p.kv_usage;
    points.push_back(std::move(q));
  }
  return Json{{"interval_s", 1}, {"points", std::move(points)}};
}

}  // namespace

std::string render_json(const MetricsState& st, const EngineSnapshot& snap, double now_mono_s,
                        bool all_requests) {
  Json j = Json::object();
  j["time"] = Json{{"wall_s", st.wall_of(now_mono_s)}, {"uptime_s", now_mono_s - st.start_mono_s}};
  j["engine"] = engine_json(st, snap);
  j["live"] = live_json(snap);
  add_work(j, st, snap);
  add_kv_and_park(j, snap);
  add_moe(j, snap);
  add_requests(j, st, all_requests);
  add_totals_and_hardware(j, st);
  j["history"] = history_json(st);
  return j.dump();
}

}  // namespace strata
