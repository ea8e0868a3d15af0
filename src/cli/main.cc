// strata: one binary, one subcommand per task. See `strata --help`.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "base/log.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"strata: serve large language models from GGUF files to many users at once"};
  app.require_subcommand(1);
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));
  app.parse_complete_callback([&] { strata::set_log_level(log_level); });

  int exit_code = 0;
#define STRATA_ADD(cmd) strata::cli::add_##cmd##_command(app, &exit_code)
  STRATA_ADD(version);
  STRATA_ADD(gguf_info);
  STRATA_ADD(mkmodel);
  STRATA_ADD(quantize);
  STRATA_ADD(tokenize);
  STRATA_ADD(run);
  STRATA_ADD(bench);
  STRATA_ADD(calibrate);
  STRATA_ADD(batch_test);
  STRATA_ADD(park_test);
  STRATA_ADD(serve);
#undef STRATA_ADD

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help requests exit 0; every usage error (bad value, missing flag) exits 2, the
    // conventional code for a command-line mistake, whatever CLI11's own code is.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
