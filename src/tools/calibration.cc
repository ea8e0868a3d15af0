#include "tools/calibration.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "base/clock.h"
#include "engine/engine_config_file.h"
#include "kernels/kernels.h"

namespace strata {

namespace {

// The keys a calibration decides; the file holds exactly these.
const std::vector<std::string> kCalibratedKeys = {"threads", "parallel", "prefill-chunk", "stages", "batch-groups",
                                                  "join-groups"};

std::string layout_label(const EngineLayout& l) {
  std::string label = std::to_string(l.n_stages) + "x" + std::to_string(l.n_groups);
  if (l.n_groups > 1) label += l.join_groups ? " joined" : " pipelined";
  return label;
}

// Runs the search while the budget allows; owns nothing, collects into the report.
class Search {
 public:
  Search(const MeasureFn& measure, double budget_s, const CalibRule& rule)
      : measure_(measure), budget_s_(budget_s), rule_(rule) {}

  // Measures s unless it already was, or the budget has no room for one more.
  void visit(const CalibSetting& s) {
    const auto seen = [&](const CalibSetting& o) { return o == s; };
    if (std::any_of(report_.measured.begin(), report_.measured.end(),
                    [&](const CalibMeasurement& m) { return m.setting == s; }) ||
        std::any_of(report_.skipped.begin(), report_.skipped.end(), seen)) {
      return;
    }
    const size_t n = report_.measured.size();
    if (n > 0 && spent_s_ + spent_s_ / static_cast<double>(n) > budget_s_) {
      report_.skipped.push_back(s);
      return;
    }
    CalibMeasurement m = measure_(s);
    m.setting = s;
    spent_s_ += m.cost_s;
    report_.measured.push_back(m);
  }

  CalibSetting best_or(const CalibSetting& fallback) {
    std::string why;
    const int i = choose_best(report_.measured, rule_, &why);
    return i < 0 ? fallback : report_.measured[static_cast<size_t>(i)].setting;
  }

  CalibReport finish() {
    report_.best = choose_best(report_.measured, rule_, &report_.why);
    return report_;
  }

