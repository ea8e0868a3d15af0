#include "metrics/strata_families.h"

#include <algorithm>
#include <array>
#include <string>

#include "metrics/moe_imbalance.h"

namespace strata {
namespace {

void render_engine_and_live(PromWriter& w, std::span<const PromLabel> c, const MetricsState& st,
                            const EngineSnapshot& snap) {
  const std::string ctx = std::to_string(snap.n_ctx), par = std::to_string(snap.n_parallel),
                    grp = std::to_string(snap.n_groups), stg = std::to_string(snap.n_stages),
                    thr = std::to_string(snap.n_threads);
  const std::string windows = snap.joined_groups ? "joined" : "per_group";
  const std::string& model = st.options.model_name.empty() ? snap.model_name : st.options.model_name;
  const std::array<PromLabel, 9> info = {{{"model", model},
                                          {"arch", snap.arch},
                                          {"version", st.options.version},
                                          {"context", ctx},
                                          {"parallel", par},
                                          {"groups", grp},
                                          {"stages", stg},
                                          {"windows", windows},
                                          {"threads", thr}}};
  w.family("strata:engine_info", "gauge", "Engine configuration (value is 1).", c);
  w.sample(info, 1.0);

  const std::string_view state = engine_state_label(snap);
  w.family("strata:live_state", "gauge", "Engine state, one-hot: idle, reading or generating.", c);
  for (const char* s : kSlotStates) {
    const std::array<PromLabel, 1> l = {{{"state", s}}};
    w.sample(l, state == s ? 1.0 : 0.0);
  }
  w.family("strata:live_running", "gauge", "Requests holding a slot.", c);
  w.sample(snap.n_running);
  w.family("strata:live_waiting", "gauge", "Requests queued for a slot.", c);
  w.sample(snap.n_waiting);
  const std::array<int, 3> n = count_slot_states(snap);
  w.family("strata:live_slots", "gauge", "Slots by state.", c);
  for (size_t i = 0; i < kSlotStates.size(); ++i) {
    const std::array<PromLabel, 1> l = {{{"state", kSlotStates[i]}}};
    w.sample(l, n[i]);
  }
  w.family("strata:live_tok_s", "gauge", "Recent generation rate, all slots, tokens per second.",
           c);
  w.sample(snap.decode_tok_s);
  w.family("strata:live_prefill_tok_s", "gauge",
           "Recent prompt reading rate, all slots, tokens per second.", c);
  w.sample(snap.prefill_tok_s);
  if (st.last && st.last->hit_rate >= 0) {
    w.family("strata:last_hit_rate", "gauge",
             "Share of the last finished request's prompt served from prefix cache or park store.",
             c);
    w.sample(st.last->hit_rate);
  }
}

void render_work(PromWriter& w, std::span<const PromLabel> c, const MetricsState& st,
                 const EngineSnapshot& snap) {
  w.family("strata:window_rows", "histogram", "Rows (tokens) per window through the stages.", c);
  w.histogram(st.window_rows);
  w.family("strata:stage_busy_seconds_total", "counter", "Busy time per pipeline stage.", c);
  for (size_t i = 0; i < snap.stage_busy_s.size(); ++i) {
    const std::string stage = std::to_string(i);
    const std::array<PromLabel, 1> l = {{{"stage", stage}}};
    w.sample(l, snap.stage_busy_s[i]);
  }
  const size_t n_groups = n_listed_groups(st, snap);
  w.family("strata:group_windows_total", "counter", "Windows run per batch group.", c);
  for (size_t g = 0; g < n_groups; ++g) {
    const std::string group = std::to_string(g);
    const std::array<PromLabel, 1> l = {{{"group", group}}};
    w.sample(l, static_cast<double>(group_counters(st, g).windows));
  }
  w.family("strata:group_rows_total", "counter", "Rows run per batch group.", c);
  for (size_t g = 0; g < n_groups; ++g) {
    const std::string group = std::to_string(g);
    const std::array<PromLabel, 1> l = {{{"group", group}}};
    w.sample(l, static_cast<double>(group_counters(st, g).rows));
  }
  // Without groups in the snapshot there is no sample, so the writer leaves the family out.
  w.family("strata:group_busy_seconds_total", "counter",
           "Time the pipeline stages spent computing each batch group's windows.", c);
  for (size_t g = 0; g < snap.group_busy_s.size(); ++g) {
    const std::string group = std::to_string(g);
    const std::array<PromLabel, 1> l = {{{"group", group}}};
    w.sample(l, snap.group_busy_s[g]);
  }
}

void gauge(PromWriter& w, std::span<const PromLabel> c, const char* name, const char* help,
           double v) {
  w.family(name, "gauge", help, c);
  w.sample(v);
}

void counter(PromWriter& w, std::span<const PromLabel> c, const char* name, const char* help,
             double v) {
  w.family(name, "counter", help, c);
  w.sample(v);
}

void render_kv_and_park(PromWriter& w, std::span<const PromLabel> c, const EngineSnapshot& snap) {
  const KvStats& kv = snap.kv;
  if (kv.blocks_total > 0) {
    const int free_blocks = std::max(0, kv.blocks_total - kv.blocks_used - kv.blocks_cached);
    gauge(w, c, "strata:kv_block_tokens", "Tokens per K/V block.", kv.block_tokens);
    gauge(w, c, "strata:kv_capacity_blocks", "K/V blocks in the pool.", kv.blocks_total);
    gauge(w, c, "strata:kv_used_blocks", "K/V blocks held by running requests.", kv.blocks_used);
    gauge(w, c, "strata:kv_cached_blocks", "Unreferenced K/V blocks kept for prefix reuse.",
          kv.blocks_cached);
    gauge(w, c, "strata:kv_free_blocks", "K/V blocks holding nothing.", free_blocks);
    gauge(w, c, "strata:kv_usage", "Share of K/V blocks held by running requests.",
          static_cast<double>(kv.blocks_used) / kv.blocks_total);
  }
  if (kv.window_blocks_total > 0) {
    gauge(w, c, "strata:kv_window_tokens", "Keys a sliding-window layer reads; its K/V pool keeps only these.",
          kv.window_tokens);
    gauge(w, c, "strata:kv_window_capacity_blocks", "Blocks in the sliding-window layers' K/V pool.",
          kv.window_blocks_total);
    gauge(w, c, "strata:kv_window_used_blocks", "Sliding-window K/V blocks held by running requests.",
          kv.window_blocks_used);
    gauge(w, c, "strata:kv_window_cached_blocks", "Unreferenced sliding-window K/V blocks kept for prefix reuse.",
          kv.window_blocks_cached);
  }
  counter(w, c, "strata:kv_evictions_total", "Cached K/V blocks evicted for reuse.",
          static_cast<double>(kv.evictions));
  counter(w, c, "strata:kv_reused_bytes_total",
          "K/V bytes not recomputed thanks to the prefix cache or the park store.",
          static_cast<double>(kv.bytes_reused));
  counter(w, c, "strata:kv_prefix_queried_tokens_total",
          "Prompt tokens looked up in the prefix cache.",
          static_cast<double>(kv.prefix_queries_tokens));
  counter(w, c, "strata:kv_prefix_hit_tokens_total",
          "Prompt tokens served from the prefix cache or the park store.",
          static_cast<double>(kv.prefix_hit_tokens));
  if (kv.state_snapshots_total > 0) {  // a hybrid model's recurrent-state snapshots
    gauge(w, c, "strata:state_snapshots_capacity", "Recurrent-state snapshots the cache can hold (hybrid models).",
          kv.state_snapshots_total);
    gauge(w, c, "strata:state_snapshots_used", "Recurrent-state snapshots held for prefix reuse.",
          kv.state_snapshots_used);
  }
  if (kv.park_capacity_bytes == 0) return;  // parking is off: no park figures exist
  gauge(w, c, "strata:park_blocks", "K/V blocks in the park store.",
        static_cast<double>(kv.parked_blocks));
  gauge(w, c, "strata:park_bytes", "Bytes in the park store.",
        static_cast<double>(kv.parked_bytes));
  gauge(w, c, "strata:park_capacity_bytes", "Park store capacity in bytes.",
        static_cast<double>(kv.park_capacity_bytes));
  counter(w, c, "strata:park_parks_total", "Files written to the park store (K/V blocks, hybrid models' state snapshots).",
          static_cast<double>(kv.parks));
  counter(w, c, "strata:park_restores_total", "Conversations restored from the park store.",
          static_cast<double>(kv.restores));
  counter(w, c, "strata:park_restored_blocks_total", "K/V blocks restored from the park store.",
          static_cast<double>(kv.restored_blocks));
  counter(w, c, "strata:park_written_bytes_total", "Bytes written to the park store.",
          static_cast<double>(kv.park_bytes_written));
  if (kv.state_snapshots_total == 0) return;
  gauge(w, c, "strata:park_states", "Recurrent-state snapshots in the park store (hybrid models).",
        static_cast<double>(kv.parked_states));
  counter(w, c, "strata:park_restored_states_total",
          "Recurrent-state snapshots restored from the park store (hybrid models).",
          static_cast<double>(kv.restored_states));
}

// Low cardinality on purpose: the per-expert counts stay in the JSON view (the heatmap);
// a series per (layer, expert) would be hundreds per model.
void render_moe(PromWriter& w, std::span<const PromLabel> c, const EngineSnapshot& snap) {
  const MoeLoad& moe = snap.moe;
  if (moe.n_expert <= 0) return;
  if (std::optional<double> imbalance = moe_expert_imbalance(moe)) {
    gauge(w, c, "strata:moe_expert_imbalance",
          "Busiest expert's tokens over the mean per expert in the last minute, the worst layer "
          "(1 = even).",
          *imbalance);
  }
  counter(w, c, "strata:moe_routed_tokens_total",
          "Token-to-expert routings, summed over layers (each token counts n_expert_used per layer).",
          static_cast<double>(moe.routed_tokens_total));
  counter(w, c, "strata:moe_expert_read_bytes_total",
          "Expert weight bytes read by forward passes (each routed-to expert once per layer pass).",
          static_cast<double>(moe.expert_bytes_read_total));
}

void render_hardware(PromWriter& w, std::span<const PromLabel> c, const MetricsState& st) {
  if (st.cpu_share) gauge(w, c, "strata:cpu", "Host CPU busy share over the last second.",
                          *st.cpu_share);
  if (st.memory) {
    gauge(w, c, "strata:ram_used_bytes", "Host memory in use (total minus available).",
          static_cast<double>(st.memory->used_bytes));
    gauge(w, c, "strata:ram_total_bytes", "Host memory.",
          static_cast<double>(st.memory->total_bytes));
  }
  w.family("strata:gpu_util", "gauge", "GPU busy share.", c);
  for (const GpuBusy& g : st.gpus) {
    const std::string gpu = std::to_string(g.gpu);
    const std::array<PromLabel, 1> l = {{{"gpu", gpu}}};
    w.sample(l, g.share);
  }
}

}  // namespace

void render_strata_families(PromWriter& w, std::span<const PromLabel> common,
                            const MetricsState& st, const EngineSnapshot& snap) {
  render_engine_and_live(w, common, st, snap);
  render_work(w, common, st, snap);
  render_kv_and_park(w, common, snap);
  render_moe(w, common, snap);
  render_hardware(w, common, st);
}

}  // namespace strata
