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
#ifdef STRATA_HAVE_GGUF_INFO
  STRATA_ADD(gguf_info);
#endif
#ifdef STRATA_HAVE_MKMODEL
  STRATA_ADD(mkmodel);
#endif
#ifdef STRATA_HAVE_QUANTIZE
  STRATA_ADD(quantize);
#endif
#ifdef STRATA_HAVE_TOKENIZE
  STRATA_ADD(tokenize);
#endif
#ifdef STRATA_HAVE_RUN
  STRATA_ADD(run);
#endif
#ifdef STRATA_HAVE_BENCH
  STRATA_ADD(bench);
#endif
#ifdef STRATA_HAVE_CALIBRATE
  STRATA_ADD(calibrate);
#endif
#ifdef STRATA_HAVE_BATCH_TEST
  STRATA_ADD(batch_test);
#endif
#ifdef STRATA_HAVE_PARK_TEST
  STRATA_ADD(park_test);
#endif
#ifdef STRATA_HAVE_SERVE
  STRATA_ADD(serve);
#endif
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
