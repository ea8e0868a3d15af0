// `strata quantize IN.gguf OUT.gguf TYPE`: re-encodes an F32 / F16 / BF16 model in one of
// llama.cpp's file types (Q4_K_M, Q3_K_M, IQ4_XS...) with its per-tensor mix; see
// modelgen/model_quantizer.h. Prints the plan (types per tensor count, fallbacks) and sizes.
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "base/clock.h"
#include "cli/commands.h"
#include "fetch/progress_bar.h"
#include "gguf/file_type.h"
#include "modelgen/model_quantizer.h"
#include "modelgen/type_mix.h"

namespace strata::cli {

namespace {

struct QuantizeFlags {
  std::string in_path;
  std::string out_path;
  std::string type;
  int n_threads = 0;
  bool dry_run = false;
  bool no_progress = false;
};

void print_report(const QuantizeReport& r, const QuantizeFlags& flags, double elapsed_s) {
  constexpr double kMiB = 1024.0 * 1024.0;
  std::printf("%s %s: %s, %.1f MiB -> %.1f MiB of tensor data", flags.dry_run ? "would write" : "wrote",
              flags.out_path.c_str(), std::string(file_type_name(r.file_type)).c_str(),
              static_cast<double>(r.n_bytes_in) / kMiB, static_cast<double>(r.n_bytes_out) / kMiB);
  if (!flags.dry_run) std::printf(", %.1f s", elapsed_s);
  std::printf("\n");
  std::map<std::string, int> per_type;
  int n_quantized = 0;
  for (const auto& t : r.tensors) {
    if (t.to == t.from) continue;
    ++n_quantized;
    ++per_type[std::string(dtype_name(t.to))];
  }
  std::printf("  %d of %zu tensors re-encoded:", n_quantized, r.tensors.size());
  for (const auto& [name, n] : per_type) std::printf(" %d x %s", n, name.c_str());
  std::printf("\n");
  for (const auto& t : r.tensors) {
    if (!t.fallback.empty()) {
      std::printf("  fallback: %s stored as %s (%s)\n", t.name.c_str(), std::string(dtype_name(t.to)).c_str(),
                  t.fallback.c_str());
    }
  }
}

int run_quantize(const QuantizeFlags& flags) {
  QuantizeOptions o;
  o.in_path = flags.in_path;
  o.out_path = flags.out_path;
  o.file_type = flags.type;
  o.n_threads = flags.n_threads;
  ProgressBar bar("quantize", !flags.no_progress && !flags.dry_run);
  o.progress = [&bar](uint64_t done, uint64_t total) { bar.update(done, total); };
  const double start_s = monotonic_s();
  auto report = flags.dry_run ? plan_quantize(o) : quantize_model(o);
  if (!report.ok()) {
    std::fprintf(stderr, "quantize: %s\n", report.status().ToString().c_str());
    return 1;
  }
  bar.finish();
  print_report(*report, flags, monotonic_s() - start_s);
  return 0;
}

}  // namespace

void add_quantize_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("quantize", "Re-encode an F32/F16/BF16 GGUF model in a quantized file type");
  auto flags = std::make_shared<QuantizeFlags>();
  sub->add_option("input", flags->in_path, "GGUF model with F32, F16 or BF16 matrices")->required();
  sub->add_option("output", flags->out_path, "GGUF file to write")->required();
  sub->add_option("type", flags->type, "file type: " + mix_names())->required();
  sub->add_option("--threads", flags->n_threads, "threads (default: all cores)");
  sub->add_flag("--dry-run", flags->dry_run, "print the plan without writing");
  sub->add_flag("--no-progress", flags->no_progress, "no progress bar on stderr");
  sub->callback([flags, exit_code] { *exit_code = run_quantize(*flags); });
}

}  // namespace strata::cli
