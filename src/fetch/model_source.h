// resolve_model(): which GGUF file `strata run` / `strata serve` use when no -m is given.
//
// Order: (1) -m as given; (2) the requested Hugging Face file in the cache
// ($STRATA_CACHE_DIR, else $XDG_CACHE_HOME/strata, else ~/.cache/strata), at
// CACHE/hf/OWNER/REPO/FILE; (3) download it from ENDPOINT/OWNER/REPO/resolve/main/FILE
// (ENDPOINT: --hf-endpoint, $STRATA_HF_ENDPOINT, else https://huggingface.co) with resume,
// progress bar and SHA-256 check (http_download.h); (4) when the endpoint cannot be reached:
// another complete model already in the cache, else a generated demo model (tiny llama,
// byte vocabulary, RANDOM weights) at CACHE/demo/, announced loudly as such.
// A 404, a bad checksum or a refused token are errors, never silently replaced.
// Blocking (a download takes minutes); stateless apart from the cache directory.
#pragma once

#include <string>

#include "base/status.h"

namespace strata {

inline constexpr const char* kDefaultHfRepo = "Qwen/Qwen3-0.6B-GGUF";
inline constexpr const char* kDefaultHfFile = "Qwen3-0.6B-Q8_0.gguf";
inline constexpr const char* kDefaultHfEndpoint = "https://huggingface.co";

struct ModelSourceOptions {
  std::string model_path;   // -m FILE: used as is when set
  std::string hf_repo;      // OWNER/REPO; empty: kDefaultHfRepo
  std::string hf_file;      // file in the repo; empty: kDefaultHfFile
  std::string sha256;       // expected; empty: the server's X-Linked-Etag when it is a SHA-256
  std::string cache_dir;    // empty: from the environment (see above)
  std::string endpoint;     // empty: $STRATA_HF_ENDPOINT or kDefaultHfEndpoint
  bool offline = false;     // never touch the network (also when $STRATA_OFFLINE=1)
  bool allow_demo = true;   // may fall back to the random-weight demo model
  bool show_progress = true;
  double retry_delay_s = 1.0;
};

enum class ModelOrigin { kGiven, kCache, kDownloaded, kDemo };

struct ResolvedModel {
  std::string path;
  ModelOrigin origin = ModelOrigin::kGiven;
  bool random_weights = false;  // the demo model: its output is meaningless
  std::string note;             // one line for the user: where the model came from
};

// The cache directory the environment selects (not created).
std::string default_cache_dir();

Result<ResolvedModel> resolve_model_source(const ModelSourceOptions& options);
// Same, returning only the path; logs the note (a warning for the demo model).
Result<std::string> resolve_model(const ModelSourceOptions& options);

}  // namespace strata
