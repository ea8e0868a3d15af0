// `strata calibrate`: measures, on this machine and model with every slot busy, which engine
// settings (threads, --parallel, --prefill-chunk, stages x groups, joined or pipelined) run
// fastest, prints the table it measured, and writes the config file `strata serve --config`
// reads. The search and its measurement live in src/tools/calibration.h.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "cli/commands.h"
#include "tools/calibration.h"
#include "tools/engine_bench.h"

namespace strata::cli {

namespace {

struct CalibrateFlags {
  CalibWorkload workload;
  std::string output = "strata-config.json";
  std::string threads;  // default: all cores, then half of them
  std::string parallel = "4,8";
  std::string prefill_chunk = "256,64,512";
  std::string layouts = "1x1,2x2,2x2p";
  double budget_s = 300.0;
  double min_request_tok_s = 0.0;
};

std::string default_threads() {
  const int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return n > 1 ? std::to_string(n) + "," + std::to_string(n / 2) : "1";
}

Result<CalibGrid> parse_grid(const CalibrateFlags& f) {
  CalibGrid g;
  STRATA_ASSIGN_OR_RETURN(g.threads, parse_int_list(f.threads.empty() ? default_threads() : f.threads, "--threads"));
  STRATA_ASSIGN_OR_RETURN(g.parallel, parse_int_list(f.parallel, "--parallel"));
  STRATA_ASSIGN_OR_RETURN(g.prefill_chunk, parse_int_list(f.prefill_chunk, "--prefill-chunk"));
  STRATA_ASSIGN_OR_RETURN(g.layouts, parse_layouts(f.layouts, "--layouts"));
  return g;
}

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IoError("cannot write " + path);
  return Status::Ok();
}

int run_calibrate(const CalibrateFlags& f) {
  if (f.workload.model_path.empty()) {
    std::fprintf(stderr, "calibrate: -m FILE is required\n");
    return 2;
  }
  Result<CalibGrid> grid = parse_grid(f);
  if (!grid.ok()) {
    std::fprintf(stderr, "calibrate: %s\n", grid.status().message().c_str());
    return 2;
  }
  const CalibWorkload& w = f.workload;
  const MeasureFn measure = [&w](const CalibSetting& s) {
    std::fprintf(stderr, "calibrate: measuring %s\n", calib_setting_label(s).c_str());
    return measure_calib_setting(w, s);
  };
  const CalibReport report = run_calibration(*grid, measure, f.budget_s, CalibRule{f.min_request_tok_s});
  std::printf("%s", format_calibration(report, w).c_str());
  if (report.best < 0) {
    std::fprintf(stderr, "calibrate: no setting ran, so no config was written\n");
    return 1;
  }
  if (Status st = write_file(f.output, calibration_config_json(report, w).dump(2) + "\n"); !st.ok()) {
    std::fprintf(stderr, "calibrate: %s\n", st.message().c_str());
    return 1;
  }
  std::printf("wrote %s (strata serve --config %s)\n", f.output.c_str(), f.output.c_str());
  return 0;
}

}  // namespace

void add_calibrate_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("calibrate",
                                 "Measure the fastest engine settings for a model on this machine and write a "
                                 "config file for serve --config");
  auto f = std::make_shared<CalibrateFlags>();
  sub->add_option("-m,--model", f->workload.model_path, "GGUF model file");
  sub->add_option("-o,--output", f->output, "config file to write")->capture_default_str();
  sub->add_option("--threads", f->threads, "thread counts to try, e.g. 16,8 (default: all cores, then half)");
  sub->add_option("--parallel", f->parallel, "slot counts to try")->capture_default_str();
  sub->add_option("--prefill-chunk", f->prefill_chunk, "prefill chunks to try")->capture_default_str();
  sub->add_option("--layouts", f->layouts, "STAGESxGROUPS to try; a trailing p pipelines the groups")
      ->capture_default_str();
  sub->add_option("--budget-s", f->budget_s, "stop measuring when the next setting would pass this many seconds")
      ->capture_default_str()->check(CLI::Range(0.0, 86400.0));
  sub->add_option("--min-request-tok-s", f->min_request_tok_s,
                  "choose only settings where each request generates at least this fast")
      ->capture_default_str()->check(CLI::Range(0.0, 1e6));
  sub->add_option("--prompt-tokens", f->workload.prompt_tokens, "prompt length of every request")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  sub->add_option("--max-new", f->workload.max_new, "tokens each request generates")
      ->capture_default_str()->check(CLI::Range(1, 1 << 20));
  sub->add_option("--ctx", f->workload.n_ctx, "context per slot (0: the model's, at most 4096)")
      ->capture_default_str()->check(CLI::Range(0, 1 << 22));
  sub->add_option("--runs", f->workload.runs,
                  "runs of the workload per setting on one engine; the median run counts, the table shows the spread")
      ->capture_default_str()->check(CLI::Range(1, 100));
  sub->add_option("--kv-type", f->workload.kv_type, "K/V element type")
      ->capture_default_str()->check(CLI::IsMember({"f16", "f32", "q8_0"}));
  sub->callback([f, exit_code] { *exit_code = run_calibrate(*f); });
}

}  // namespace strata::cli
