#include "fetch/model_source.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "base/log.h"
#include "fetch/http_download.h"
#include "gguf/gguf_file.h"
#include "gguf/gguf_split.h"
#include "modelgen/model_generator.h"

namespace strata {

namespace {

namespace fs = std::filesystem;

constexpr const char* kDemoPreset = "tiny";
constexpr const char* kDemoFile = "strata-demo-llama-tiny-random.gguf";

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

// OWNER/REPO and a relative file path, without ".." tricks that would escape the cache.
Status check_hf_names(const std::string& repo, const std::string& file) {
  auto slash = repo.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == repo.size() || repo.find('/', slash + 1) != std::string::npos) {
    return Status::InvalidArgument("--hf-repo must be OWNER/REPO, got '" + repo + "'");
  }
  for (const std::string* s : {&repo, &file}) {
    for (const auto& part : fs::path(*s)) {
      if (part == "..") return Status::InvalidArgument("'..' is not allowed in '" + *s + "'");
    }
  }
  if (file.empty() || file.front() == '/') return Status::InvalidArgument("--hf-file must be a relative path");
  return Status::Ok();
}

// Every part of a split model (just the file otherwise).
std::vector<std::string> all_parts(const std::string& file) {
  auto split = parse_split_path(file);
  if (!split) return {file};
  std::vector<std::string> parts;
  for (int i = 1; i <= split->n_parts; ++i) parts.push_back(split_path(split->prefix, i, split->n_parts));
  return parts;
}

bool complete_in_cache(const fs::path& dir, const std::string& file) {
  for (const auto& part : all_parts(file)) {
    if (!fs::is_regular_file(dir / part)) return false;
  }
  return true;
}

Status download_parts(const ModelSourceOptions& o, const std::string& endpoint, const std::string& repo,
                      const std::string& file, const fs::path& dir) {
  for (const auto& part : all_parts(file)) {
    if (fs::is_regular_file(dir / part)) continue;
    DownloadOptions d;
    d.url = endpoint + "/" + repo + "/resolve/main/" + part;
    d.dest_path = (dir / part).string();
    d.expected_sha256 = part == file ? o.sha256 : "";
    d.bearer_token = env_or("HF_TOKEN", "");
    d.show_progress = o.show_progress;
    d.retry_delay_s = o.retry_delay_s;
    STRATA_LOG_INFO("downloading {}", d.url);
    auto r = download_file(d);
    if (!r.ok()) return r.status();
    STRATA_LOG_INFO("saved {} ({} bytes, sha256 {}{})", d.dest_path, r->n_bytes, r->sha256,
                    r->verified ? ", verified" : ", not verified: the server gave no checksum");
  }
  return Status::Ok();
}

// The newest complete model under CACHE/hf, for when the requested one cannot be fetched.
std::string newest_cached_model(const fs::path& cache) {
  std::error_code ec;
  fs::path best;
  fs::file_time_type best_time{};
  for (auto it = fs::recursive_directory_iterator(cache / "hf", ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path& p = it->path();
    if (!it->is_regular_file() || p.extension() != ".gguf") continue;
    auto split = parse_split_path(p.string());
    if (split && split->part_no != 1) continue;
    auto t = fs::last_write_time(p, ec);
    if (best.empty() || t > best_time) best = p, best_time = t;
  }
  return best.string();
}

Result<ResolvedModel> demo_model(const fs::path& cache, const std::string& why) {
  fs::path path = cache / "demo" / kDemoFile;
  if (!fs::is_regular_file(path) || !GgufFile::Open(path.string()).ok()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    GenerateOptions g;
    g.preset = kDemoPreset;
    g.out_path = path.string();
    g.n_threads = 1;
    auto r = generate_model(g);
    if (!r.ok()) return r.status();
  }
  ResolvedModel m{path.string(), ModelOrigin::kDemo, true,
                  why + "; using a DEMO model with RANDOM weights (" + path.string() +
                      "): its output is gibberish. Pass -m FILE or connect to the internet for a real model."};
  return m;
}

}  // namespace

std::string default_cache_dir() {
  std::string dir = env_or("STRATA_CACHE_DIR", "");
  if (!dir.empty()) return dir;
  std::string xdg = env_or("XDG_CACHE_HOME", "");
  if (!xdg.empty()) return (fs::path(xdg) / "strata").string();
  return (fs::path(env_or("HOME", "/tmp")) / ".cache" / "strata").string();
}

Result<ResolvedModel> resolve_model_source(const ModelSourceOptions& o) {
  if (!o.model_path.empty()) return ResolvedModel{o.model_path, ModelOrigin::kGiven, false, "model " + o.model_path};
  std::string repo = o.hf_repo.empty() ? kDefaultHfRepo : o.hf_repo;
  std::string file = o.hf_file.empty() ? kDefaultHfFile : o.hf_file;
  STRATA_RETURN_IF_ERROR(check_hf_names(repo, file));
  fs::path cache = o.cache_dir.empty() ? fs::path(default_cache_dir()) : fs::path(o.cache_dir);
  fs::path dir = cache / "hf" / repo;
  std::string path = (dir / file).string();
  if (complete_in_cache(dir, file)) return ResolvedModel{path, ModelOrigin::kCache, false, "cached model " + path};

  std::string why;
  if (o.offline || env_or("STRATA_OFFLINE", "0") == "1") {
    why = "offline";
  } else {
    std::string endpoint = o.endpoint.empty() ? env_or("STRATA_HF_ENDPOINT", kDefaultHfEndpoint) : o.endpoint;
    Status st = download_parts(o, endpoint, repo, file, dir);
    if (st.ok()) return ResolvedModel{path, ModelOrigin::kDownloaded, false, "downloaded model " + path};
    if (st.code() != Code::kIoError) return st;
    why = "cannot download " + repo + "/" + file + " (" + st.message() + ")";
  }
  std::string other = newest_cached_model(cache);
  if (!other.empty()) return ResolvedModel{other, ModelOrigin::kCache, false, why + "; using cached model " + other};
  if (!o.allow_demo) return Status::NotFound(why + "; no model in " + cache.string() + " (pass -m FILE)");
  return demo_model(cache, why);
}

Result<std::string> resolve_model(const ModelSourceOptions& options) {
  STRATA_ASSIGN_OR_RETURN(ResolvedModel m, resolve_model_source(options));
  if (m.random_weights) {
    STRATA_LOG_WARN("{}", m.note);
  } else {
    STRATA_LOG_INFO("{}", m.note);
  }
  return m.path;
}

}  // namespace strata
