#include "tools/calibration.h"

#include <gtest/gtest.h>

#include "engine/engine_config_file.h"

namespace strata {
namespace {

CalibMeasurement ran(double total, double per_request, double cost_s = 1.0) {
  CalibMeasurement m;
  m.ok = true;
  m.total_tok_s = total;
  m.per_request_tok_s = per_request;
  m.cost_s = cost_s;
  return m;
}

CalibGrid grid() {
  CalibGrid g;
  g.threads = {2, 1};
  g.parallel = {4, 8};
  g.prefill_chunk = {256, 64};
  g.layouts = {{1, 1, true}, {2, 2, true}, {2, 2, false}};
  return g;
}

// A made-up machine: 2 threads beat 1, 2x2 joined beats the rest, 8 slots give more total
// but slower requests, chunk 64 is a little faster.
CalibMeasurement fake_machine(const CalibSetting& s) {
  double total = 10.0 * s.n_threads;
  if (s.layout.n_groups == 2 && s.layout.join_groups) total *= 1.5;
  if (s.n_parallel == 8) total *= 1.6;
  if (s.prefill_chunk == 64) total *= 1.1;
  return ran(total, total / s.n_parallel);
}

TEST(Calibration, ChoosesTheHighestTotalThroughput) {
  std::string why;
  std::vector<CalibMeasurement> m = {ran(10, 5), ran(30, 3), ran(20, 10)};
  EXPECT_EQ(choose_best(m, CalibRule{}, &why), 1);
  EXPECT_EQ(why, "highest total tok/s");
}

TEST(Calibration, PerRequestFloorExcludesSettingsTooSlowPerRequest) {
  std::string why;
  std::vector<CalibMeasurement> m = {ran(10, 5), ran(30, 3), ran(20, 10)};
  EXPECT_EQ(choose_best(m, CalibRule{4.0}, &why), 2);
  // None reaches the floor: the fastest per request.
  EXPECT_EQ(choose_best(m, CalibRule{50.0}, &why), 2);
  EXPECT_NE(why.find("no setting reached the per-request floor"), std::string::npos);
}

TEST(Calibration, SettingsThatDidNotRunAreNeverChosen) {
  std::string why;
  CalibMeasurement failed;
  failed.total_tok_s = 1000;
  EXPECT_EQ(choose_best({failed}, CalibRule{}, &why), -1);
  EXPECT_EQ(choose_best({failed, ran(1, 1)}, CalibRule{}, &why), 1);
}

TEST(Calibration, SearchFindsTheBestSettingOneDimensionAtATime) {
  int calls = 0;
  CalibReport r = run_calibration(grid(), [&](const CalibSetting& s) { ++calls; return fake_machine(s); }, 1e9,
                                  CalibRule{});
  ASSERT_GE(r.best, 0);
  const CalibSetting& best = r.measured[static_cast<size_t>(r.best)].setting;
  EXPECT_EQ(best.n_threads, 2);
  EXPECT_EQ(best.layout.n_groups, 2);
  EXPECT_TRUE(best.layout.join_groups);
  EXPECT_EQ(best.n_parallel, 8);
  EXPECT_EQ(best.prefill_chunk, 64);
  // Start, the other thread count, two more layouts, one more parallel, one more chunk:
  // each setting once.
  EXPECT_EQ(calls, 6);
  EXPECT_TRUE(r.skipped.empty());
}

TEST(Calibration, OneValuePerDimensionMeasuresOneSetting) {
  CalibGrid g;
  g.threads = {2};
  g.parallel = {4};
  g.prefill_chunk = {128};
  g.layouts = {{1, 1, true}};
  CalibReport r = run_calibration(g, fake_machine, 1e9, CalibRule{});
  ASSERT_EQ(r.measured.size(), 1u);
  EXPECT_EQ(r.best, 0);
  EXPECT_EQ(r.measured[0].setting.prefill_chunk, 128);
}

TEST(Calibration, BudgetStopsTheSearchAfterTheFirstMeasurement) {
  // Each measurement costs 10 s; a 15 s budget has room for the first only (10 + 10 > 15).
  CalibReport r = run_calibration(grid(), [](const CalibSetting& s) { return ran(s.n_threads, 1, 10.0); }, 15.0,
                                  CalibRule{});
  ASSERT_EQ(r.measured.size(), 1u);
  EXPECT_EQ(r.best, 0);
  EXPECT_EQ(r.skipped.size(), 5u);
}

TEST(Calibration, FailedSettingIsReportedAndTheSearchGoesOn) {
  auto measure = [](const CalibSetting& s) {
    if (s.layout.n_stages == 2) {
      CalibMeasurement m;
      m.error = "--stages 2 exceeds the model's 1 layers";
      m.cost_s = 0.1;
      return m;
    }
    return fake_machine(s);
  };
  CalibReport r = run_calibration(grid(), measure, 1e9, CalibRule{});
  ASSERT_GE(r.best, 0);
  EXPECT_EQ(r.measured[static_cast<size_t>(r.best)].setting.layout.n_stages, 1);
  const std::string table = format_calibration(r, CalibWorkload{});
  EXPECT_NE(table.find("did not run: --stages 2 exceeds"), std::string::npos) << table;
  EXPECT_NE(table.find("<- chosen"), std::string::npos) << table;
}

TEST(Calibration, ConfigFileHoldsTheChosenSettingAndServeReadsIt) {
  CalibReport r = run_calibration(grid(), fake_machine, 1e9, CalibRule{});
  CalibWorkload w;
  w.model_path = "/m.gguf";
  auto f = parse_engine_config(calibration_config_json(r, w).dump(), "/tmp/c.json");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->values.n_threads, 2);
  EXPECT_EQ(f->values.n_parallel, 8);
  EXPECT_EQ(f->values.prefill_chunk, 64);
  EXPECT_EQ(f->values.n_stages, 2);
  EXPECT_EQ(f->values.n_groups, 2);
  EXPECT_TRUE(f->values.join_groups);
  EXPECT_EQ(f->document["measured"].size(), r.measured.size());
  EXPECT_TRUE(f->document["machine"].contains("kernels"));
}

ConcurrencyResult run_at(double total, double per_request, double ttft_s) {
  ConcurrencyResult r;
  r.total_tok_s = total;
  r.per_request_tok_s = per_request;
  r.ttft_median_s = ttft_s;
  return r;
}

TEST(Calibration, MedianRunIsTheSettingsFigureAndTheOthersItsSpread) {
  const CalibSetting s;
  const CalibMeasurement m = summarize_calib_runs(s, {run_at(30, 3, 0.3), run_at(10, 1, 0.1), run_at(20, 2, 0.2)});
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.n_runs, 3);
  EXPECT_EQ(m.total_tok_s, 20);
  EXPECT_EQ(m.per_request_tok_s, 2);  // the same run's figures, not each field's own median
  EXPECT_EQ(m.ttft_median_s, 0.2);
  EXPECT_EQ(m.total_tok_s_min, 10);
  EXPECT_EQ(m.total_tok_s_max, 30);
}

