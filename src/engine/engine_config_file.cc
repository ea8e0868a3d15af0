#include "engine/engine_config_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace strata {

namespace {

using nlohmann::json;

// One settable key: an integer field with serve's range, join-groups, or a string field.
struct KeySpec {
  const char* name = "";
  int EngineOptions::*int_field = nullptr;
  long long min = 0, max = 0;
  bool EngineOptions::*bool_field = nullptr;
  std::string EngineOptions::*string_field = nullptr;
  std::vector<std::string> allowed;  // string values allowed; empty: any
};

KeySpec int_key(const char* name, int EngineOptions::*field, long long min, long long max) {
  KeySpec k;
  k.name = name;
  k.int_field = field;
  k.min = min;
  k.max = max;
  return k;
}

KeySpec string_key(const char* name, std::string EngineOptions::*field, std::vector<std::string> allowed) {
  KeySpec k;
  k.name = name;
  k.string_field = field;
  k.allowed = std::move(allowed);
  return k;
}

const std::vector<KeySpec>& specs() {
  static const std::vector<KeySpec> kSpecs = [] {
    KeySpec join;
    join.name = "join-groups";
    join.bool_field = &EngineOptions::join_groups;
    return std::vector<KeySpec>{
        int_key("threads", &EngineOptions::n_threads, 0, 4096),
        int_key("parallel", &EngineOptions::n_parallel, 1, 4096),
        int_key("prefill-chunk", &EngineOptions::prefill_chunk, 1, 1 << 20),
        int_key("stages", &EngineOptions::n_stages, 1, 256),
        int_key("batch-groups", &EngineOptions::n_groups, 0, 4096),
        join,
        int_key("ctx", &EngineOptions::n_ctx, 0, 1 << 22),
        int_key("max-queue", &EngineOptions::max_queue, 0, 1 << 20),
        int_key("kv-block", &EngineOptions::kv_block_tokens, 1, 4096),
        int_key("kv-cache-mib", &EngineOptions::kv_cache_mib, 0, 1 << 24),
        int_key("state-cache-mib", &EngineOptions::state_cache_mib, -1, 1 << 24),
        string_key("kv-type", &EngineOptions::kv_type, {"f16", "f32", "q8_0"}),
        string_key("park-dir", &EngineOptions::park_dir, {}),
        int_key("park-mib", &EngineOptions::park_mib, 0, 1 << 30),
    };
  }();
  return kSpecs;
}

const KeySpec* find_spec(const std::string& name) {
  for (const KeySpec& s : specs()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

std::string known_keys() {
  std::string out;
  for (const KeySpec& s : specs()) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

Status read_value(const KeySpec& spec, const json& v, const std::string& where, EngineOptions* o) {
  if (spec.int_field) {
    if (!v.is_number_integer() || v.get<long long>() < spec.min || v.get<long long>() > spec.max) {
      return Status::InvalidArgument(where + " must be an integer in [" + std::to_string(spec.min) + ", " +
                                     std::to_string(spec.max) + "], not " + v.dump());
    }
    o->*spec.int_field = static_cast<int>(v.get<long long>());
  } else if (spec.bool_field) {
    if (!v.is_boolean()) return Status::InvalidArgument(where + " must be true or false, not " + v.dump());
    o->*spec.bool_field = v.get<bool>();
  } else {
    const bool allowed = v.is_string() && (spec.allowed.empty() || std::count(spec.allowed.begin(), spec.allowed.end(),
                                                                                v.get<std::string>()) > 0);
    if (!allowed) {
      std::string one_of;
      for (const std::string& a : spec.allowed) one_of += (one_of.empty() ? "" : ", ") + a;
      return Status::InvalidArgument(where + " must be a string" + (one_of.empty() ? "" : " (one of " + one_of + ")") +
                                     ", not " + v.dump());
    }
    o->*spec.string_field = v.get<std::string>();
  }
  return Status::Ok();
}

// Members the file may hold besides "serve" (written by calibrate, read by people).
bool is_record_key(const std::string& key) {
  return key == "strata_config" || key == "written_by" || key == "model" || key == "machine" || key == "workload" ||
         key == "measured" || key == "choice";
}

}  // namespace

const std::vector<std::string>& engine_config_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const KeySpec& s : specs()) keys.push_back(s.name);
    return keys;
  }();
  return kKeys;
}

Result<EngineConfigFile> parse_engine_config(const std::string& text, const std::string& path) {
  const std::string prefix = "config " + path + ": ";
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return Status::InvalidArgument(prefix + "is not valid JSON");
  if (!doc.is_object()) return Status::InvalidArgument(prefix + "must hold a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (key != "serve" && !is_record_key(key)) {
      return Status::InvalidArgument(prefix + "unknown key '" + key + "' (the settings go in \"serve\")");
    }
  }
  const auto serve = doc.find("serve");
  if (serve == doc.end() || !serve->is_object()) {
    return Status::InvalidArgument(prefix + "'serve' must be an object of engine settings");
  }
  EngineConfigFile file;
  file.path = path;
  for (const auto& [key, value] : serve->items()) {
    const KeySpec* spec = find_spec(key);
    if (!spec) {
      return Status::InvalidArgument(prefix + "unknown key 'serve." + key + "' (known: " + known_keys() + ")");
    }
    STRATA_RETURN_IF_ERROR(read_value(*spec, value, prefix + "'serve." + key + "'", &file.values));
  }
  for (const KeySpec& s : specs()) {
    if (serve->contains(s.name)) file.keys.push_back(s.name);
  }
  file.document = std::move(doc);
  return file;
}

Result<EngineConfigFile> read_engine_config(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("config " + path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  return parse_engine_config(text.str(), path);
}

EngineConfigApplied apply_engine_config(const EngineConfigFile& file, const std::set<std::string>& flags_given,
                                        EngineOptions* options) {
  EngineConfigApplied applied;
  applied.path = file.path;
  for (const std::string& key : file.keys) {
    if (flags_given.count(key)) {
      applied.overridden.push_back(key);
      continue;
    }
    const KeySpec& spec = *find_spec(key);
    if (spec.int_field) options->*spec.int_field = file.values.*spec.int_field;
    if (spec.bool_field) options->*spec.bool_field = file.values.*spec.bool_field;
    if (spec.string_field) options->*spec.string_field = file.values.*spec.string_field;
    applied.from_file.push_back(key);
  }
  return applied;
}

json engine_config_json(const EngineOptions& options, const std::vector<std::string>& keys) {
  json out = json::object();
  for (const std::string& key : keys) {
    const KeySpec* spec = find_spec(key);
    if (!spec) continue;
    if (spec->int_field) out[key] = options.*spec->int_field;
    if (spec->bool_field) out[key] = options.*spec->bool_field;
    if (spec->string_field) out[key] = options.*spec->string_field;
  }
  return out;
}

}  // namespace strata
