#include "fetch/http_download.h"

#include <httplib.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "fetch/progress_bar.h"
#include "fetch/sha256_file.h"

namespace strata {

namespace {

namespace fs = std::filesystem;

struct UrlParts {
  std::string base;  // scheme://host[:port]
  std::string path;
};

struct RemoteInfo {
  std::string sha256;       // from X-Linked-Etag / ETag when it is a SHA-256
  uint64_t size_bytes = 0;  // 0 when unknown
};

struct ClosePartFile {
  void operator()(FILE* f) const { std::fclose(f); }
};

Result<UrlParts> split_url(const std::string& url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos || (url.compare(0, scheme_end, "http") != 0 && url.compare(0, scheme_end, "https") != 0)) {
    return Status::InvalidArgument("not an http(s) URL: " + url);
  }
  size_t path_start = url.find('/', scheme_end + 3);
  if (path_start == std::string::npos) return UrlParts{url, "/"};
  return UrlParts{url.substr(0, path_start), url.substr(path_start)};
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ETag values come quoted and sometimes weak: W/"abc" -> abc.
std::string etag_value(std::string v) {
  if (v.rfind("W/", 0) == 0) v = v.substr(2);
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
  return v;
}

std::unique_ptr<httplib::Client> make_client(const UrlParts& url, const DownloadOptions& o, bool follow) {
  auto cli = std::make_unique<httplib::Client>(url.base);
  cli->set_follow_location(follow);
  cli->set_connection_timeout(o.connect_timeout_s, 0);
  cli->set_read_timeout(o.read_timeout_s, 0);
  if (!o.bearer_token.empty()) cli->set_bearer_token_auth(o.bearer_token);
  return cli;
}

Status http_status_error(const std::string& url, int status) {
  std::string msg = url + ": HTTP " + std::to_string(status);
  if (status == 404) return Status::NotFound(msg);
  if (status == 401 || status == 403) {
    return Status::InvalidArgument(msg + " (a gated repository needs a token: set HF_TOKEN)");
  }
  return Status::IoError(msg);
}

// HEAD without following redirects: Hugging Face puts the LFS file's SHA-256 and size on the
// redirect itself (X-Linked-Etag, X-Linked-Size).
Result<RemoteInfo> probe(const UrlParts& url, const DownloadOptions& o) {
  auto cli = make_client(url, o, false);
  auto res = cli->Head(url.path);
  if (!res) {
    return Status::IoError("cannot reach " + url.base + ": " + httplib::to_string(res.error()));
  }
  RemoteInfo info;
  int status = res->status;
  if (status >= 400 && status != 405) return http_status_error(o.url, status);
  for (const char* key : {"X-Linked-Etag", "ETag"}) {
    std::string v = etag_value(res->get_header_value(key));
    if (looks_like_sha256(v)) {
      info.sha256 = lower(v);
      break;
    }
  }
  std::string size = res->get_header_value(status >= 300 && status < 400 ? "X-Linked-Size" : "Content-Length");
  if (!size.empty()) info.size_bytes = std::strtoull(size.c_str(), nullptr, 10);
  return info;
}

uint64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  auto n = fs::file_size(path, ec);
  return ec ? 0 : n;
}

// "bytes 100-199/200" -> 200 (0 when absent or "*").
uint64_t content_range_total(const std::string& v) {
  size_t slash = v.rfind('/');
  if (slash == std::string::npos || slash + 1 >= v.size() || v[slash + 1] == '*') return 0;
  return std::strtoull(v.c_str() + slash + 1, nullptr, 10);
}

struct Attempt {
  int status = 0;
  bool transport_ok = false;
  httplib::Error error = httplib::Error::Success;
  uint64_t n_received = 0;
  uint64_t total_bytes = 0;
  bool write_failed = false;
};

// One GET, resuming from whatever .part holds.
Attempt fetch_once(const UrlParts& url, const DownloadOptions& o, const std::string& part, ProgressBar& bar) {
  Attempt a;
  uint64_t offset = file_size_or_zero(part);
  httplib::Headers headers;
  if (offset > 0) headers.emplace("Range", "bytes=" + std::to_string(offset) + "-");
  std::unique_ptr<FILE, ClosePartFile> out;
  uint64_t done = offset;
  auto on_response = [&](const httplib::Response& r) {
    a.status = r.status;
    if (r.status == 206) {
      out.reset(std::fopen(part.c_str(), "ab"));
      a.total_bytes = content_range_total(r.get_header_value("Content-Range"));
    } else if (r.status == 200) {  // the server ignored the range: start over
      out.reset(std::fopen(part.c_str(), "wb"));
      done = 0;
      std::string length = r.get_header_value("Content-Length");
      a.total_bytes = length.empty() ? 0 : std::strtoull(length.c_str(), nullptr, 10);
    } else {
      return false;
    }
    a.write_failed = !out;
    return out != nullptr;
  };
  auto on_data = [&](const char* data, size_t n) {
    if (std::fwrite(data, 1, n, out.get()) != n) {
      a.write_failed = true;
      return false;
    }
    done += n;
    a.n_received += n;
    bar.update(done, a.total_bytes);
    return true;
  };
  auto cli = make_client(url, o, true);
  auto res = cli->Get(url.path, headers, on_response, on_data);
  if (out && std::fflush(out.get()) != 0) a.write_failed = true;
  a.transport_ok = static_cast<bool>(res);
  a.error = res.error();
  if (res && a.status == 0) a.status = res->status;
  return a;
}

// Runs attempts until the whole body is in .part; returns its expected total (0 if unknown).
Result<uint64_t> fetch_with_retries(const UrlParts& url, const DownloadOptions& o, const std::string& part,
                                    uint64_t known_size, int* n_attempts) {
  ProgressBar bar("downloading " + fs::path(o.dest_path).filename().string(), o.show_progress);
  for (int attempt = 1; attempt <= o.max_attempts; ++attempt) {
    *n_attempts = attempt;
    if (known_size > 0 && file_size_or_zero(part) == known_size) break;  // finished by an earlier run
    Attempt a = fetch_once(url, o, part, bar);
    if (a.write_failed) return Status::IoError(part + ": cannot write the download");
    if (a.transport_ok && (a.status == 200 || a.status == 206)) {
      bar.finish();
      return a.total_bytes > 0 ? a.total_bytes : known_size;
    }
    if (a.status == 416) {  // nothing left to send: the .part is complete, or stale
      if (known_size == 0 || file_size_or_zero(part) != known_size) fs::remove(part);
      continue;
    }
    if (a.status >= 400 && a.status < 500) return http_status_error(o.url, a.status);
    if (attempt < o.max_attempts) {
      std::this_thread::sleep_for(std::chrono::duration<double>(o.retry_delay_s * attempt));
    }
  }
  if (known_size > 0 && file_size_or_zero(part) == known_size) return known_size;
  return Status::IoError(o.url + ": download failed after " + std::to_string(o.max_attempts) +
                         " attempts; the partial data in " + part + " is resumed next time");
}

Status verify(const DownloadOptions& o, const std::string& part, uint64_t total_bytes, const std::string& expected,
              DownloadResult* result) {
  result->n_bytes = file_size_or_zero(part);
  if (total_bytes > 0 && result->n_bytes != total_bytes) {
    fs::remove(part);
    return Status::Corrupt(o.url + ": got " + std::to_string(result->n_bytes) + " bytes, expected " +
                           std::to_string(total_bytes) + "; the download was deleted");
  }
  STRATA_ASSIGN_OR_RETURN(result->sha256, sha256_file(part));
  if (!expected.empty() && result->sha256 != expected) {
    fs::remove(part);
    return Status::Corrupt(o.url + ": sha256 mismatch: expected " + expected + ", got " + result->sha256 +
                           "; the download was deleted");
  }
  result->verified = !expected.empty();
  return Status::Ok();
}

}  // namespace

Result<DownloadResult> download_file(const DownloadOptions& o) {
  STRATA_ASSIGN_OR_RETURN(UrlParts url, split_url(o.url));
  if (!o.expected_sha256.empty() && !looks_like_sha256(o.expected_sha256)) {
    return Status::InvalidArgument("not a sha256 (64 hex digits): " + o.expected_sha256);
  }
  STRATA_ASSIGN_OR_RETURN(RemoteInfo remote, probe(url, o));
  std::string expected = lower(o.expected_sha256.empty() ? remote.sha256 : o.expected_sha256);
  std::string part = o.dest_path + ".part";
  std::error_code ec;
  fs::create_directories(fs::path(o.dest_path).parent_path(), ec);
  DownloadResult result;
  STRATA_ASSIGN_OR_RETURN(uint64_t total_bytes, fetch_with_retries(url, o, part, remote.size_bytes, &result.n_attempts));
  STRATA_RETURN_IF_ERROR(verify(o, part, total_bytes, expected, &result));
  fs::rename(part, o.dest_path, ec);
  if (ec) return Status::IoError(o.dest_path + ": cannot move the download into place: " + ec.message());
  return result;
}

}  // namespace strata