TEST(Calibration, EvenRunCountTakesTheLowerMiddleRun) {
  const CalibMeasurement m =
      summarize_calib_runs(CalibSetting{}, {run_at(40, 4, 0.4), run_at(10, 1, 0.1), run_at(30, 3, 0.3), run_at(20, 2, 0.2)});
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.total_tok_s, 20);
  EXPECT_EQ(m.per_request_tok_s, 2);
}

TEST(Calibration, NoRunIsNotAMeasurement) {
  const CalibMeasurement m = summarize_calib_runs(CalibSetting{}, {});
  EXPECT_FALSE(m.ok);
  EXPECT_FALSE(m.error.empty());
}

TEST(Calibration, TableAndConfigShowTheRunsAndTheirSpread) {
  CalibMeasurement m = summarize_calib_runs(CalibSetting{}, {run_at(12.5, 3, 0.3), run_at(17.5, 1, 0.1)});
  CalibReport r;
  r.measured = {m};
  r.best = 0;
  CalibWorkload w;
  w.runs = 2;
  const std::string table = format_calibration(r, w);
  EXPECT_NE(table.find("median of 2 runs"), std::string::npos) << table;
  EXPECT_NE(table.find("( 12.5 -  17.5)"), std::string::npos) << table;
  const nlohmann::json doc = calibration_config_json(r, w);
  EXPECT_EQ(doc["measured"][0]["runs"], 2);
  EXPECT_EQ(doc["measured"][0]["total_tok_s_min"], 12.5);
  EXPECT_EQ(doc["measured"][0]["total_tok_s_max"], 17.5);
  EXPECT_EQ(doc["workload"]["runs"], 2);
}

}  // namespace
}  // namespace strata
