// The engine settings file that `strata calibrate` writes and `strata serve --config FILE`
// reads: one JSON object whose "serve" member holds engine settings under the names of
// serve's flags (without the dashes), e.g.
//
//   {"strata_config": 1, "written_by": "strata calibrate", "model": "/models/x.gguf",
//    "serve": {"threads": 2, "parallel": 8, "prefill-chunk": 256, "stages": 1,
//              "batch-groups": 1, "join-groups": true},
//    "measured": [...]}
//
// Override rule: a flag given on the command line wins over the file; a key the file lacks
// keeps the flag's default. Errors name the file and the bad key. Pure functions, no state.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "engine/engine.h"

namespace strata {

// A parsed file: the values of the keys it sets (other fields of `values` are defaults).
struct EngineConfigFile {
  std::string path;
  std::vector<std::string> keys;   // the "serve" keys present, in the order of engine_config_keys()
  EngineOptions values;
  nlohmann::json document;         // the whole file, for what it records besides "serve"
};

// Which of the file's keys took effect, for /v1/status and the Monitor page.
struct EngineConfigApplied {
  std::string path;
  std::vector<std::string> from_file;    // set from the file
  std::vector<std::string> overridden;   // in the file, but a command-line flag won
};

// The keys a file's "serve" object may hold: serve's engine flags without the dashes.
const std::vector<std::string>& engine_config_keys();

// path names the file in errors ("config FILE: ...").
Result<EngineConfigFile> parse_engine_config(const std::string& text, const std::string& path);
Result<EngineConfigFile> read_engine_config(const std::string& path);

// Sets in *options every key of the file whose flag is not in flags_given (key names, e.g.
// "threads"); returns what came from where.
EngineConfigApplied apply_engine_config(const EngineConfigFile& file, const std::set<std::string>& flags_given,
                                        EngineOptions* options);

// The "serve" object holding `keys` (each one of engine_config_keys()) of options.
nlohmann::json engine_config_json(const EngineOptions& options, const std::vector<std::string>& keys);

}  // namespace strata
