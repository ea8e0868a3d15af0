// Command-line flags for resolve_model(), shared by `strata run` and `strata serve`:
// --hf-repo, --hf-file, --sha256, --cache-dir, --hf-endpoint, --offline. Header-only glue
// over CLI11; the options object must outlive the parse.
#pragma once

#include <CLI/CLI.hpp>

#include "fetch/model_source.h"

namespace strata {

inline void add_model_source_flags(CLI::App* app, ModelSourceOptions* o) {
  app->add_option("--hf-repo", o->hf_repo,
                  std::string("Hugging Face repo to fetch a model from when -m is not given (default ") +
                      kDefaultHfRepo + ")");
  app->add_option("--hf-file", o->hf_file, std::string("GGUF file in --hf-repo (default ") + kDefaultHfFile + ")");
  app->add_option("--sha256", o->sha256, "expected SHA-256 of the downloaded file");
  app->add_option("--cache-dir", o->cache_dir, "model cache (default $STRATA_CACHE_DIR or ~/.cache/strata)");
  app->add_option("--hf-endpoint", o->endpoint, "download base URL (default $STRATA_HF_ENDPOINT or huggingface.co)");
  app->add_flag("--offline", o->offline, "never download; use the cache or the demo model");
}

}  // namespace strata
