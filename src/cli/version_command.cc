#include <cstdio>

#include "cli/commands.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "0.0.0"
#endif

namespace strata::cli {

void add_version_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("version", "Print the version");
  sub->callback([exit_code] {
    std::printf("strata %s\n", STRATA_VERSION);
    *exit_code = 0;
  });
}

}  // namespace strata::cli
