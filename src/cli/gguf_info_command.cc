// `strata gguf-info FILE`: prints a GGUF file's version, metadata, tensor table and totals.
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "gguf/gguf_describe.h"
#include "gguf/gguf_file.h"

namespace strata::cli {

void add_gguf_info_command(CLI::App& app, int* exit_code) {
  auto* sub = app.add_subcommand("gguf-info", "Print a GGUF file's metadata and tensor table");
  struct Options {
    std::string path;
    size_t max_items = 5;
    bool no_tensors = false;
  };
  auto options = std::make_shared<Options>();
  sub->add_option("file", options->path, "GGUF file (the first part of a split model)")->required();
  sub->add_option("--max-items", options->max_items, "array items shown before abbreviating")
      ->capture_default_str();
  sub->add_flag("--no-tensors", options->no_tensors, "omit the tensor table");
  sub->callback([options, exit_code] {
    auto file = GgufFile::Open(options->path);
    if (!file.ok()) {
      std::fprintf(stderr, "gguf-info: %s\n", file.status().ToString().c_str());
      *exit_code = 1;
      return;
    }
    DescribeOptions describe;
    describe.max_array_items = options->max_items;
    describe.show_tensors = !options->no_tensors;
    std::fputs(describe_gguf(*file, describe).c_str(), stdout);
    *exit_code = 0;
  });
}

}  // namespace strata::cli
