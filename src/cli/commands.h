// The `strata` subcommands. Each add_*_command() registers one subcommand on the app; when
// the user picks it, its callback stores the command's exit status in *exit_code.
// One file per subcommand (gguf_info_command.cc, run_command.cc, ...).
#pragma once

#include <CLI/CLI.hpp>

namespace strata::cli {

void add_version_command(CLI::App& app, int* exit_code);
void add_gguf_info_command(CLI::App& app, int* exit_code);
void add_mkmodel_command(CLI::App& app, int* exit_code);
void add_quantize_command(CLI::App& app, int* exit_code);
void add_tokenize_command(CLI::App& app, int* exit_code);
void add_run_command(CLI::App& app, int* exit_code);
void add_bench_command(CLI::App& app, int* exit_code);
void add_calibrate_command(CLI::App& app, int* exit_code);
void add_batch_test_command(CLI::App& app, int* exit_code);
void add_park_test_command(CLI::App& app, int* exit_code);
void add_serve_command(CLI::App& app, int* exit_code);

}  // namespace strata::cli