 private:
  const MeasureFn& measure_;
  double budget_s_;
  CalibRule rule_;
  double spent_s_ = 0.0;
  CalibReport report_;
};

}  // namespace

int choose_best(const std::vector<CalibMeasurement>& measured, const CalibRule& rule, std::string* why) {
  int best = -1;
  for (size_t i = 0; i < measured.size(); ++i) {
    const CalibMeasurement& m = measured[i];
    if (!m.ok || m.per_request_tok_s < rule.min_request_tok_s) continue;
    if (best < 0 || m.total_tok_s > measured[static_cast<size_t>(best)].total_tok_s) best = static_cast<int>(i);
  }
  if (best >= 0) {
    *why = rule.min_request_tok_s > 0 ? "highest total tok/s with every request at least " +
                                            std::to_string(rule.min_request_tok_s).substr(0, 6) + " tok/s"
                                      : "highest total tok/s";
    return best;
  }
  for (size_t i = 0; i < measured.size(); ++i) {
    const CalibMeasurement& m = measured[i];
    if (m.ok && (best < 0 || m.per_request_tok_s > measured[static_cast<size_t>(best)].per_request_tok_s)) {
      best = static_cast<int>(i);
    }
  }
  *why = best < 0 ? "no setting ran" : "no setting reached the per-request floor: the fastest per request";
  return best;
}

CalibReport run_calibration(const CalibGrid& grid, const MeasureFn& measure, double budget_s, const CalibRule& rule) {
  Search search(measure, budget_s, rule);
  if (grid.threads.empty() || grid.parallel.empty() || grid.prefill_chunk.empty() || grid.layouts.empty()) {
    return search.finish();
  }
  CalibSetting start;
  start.n_threads = grid.threads.front();
  start.n_parallel = grid.parallel.front();
  start.prefill_chunk = grid.prefill_chunk.front();
  start.layout = grid.layouts.front();
  search.visit(start);
  CalibSetting at = start;
  for (int t : grid.threads) search.visit([&] { CalibSetting s = at; s.n_threads = t; return s; }());
  at = search.best_or(at);
  for (const EngineLayout& l : grid.layouts) search.visit([&] { CalibSetting s = at; s.layout = l; return s; }());
  at = search.best_or(at);
  for (int p : grid.parallel) search.visit([&] { CalibSetting s = at; s.n_parallel = p; return s; }());
  at = search.best_or(at);
  for (int c : grid.prefill_chunk) search.visit([&] { CalibSetting s = at; s.prefill_chunk = c; return s; }());
  return search.finish();
}

EngineOptions calib_engine_options(const CalibWorkload& w, const CalibSetting& s) {
  EngineOptions o;
  o.model_path = w.model_path;
  o.n_ctx = w.n_ctx;
  o.kv_type = w.kv_type;
  o.n_threads = s.n_threads;
  o.n_parallel = s.n_parallel;
  o.prefill_chunk = s.prefill_chunk;
  o.n_stages = s.layout.n_stages;
  o.n_groups = s.layout.n_groups;
  o.join_groups = s.layout.join_groups;
  o.max_queue = std::max(64, 2 * s.n_parallel);
  return o;
}

CalibMeasurement summarize_calib_runs(const CalibSetting& setting, const std::vector<ConcurrencyResult>& runs) {
  std::vector<const ConcurrencyResult*> by_speed;
  for (const ConcurrencyResult& r : runs) by_speed.push_back(&r);
  std::sort(by_speed.begin(), by_speed.end(),
            [](const ConcurrencyResult* a, const ConcurrencyResult* b) { return a->total_tok_s < b->total_tok_s; });
  CalibMeasurement m;
  m.setting = setting;
  if (by_speed.empty()) {
    m.error = "no run";
    return m;
  }
  const ConcurrencyResult& median = *by_speed[(by_speed.size() - 1) / 2];
  m.ok = true;
  m.n_runs = static_cast<int>(by_speed.size());
  m.total_tok_s = median.total_tok_s;
  m.per_request_tok_s = median.per_request_tok_s;
  m.ttft_median_s = median.ttft_median_s;
  m.total_tok_s_min = by_speed.front()->total_tok_s;
  m.total_tok_s_max = by_speed.back()->total_tok_s;
  return m;
}

CalibMeasurement measure_calib_setting(const CalibWorkload& w, const CalibSetting& s) {
  const double start_s = monotonic_s();
  Result<std::vector<ConcurrencyResult>> runs =
      measure_engine_setting(calib_engine_options(w, s), w.prompt_tokens, w.max_new, w.runs);
  CalibMeasurement m;
  if (runs.ok()) {
    m = summarize_calib_runs(s, *runs);
  } else {
    m.setting = s;
    m.error = runs.status().message();
  }
  m.cost_s = monotonic_s() - start_s;
  return m;
}

std::string calib_setting_label(const CalibSetting& s) {
  return "threads " + std::to_string(s.n_threads) + ", parallel " + std::to_string(s.n_parallel) +
         ", prefill-chunk " + std::to_string(s.prefill_chunk) + ", stages x groups " + layout_label(s.layout);
}

std::string format_calibration(const CalibReport& r, const CalibWorkload& w) {
  std::string out;
  char line[320];
  std::snprintf(line, sizeof line,
                "calibrate  %s: every slot busy, %d-token prompts, %d new tokens each, median of %d runs\n",
                w.model_path.c_str(), w.prompt_tokens, w.max_new, w.runs);
  out += line;
  out += "threads parallel  chunk  stages x groups   total tok/s  (min - max)    per-req tok/s  TTFT median ms  took s\n";
  for (size_t i = 0; i < r.measured.size(); ++i) {
    const CalibMeasurement& m = r.measured[i];
    const CalibSetting& s = m.setting;
    std::snprintf(line, sizeof line, "%7d %8d %6d  %-15s ", s.n_threads, s.n_parallel, s.prefill_chunk,
                  layout_label(s.layout).c_str());
    out += line;
    if (m.ok) {
      std::snprintf(line, sizeof line, "%12.1f  (%5.1f - %5.1f) %14.1f %15.1f %7.1f%s\n", m.total_tok_s,
                    m.total_tok_s_min, m.total_tok_s_max, m.per_request_tok_s, m.ttft_median_s * 1e3, m.cost_s,
                    static_cast<int>(i) == r.best ? "  <- chosen" : "");
    } else {
      std::snprintf(line, sizeof line, "  did not run: %s\n", m.error.c_str());
    }
    out += line;
  }
  for (const CalibSetting& s : r.skipped) out += "not measured (budget spent): " + calib_setting_label(s) + "\n";
  if (r.best >= 0) {
    out += "chosen: " + calib_setting_label(r.measured[static_cast<size_t>(r.best)].setting) + " (" + r.why + ")\n";
  } else {
    out += "no setting ran: nothing chosen\n";
  }
  return out;
}

nlohmann::json calibration_config_json(const CalibReport& r, const CalibWorkload& w) {
  nlohmann::json measured = nlohmann::json::array();
  for (const CalibMeasurement& m : r.measured) {
    nlohmann::json row = engine_config_json(calib_engine_options(w, m.setting), kCalibratedKeys);
    row["ok"] = m.ok;
    if (m.ok) {
      row["total_tok_s"] = m.total_tok_s;
      row["per_request_tok_s"] = m.per_request_tok_s;
      row["ttft_median_s"] = m.ttft_median_s;
      row["runs"] = m.n_runs;
      row["total_tok_s_min"] = m.total_tok_s_min;
      row["total_tok_s_max"] = m.total_tok_s_max;
    } else {
      row["error"] = m.error;
    }
    measured.push_back(row);
  }
  nlohmann::json doc = {{"strata_config", 1},
                        {"written_by", "strata calibrate"},
                        {"model", w.model_path},
                        {"machine", {{"cores", std::max(1u, std::thread::hardware_concurrency())},
                                     {"kernels", kernels::active_isa()}}},
                        {"workload", {{"prompt_tokens", w.prompt_tokens}, {"max_new", w.max_new}, {"runs", w.runs}}},
                        {"measured", measured}};
  if (r.best >= 0) {
    doc["serve"] = engine_config_json(calib_engine_options(w, r.measured[static_cast<size_t>(r.best)].setting),
                                      kCalibratedKeys);
    doc["choice"] = r.why;
  }
  return doc;
}

}  // namespace strata
