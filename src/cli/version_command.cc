#include <cstdio>

#include "cli/commands.h"
#include "kernels/kernels.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "0.0.0"
#endif

namespace strata::cli {

void add_version_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("version", "Print the version and the kernel table this CPU runs");
  sub->callback([exit_code] {
    // The table (avx512, avx2vnni, avx2 or scalar; STRATA_KERNELS can cap it) says which
    // instructions the matmuls and attention will use here, without loading a model.
    std::printf("strata %s\nkernels %s\n", STRATA_VERSION, kernels::active_isa());
    *exit_code = 0;
  });
}

}  // namespace strata::cli
